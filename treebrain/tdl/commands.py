"""The TDL command set as data: which commands exist, their parameter signatures and what values mean.

Rules never hard-code command names: they ask the set which parameter of a command is its target
pose, velocity or gripper port (the parameter's *role*), so adding a vendor command is a data change
in ``config/tdl/commands.yaml``.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from treebrain.documents import load_model
from treebrain.tdl.datafile import default_config_dir

Space = Literal["joint", "cartesian", "offset"]
Role = Literal[
    "target_pose",
    "via_pose",
    "pose_list",
    "velocity",
    "acceleration",
    "velocity_percent",
    "acceleration_percent",
    "io_port",
    "io_value",
    "duration",
    "weight",
    "assign_target",
    "assign_source",
    "label_name",
    "label_ref",
]
POSE_ROLES: frozenset[str] = frozenset({"target_pose", "via_pose", "pose_list"})
_LIMIT_ROLES = frozenset({"velocity", "acceleration", "velocity_percent", "acceleration_percent"})


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ParamSpec(_Frozen):
    """One parameter of a command's signature."""

    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    required: bool = False
    role: Role | None = None


class FlowSpec(_Frozen):
    """How a flat flow-control command (SPAWN If ... SPAWN EndIf) opens or closes a block."""

    opens: str | None = None
    closes: tuple[str, ...] = ()
    reopens: str | None = None


class CommandSpec(_Frozen):
    """A command's category, motion space and ordered parameters (positional order = list order).

    `motion` is ``async`` for a motion that returns before the arm arrives (AMove*) and ``wait`` for
    the command that waits for such motions (MotionWait); `extension` says where a command that is
    not in the published command set comes from.
    """

    category: Literal["motion", "config", "io", "system", "variable", "flow", "application", "force"]
    space: Literal["joint", "cartesian"] | None = None
    params: tuple[ParamSpec, ...] = ()
    flow: FlowSpec | None = None
    motion: Literal["async", "wait"] | None = None
    extension: str | None = None

    @model_validator(mode="after")
    def _unique_params(self) -> CommandSpec:
        names = [param.name for param in self.params]
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            raise ValueError(f"duplicate parameter names: {', '.join(duplicates)}")
        return self

    @cached_property
    def limited_params(self) -> tuple[ParamSpec, ...]:
        """Parameters the velocity and acceleration limits apply to."""
        return tuple(param for param in self.params if param.role in _LIMIT_ROLES)

    def param(self, name: str) -> ParamSpec | None:
        return next((param for param in self.params if param.name == name), None)

    def param_with_role(self, role: str) -> ParamSpec | None:
        return next((param for param in self.params if param.role == role), None)


class PoseTypeSpec(_Frozen):
    """A pose constructor such as PosX: its space, its positional parameter names and, for one that is
    not in the published command set, where it comes from."""

    space: Space
    params: tuple[str, ...]
    optional: tuple[str, ...] = ()
    extension: str | None = None


class CommandSet(_Frozen):
    """All commands and pose constructors a TDL program may use."""

    version: Literal[1]
    pose_types: dict[str, PoseTypeSpec]
    commands: dict[str, CommandSpec]

    @cached_property
    def _folded_commands(self) -> dict[str, str]:
        return {name.casefold(): name for name in self.commands}

    @cached_property
    def _folded_pose_types(self) -> dict[str, str]:
        return {name.casefold(): name for name in self.pose_types}

    def canonical_command(self, name: str) -> str | None:
        """The command's spelling in the set, matching case-insensitively; None when unknown."""
        if name in self.commands:
            return name
        return self._folded_commands.get(name.casefold())

    def pose_type(self, name: str) -> str | None:
        """The pose constructor `name` denotes (PosX, posx, POSX -> PosX); None when it is not one."""
        if name in self.pose_types:
            return name
        return self._folded_pose_types.get(name.casefold())


def load_command_set(path: str | Path | None = None) -> CommandSet:
    """Load and validate the command set (default ``config/tdl/commands.yaml``)."""
    return load_model(path or default_config_dir() / "commands.yaml", CommandSet)
