"""The one command a manipulator takes per control step: move the end effector by a small delta.

Deltas are in the world frame: `translation` in metres and `rotation` as a rotation vector in
radians (axis times angle), both for this one step. The gripper is -1 (open) to 1 (closed).
"""

from __future__ import annotations

from pydantic import Field

from treebrain.robots.manipulator.observation import Frozen, Vec3

ZERO: Vec3 = (0.0, 0.0, 0.0)


class EndEffectorCommand(Frozen):
    translation: Vec3 = ZERO
    rotation: Vec3 = ZERO
    gripper: float = Field(default=-1.0, ge=-1.0, le=1.0)

    def still(self) -> EndEffectorCommand:
        """The same gripper command with no motion: what a stop sends."""
        return EndEffectorCommand(gripper=self.gripper)
