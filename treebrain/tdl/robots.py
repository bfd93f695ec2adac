"""Robot specifications the safety rules check programs against, one YAML file per robot.

Joint moves give velocity in deg/s and Cartesian moves in mm/s, so a spec carries separate limits for
each space (the validation spec applied mm/s limits to every move, which misjudges joint moves).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

from treebrain.documents import load_model
from treebrain.errors import InputError
from treebrain.tdl.datafile import default_config_dir


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Limit(_Frozen):
    """A hard safe range [min, max] and a recommended band inside it."""

    min: float = Field(ge=0)
    max: float = Field(gt=0)
    recommended: tuple[float, float]

    @model_validator(mode="after")
    def _ordered(self) -> Limit:
        low, high = self.recommended
        if not self.min <= low <= high <= self.max:
            raise ValueError(f"need min <= recommended low <= recommended high <= max, got {self}")
        return self


class MotionLimits(_Frozen):
    velocity: Limit
    acceleration: Limit


class Workspace(_Frozen):
    floor_z_mm: float = 0.0
    low_z_warning_mm: float = 10.0


class Gripper(_Frozen):
    """Which digital output drives the gripper and which values close and open it."""

    port: int
    close_value: int = 1
    open_value: int = 0


class RobotSpec(_Frozen):
    """Reach, joint ranges, motion limits, workspace floor and gripper wiring of one robot."""

    robot: str = Field(pattern=r"^[a-z0-9_]+$")
    aliases: tuple[str, ...] = ()
    """Other names the robot may be asked for by (``m1013`` for ``doosan_m1013``), in any case."""
    name: str
    reach_mm: float = Field(gt=0)
    payload_kg: float = Field(gt=0)
    joint_limits_deg: tuple[tuple[float, float], ...] = Field(min_length=1)
    home_deg: tuple[float, ...]
    cartesian: MotionLimits
    joint: MotionLimits
    workspace: Workspace = Workspace()
    gripper: Gripper

    @model_validator(mode="after")
    def _ranges_ordered(self) -> RobotSpec:
        for index, (low, high) in enumerate(self.joint_limits_deg, start=1):
            if low >= high:
                raise ValueError(f"joint {index} range [{low}, {high}] is empty")
        if len(self.home_deg) != len(self.joint_limits_deg):
            raise ValueError(
                f"home_deg has {len(self.home_deg)} angles for {len(self.joint_limits_deg)} joints"
            )
        for index, (angle, (low, high)) in enumerate(
            zip(self.home_deg, self.joint_limits_deg, strict=True), 1
        ):
            if not low <= angle <= high:
                raise ValueError(f"home_deg joint {index} angle {angle} is outside [{low}, {high}]")
        return self

    def limits(self, space: str) -> MotionLimits:
        return self.joint if space == "joint" else self.cartesian


def robot_names(config_dir: str | Path | None = None) -> list[str]:
    """The robots that have a spec file."""
    directory = Path(config_dir or default_config_dir()) / "robots"
    return sorted(path.stem for path in directory.glob("*.yaml"))


def _by_alias(name: str, directory: Path) -> RobotSpec | None:
    wanted = name.lower()
    for known in robot_names(directory):
        spec = load_robot_spec(known, directory)
        if wanted in (alias.lower() for alias in spec.aliases):
            return spec
    return None


def _known_robots(directory: Path) -> str:
    described = []
    for known in robot_names(directory):
        aliases = load_robot_spec(known, directory).aliases
        described.append(f"{known} ({', '.join(aliases)})" if aliases else known)
    return ", ".join(described) or "none"


def load_robot_spec(robot: str, config_dir: str | Path | None = None) -> RobotSpec:
    """Load ``robots/<robot>.yaml`` under `config_dir` (default ``config/tdl``), a robot named by one
    of its aliases (``m1013``), or a spec file path."""
    candidate = Path(robot)
    if candidate.suffix in {".yaml", ".yml"}:
        return load_model(candidate, RobotSpec)
    directory = Path(config_dir or default_config_dir())
    path = directory / "robots" / f"{robot}.yaml"
    if not path.is_file():
        aliased = _by_alias(robot, directory)
        if aliased is not None:
            return aliased
        raise InputError.single(f"unknown robot '{robot}' (known: {_known_robots(directory)})", path)
    spec = load_model(path, RobotSpec)
    if spec.robot != robot:
        raise InputError.single(f"file declares robot '{spec.robot}' but is named '{robot}'", path, 1, 1)
    return spec
