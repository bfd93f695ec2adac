"""Arm leaves: look at the cell (``arm.scene``) and execute primitives on the tree's arm
(``arm.execute``, :class:`~treebrain.behaviours.arm.service.ArmService`), one primitive per tick,
with ``stop`` sent whenever the action is halted or a primitive fails.
"""

from __future__ import annotations

from py_trees.common import Status
from pydantic import BaseModel

from treebrain.behaviours.arm.service import ArmService, check_driver
from treebrain.behaviours.base import AsyncAction, CheckEnv, Leaf, NodeSetup
from treebrain.behaviours.ports import Port
from treebrain.behaviours.run_limits import RunLimits
from treebrain.blackboard import register_type
from treebrain.errors import InputError
from treebrain.robots.arm.commands import ArmCommand, CommandError, describe, parse_command
from treebrain.robots.arm.drivers import ArmDriver
from treebrain.robots.arm.limits import motion_seconds
from treebrain.robots.arm.workcell import ArmScene
from treebrain.robots.driver import DriverStatus
from treebrain.robots.errors import DriverError

register_type("ArmScene", ArmScene)


class _ArmLeafMixin:
    """Shared load-time check: the robot file must describe a driver this leaf can build."""

    @classmethod
    def check(cls, params: BaseModel, env: CheckEnv) -> list[str]:
        return check_driver(env.robot)


class Scene(_ArmLeafMixin, Leaf):
    """Writes what the driver knows of the cell (pose, gripper, stacks, assembly zones) to `scene`."""

    type_name = "arm.scene"
    outputs = {"scene": Port("ArmScene", "the cell as the driver sees it")}

    def update(self) -> Status:
        try:
            scene = self.context.service(ArmService).driver.observe()
        except (InputError, DriverError) as error:
            self.feedback_message = str(error)
            return Status.FAILURE
        self.write("scene", scene)
        return Status.SUCCESS


class Execute(_ArmLeafMixin, AsyncAction):
    """Sends `commands` to the arm one primitive per tick, each after the previous one is done.

    Every command is re-validated as one of the arm's primitives before the first is sent, and the
    program must fit the run's limits (``max_actions``, ``max_duration_s``), so a malformed or
    oversized program moves nothing. A command refused or failed once the program is under way sends
    nothing more but a ``stop`` (the arm may still be moving), waits for the driver to say whether the
    stop was acknowledged, and ends with FAILURE: `error` names the primitive, why it failed and how
    the stop went. A halt sends ``stop`` too. Each command sent, each failure and each stop is an
    ``actuator`` event.
    """

    type_name = "arm.execute"
    inputs = {"commands": Port("list[dict[str, any]]", "primitives as JSON ({name, ...})")}
    outputs = {
        "executed": Port("int", "how many commands the arm finished", required=False),
        "scene": Port("ArmScene", "the cell after the last command", required=False),
        "error": Port("str", "why execution stopped early", required=False),
    }

    def __init__(self, setup: NodeSetup) -> None:
        super().__init__(setup)
        self.program: list[ArmCommand] = []
        self.done = 0
        self.fault: str | None = None
        """Why the program stopped early, while the stop sent after it awaits its answer."""

    @property
    def driver(self) -> ArmDriver:
        return self.context.service(ArmService).driver

    def start(self) -> Status:
        self.done = 0
        self.fault = None
        self.write("executed", 0)
        try:
            self.program = [parse_command(command) for command in self.read("commands")]
        except CommandError as error:
            return self._stopped_early(f"not an arm program: {error}")
        scene = self.driver.observe()
        seconds = motion_seconds(scene.pose, scene.speed_mm_s, self.program)
        refusal = self.context.service(RunLimits).admit(len(self.program), seconds)
        if refusal is not None:
            return self._stopped_early(f"refused before the first command: {refusal}")
        return self._send_next()

    def poll(self) -> Status:
        status = self.driver.poll()
        if self.fault is not None:
            return self._stopping(status)
        if not status.finished:
            self.feedback_message = f"{status.command}: {status.message}"
            return Status.RUNNING
        if status.state != "done":
            return self._faulted(f"{status.command} {status.state}: {status.message}", sent=True)
        self.done += 1
        self.write("executed", self.done)
        return self._send_next()

    def cancel(self) -> None:
        self.driver.stop()
        self.context.emit("actuator", self.path, {"stop": True, "executed": self.done})
        self.feedback_message = f"stopped after {self.done} of {len(self.program)}"

    def _send_next(self) -> Status:
        if self.done == len(self.program):
            self.write("scene", self.driver.observe())
            self.feedback_message = f"{self.done} command(s) done"
            return Status.SUCCESS
        command = self.program[self.done]
        try:
            self.driver.act(command)
        except DriverError as error:
            return self._faulted(f"{describe(command)} refused: {error}", sent=self.done > 0)
        self.context.emit(
            "actuator",
            self.path,
            {"command": command.model_dump(), "index": self.done, "total": len(self.program)},
        )
        self.feedback_message = f"{self.done + 1}/{len(self.program)} {describe(command)}"
        return Status.RUNNING

    def _faulted(self, reason: str, *, sent: bool) -> Status:
        """Primitive ``done + 1`` failed: send nothing more; stop the arm unless nothing reached it."""
        failed = f"primitive {self.done + 1} of {len(self.program)}, {reason}"
        self.context.emit(
            "actuator",
            self.path,
            {"failed": self.done, "command": self.program[self.done].model_dump(), "error": reason},
        )
        if not sent:
            return self._stopped_early(failed)
        self.fault = failed
        self.driver.stop()
        return self._stopping(self.driver.poll())

    def _stopping(self, status: DriverStatus) -> Status:
        """After a fault: RUNNING until the driver knows how the stop went, then FAILURE saying so."""
        assert self.fault is not None
        if not status.finished:
            self.feedback_message = f"{self.fault}; {status.message}"
            return Status.RUNNING
        self.context.emit(
            "actuator",
            self.path,
            {
                "stop": True,
                "executed": self.done,
                "acknowledged": status.acknowledged,
                "message": status.message,
            },
        )
        reason, self.fault = f"{self.fault}; {status.message}", None
        return self._stopped_early(reason)

    def _stopped_early(self, reason: str) -> Status:
        self.write("error", reason)
        self.write("scene", self.driver.observe())
        self.feedback_message = reason
        return Status.FAILURE


BEHAVIOURS = (Scene, Execute)
