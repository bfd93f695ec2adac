"""What the TDL leaves of one tree share: the command set, rule table and prompts, and robot specs.

Loaded once per tree on first use (about 60 ms), from ``config/tdl`` of the checkout, so a tree that
verifies hundreds of programs (``treebrain vv eval``) reads its data files once.
"""

from __future__ import annotations

from functools import cached_property

from treebrain.behaviours.context import TreeContext
from treebrain.tdl.pipeline import TdlConfig, load_tdl_config
from treebrain.tdl.robots import RobotSpec, load_robot_spec


class TdlService:
    """The TDL configuration and the robot specs asked for so far."""

    def __init__(self) -> None:
        self._robots: dict[str, RobotSpec] = {}

    @classmethod
    def from_context(cls, context: TreeContext) -> TdlService:
        return cls()

    @cached_property
    def config(self) -> TdlConfig:
        return load_tdl_config()

    def robot(self, name: str) -> RobotSpec:
        """The spec of robot `name` (a spec name, an alias or a spec file); raises InputError if unknown."""
        spec = self._robots.get(name)
        if spec is None:
            spec = load_robot_spec(name)
            self._robots[name] = spec
        return spec

    def close(self) -> None:
        """Nothing to release: the data is immutable."""
