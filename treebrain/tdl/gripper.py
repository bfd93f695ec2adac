"""Which digital output is the gripper: the robot file says which output is wired to it, the program's
use of its outputs confirms or corrects that.

A gripper holds its state while the arm moves: it closes, the arm carries the part, it opens. So an
output that changes value with motions in between is *used like a gripper*; an output switched on and
back off with no motion in between (``SetDigitalOutput(1, 1)``, ``Delay``, ``SetDigitalOutput(1, 0)``)
is a signal (a pulse to a conveyor, a light), not a gripper. The choice:

1. the robot file's output, when the program uses it like a gripper;
2. else another output the program uses like a gripper (the one switched between motions most often);
3. else the robot file's output, unless the program only pulses it (then no output is the gripper and
   the gripper rules have nothing to check).

The choice and its reason go into the report, so a reader sees which output the checks treated as
the gripper. Close and open values always come from the robot file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict

from treebrain.tdl.model import ProgramModel
from treebrain.tdl.robots import RobotSpec


class GripperChoice(BaseModel):
    """The output the gripper rules treat as the gripper (None: none is), and why."""

    model_config = ConfigDict(frozen=True)

    port: int | None
    close_value: float
    open_value: float
    source: Literal["robot file", "program usage", "none"]
    reason: str

    def describe(self) -> str:
        if self.port is None:
            return f"none ({self.reason})"
        return f"output {self.port} ({self.source}: {self.reason})"


@dataclass
class _Usage:
    """How the program switches one output: changes with motions in between, and without."""

    value: float
    motions: int
    carried: int = 0
    pulsed: int = 0

    @property
    def like_gripper(self) -> bool:
        return self.carried > 0

    @property
    def pulse_only(self) -> bool:
        return self.pulsed > 0 and self.carried == 0


def _usage(model: ProgramModel) -> dict[int, _Usage]:
    """Per constant output port, in execution order."""
    usage: dict[int, _Usage] = {}
    motions = 0
    for step in model.trace:
        invocation = model.invocations[step.invocation]
        if invocation.action == "motion":
            motions += 1
            continue
        if invocation.output is None:
            continue
        port, value = invocation.output
        if port is None or value is None or not port.is_integer():
            continue
        seen = usage.get(int(port))
        if seen is None:
            usage[int(port)] = _Usage(value, motions)
            continue
        if value != seen.value:
            if motions > seen.motions:
                seen.carried += 1
            else:
                seen.pulsed += 1
        seen.value, seen.motions = value, motions
    return usage


def identify_gripper(model: ProgramModel, robot: RobotSpec) -> GripperChoice:
    """The gripper output for the rules (see the module's description of the choice)."""
    wired = robot.gripper
    usage = _usage(model)

    def choice(
        port: int | None, source: Literal["robot file", "program usage", "none"], reason: str
    ) -> GripperChoice:
        return GripperChoice(
            port=port,
            close_value=wired.close_value,
            open_value=wired.open_value,
            source=source,
            reason=reason,
        )

    own = usage.get(wired.port)
    if own is not None and own.like_gripper:
        return choice(wired.port, "robot file", "the program switches it between motions")
    others = sorted(
        (port for port, use in usage.items() if port != wired.port and use.like_gripper),
        key=lambda port: (-usage[port].carried, port),
    )
    if others:
        if own is None:
            state = "is not used"
        elif own.pulse_only:
            state = "is only switched on and off with no motion in between"
        else:
            state = "is not switched between motions"
        return choice(
            others[0],
            "program usage",
            f"switched between motions like a gripper; the robot file's output {wired.port} {state}",
        )
    if own is not None and own.pulse_only:
        return choice(
            None,
            "none",
            f"the robot file's output {wired.port} is switched on and off with no motion in between: "
            "a signal, not a gripper",
        )
    return choice(wired.port, "robot file", "not used by the program" if own is None else "as wired")
