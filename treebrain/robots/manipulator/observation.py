"""What a manipulator driver observes, in the world frame: object poses and boxes, the gripper, contacts.

Every position is in metres in the simulator's world frame (x forward from the robot, y to its
left, z up; robosuite's default), every quaternion is ``(x, y, z, w)``. Skills, perception and the
world state all use this one frame; ``docs/manipulation.md`` draws it and the frame tests check it.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]
"""A rotation as ``(x, y, z, w)``, the order robosuite's observations use."""


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


class ObjectObservation(Frozen):
    """One object: its canonical name, the simulator's name for it, its pose and its box.

    The box is the object's collision geometry as an axis-aligned box in the object's own frame
    (`box_center` from the object's origin, `half_extents` along its axes), so the world state can
    tell its top, bottom and footprint at any pose.
    """

    name: str
    raw_name: str
    position: Vec3
    quaternion: Quat
    box_center: Vec3 = (0.0, 0.0, 0.0)
    half_extents: Vec3
    round: bool = False
    """Its footprint is a disc (a can): turning it about z changes nothing."""
    perceived_by: str = "oracle"
    """Which perception gave the pose: ``oracle`` (the simulator's state), ``camera NAME+NAME``
    (depth and masks of those cameras at `seen_step`) or ``gripper`` (held, so carried with the
    gripper since that look)."""
    seen_step: int = Field(default=0, ge=0)
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    visible_fraction: float = Field(default=1.0, ge=0.0, le=1.0)
    """How much of the object's top the cameras saw (1 for the oracle)."""


class GripperObservation(Frozen):
    """The end effector (the controlled site between the fingertips), its orientation, which way
    the fingers close and how far apart they are. The site's z axis points out of the gripper
    (down when the gripper is vertical above the table)."""

    position: Vec3
    quaternion: Quat
    width: float = Field(ge=0.0)
    """Distance between the fingers' joints: 0 closed, about 0.08 m fully open (Panda)."""
    finger_speed: float = Field(ge=0.0)
    """How fast the width changes (m/s); a grasp is settled when this is near zero."""
    command: float = Field(ge=-1.0, le=1.0)
    """The last gripper command sent: -1 open, 1 closed."""
    finger_axis: Vec3
    """Unit vector from the right fingertip to the left one: the line the fingers close along."""


class Contact(Frozen):
    """Two touching things by name: object names, ``left_finger``, ``right_finger``, ``hand`` (the
    rest of the gripper), ``robot``, ``table``, ``floor`` or ``fixture:<name>`` for the rest."""

    a: str
    b: str


class ManipulatorObservation(Frozen):
    """One look at the scene after `step` control steps of the current episode."""

    task: str
    seed: int | None
    step: int = Field(ge=0)
    sim_time: float = Field(ge=0.0)
    objects: dict[str, ObjectObservation]
    gripper: GripperObservation
    contacts: tuple[Contact, ...] = ()
    robot_base: Vec3
    task_success: bool
    """The simulator's own success check for its task."""
    objects_placed: dict[str, bool] = {}
    """The simulator's own check per object, where it has one (PickPlace: each object in its own
    compartment of the bin)."""
    horizon_reached: bool = False

    def touching(self, name: str) -> set[str]:
        """Everything in contact with `name`."""
        found: set[str] = set()
        for contact in self.contacts:
            if contact.a == name:
                found.add(contact.b)
            elif contact.b == name:
                found.add(contact.a)
        return found
