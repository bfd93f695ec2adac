"""Utility leaves every tree can use: fixed statuses, waiting, setting and checking keys, logging."""

from __future__ import annotations

import itertools
import logging
import math
import string
from typing import Annotated, Any, Literal

from msgspec import Meta
from py_trees.common import Status

from treebrain.behaviours.base import AsyncAction, CheckEnv, Leaf, Params
from treebrain.behaviours.ports import Port
from treebrain.blackboard import MISSING, Condition, TypeMismatch, parse_condition
from treebrain.blackboard.conditions import ConditionText
from treebrain.clock import TIME_EPSILON

_LOG = logging.getLogger("treebrain.log")
StatusName = Literal["SUCCESS", "FAILURE", "RUNNING"]


class Succeed(Leaf):
    """Always SUCCESS."""

    type_name = "succeed"

    def update(self) -> Status:
        return Status.SUCCESS


class Fail(Leaf):
    """Always FAILURE."""

    type_name = "fail"

    def update(self) -> Status:
        return Status.FAILURE


class Running(Leaf):
    """Always RUNNING (a placeholder for work that never ends, or a test fixture)."""

    type_name = "running"

    def update(self) -> Status:
        return Status.RUNNING


class StatusScriptParams(Params):
    statuses: Annotated[list[StatusName], Meta(min_length=1, description="statuses returned tick after tick")]
    then: Annotated[
        StatusName | None, Meta(description="status after the script ends (default: repeat the last)")
    ] = None


class StatusScript(Leaf):
    """Plays a scripted status per tick: the stand-in that tests substitute for any node."""

    type_name = "status_script"
    Params = StatusScriptParams
    params: StatusScriptParams

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ticks = 0
        self.halts = 0

    def update(self) -> Status:
        script = self.params.statuses
        name = script[self.ticks] if self.ticks < len(script) else self.params.then or script[-1]
        self.ticks += 1
        return Status[name]

    def terminate(self, new_status: Status) -> None:
        if new_status == Status.INVALID and self.status == Status.RUNNING:
            self.halts += 1


class WaitParams(Params):
    seconds: Annotated[float, Meta(ge=0.0, description="how long to stay RUNNING, on the tree's clock")]


class Wait(AsyncAction):
    """RUNNING until `seconds` have passed on the tree's clock, then SUCCESS."""

    type_name = "wait"
    Params = WaitParams
    params: WaitParams

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline = 0.0

    def start(self) -> Status:
        self._deadline = self.clock.now() + self.params.seconds
        return self.poll()

    def poll(self) -> Status:
        remaining = self._deadline - self.clock.now()
        if remaining <= TIME_EPSILON:
            return Status.SUCCESS
        self.feedback_message = f"{remaining:.2f} s left"
        return Status.RUNNING


class SetParams(Params):
    value: Annotated[Any, Meta(description="the value written to the `value` output's key")]


class SetBlackboard(Leaf):
    """Writes a constant to its `value` output's key, then SUCCESS."""

    type_name = "set_blackboard"
    Params = SetParams
    outputs = {"value": Port("any", "the key to set")}
    params: SetParams

    @classmethod
    def check(cls, params: Any, env: CheckEnv) -> list[str]:
        declared = env.key_types.get("value")
        if declared is None:
            return ["output 'value' must be mapped to the key to set"]
        try:
            declared.validate(getattr(params, "value", None))
        except TypeMismatch as mismatch:
            return [f"params.value does not fit the key's type: {mismatch}"]
        return []

    def update(self) -> Status:
        self.write("value", self.params.value)
        return Status.SUCCESS


class CheckParams(Params):
    condition: Annotated[
        ConditionText, Meta(description="e.g. '/battery/level >= 0.2', '/flag', 'not /flag', '/goal is set'")
    ]


class CheckBlackboard(Leaf):
    """SUCCESS when the condition on one key holds, FAILURE otherwise (never RUNNING)."""

    type_name = "check_blackboard"
    Params = CheckParams
    inputs = {"value": Port("any", "the key the condition reads", required=False)}
    params: CheckParams

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.condition: Condition = parse_condition(self.params.condition)
        self._key = self._input_keys["value"]

    @classmethod
    def implied_inputs(cls, params: Any) -> dict[str, str]:
        return {"value": parse_condition(getattr(params, "condition", "")).key}

    def update(self) -> Status:
        value = self.blackboard.get(self._key, self.path, MISSING)
        if self.condition.evaluate(value):
            self.feedback_message = ""
            return Status.SUCCESS
        self.feedback_message = f"not {self.condition.describe(value)}"
        return Status.FAILURE


class AddParams(Params):
    amount: Annotated[float, Meta(description="added when the `amount` input is not mapped")] = 0.0
    minimum: Annotated[float | None, Meta(description="clamp the result from below")] = None
    maximum: Annotated[float | None, Meta(description="clamp the result from above")] = None


class Add(Leaf):
    """Writes `value + amount` (clamped) to `result`: counters, budgets, simulated batteries."""

    type_name = "add"
    Params = AddParams
    inputs = {
        "value": Port("float", "the number to add to"),
        "amount": Port("float", "overrides params.amount when mapped", required=False),
    }
    outputs = {"result": Port("float", "the sum")}
    params: AddParams

    def update(self) -> Status:
        amount = self.read("amount") if self.is_bound("amount") else self.params.amount
        result = float(self.read("value")) + float(amount)
        if self.params.minimum is not None:
            result = max(self.params.minimum, result)
        if self.params.maximum is not None:
            result = min(self.params.maximum, result)
        self.write("result", result)
        self.feedback_message = f"{result:g}"
        return Status.SUCCESS


class Increment(Leaf):
    """Adds one to an integer counter (an unset counter counts as 0): attempts, rounds, laps."""

    type_name = "increment"
    inputs = {"value": Port("int", "the counter", default=0)}
    outputs = {"result": Port("int", "the counter plus one")}

    def update(self) -> Status:
        result = int(self.read("value")) + 1
        self.write("result", result)
        self.feedback_message = str(result)
        return Status.SUCCESS


class Clear(Leaf):
    """Removes the values of every key mapped to its outputs (any names): no stale data from a previous run."""

    type_name = "clear"
    variadic_outputs = True

    def update(self) -> Status:
        for key in self._output_keys.values():
            self.blackboard.unset(key, self.path)
        return Status.SUCCESS


class LogParams(Params):
    message: Annotated[str, Meta(description="text with {port} fields filled from the mapped inputs")]
    level: Literal["debug", "info", "warning", "error"] = "info"


class Log(Leaf):
    """Logs a message built from its inputs (any input port name may be mapped), then SUCCESS."""

    type_name = "log"
    Params = LogParams
    variadic_inputs = True
    params: LogParams

    @classmethod
    def check(cls, params: Any, env: CheckEnv) -> list[str]:
        fields = {name for _, name, _, _ in string.Formatter().parse(getattr(params, "message", "")) if name}
        missing = sorted(fields - set(env.key_types))
        return [f"message uses {{{name}}} but no input '{name}' is mapped" for name in missing]

    def update(self) -> Status:
        values = {
            port: self.blackboard.get(key, self.path, "<no value>") for port, key in self._input_keys.items()
        }
        text = self.params.message.format(**values)
        _LOG.log(logging.getLevelNamesMapping()[self.params.level.upper()], "%s: %s", self.path, text)
        self.feedback_message = text
        return Status.SUCCESS


_GOAL_NUMBERS = itertools.count(1)
"""Goal ids are unique in the process, so an answer to an earlier goal is never taken for this one."""
ACTION_FAILED = ("rejected", "aborted", "canceled", "unavailable")


class RequestActionParams(Params):
    goal: Annotated[
        dict[str, Any] | None, Meta(description="the goal's fields, when no `goal` input is mapped")
    ] = None
    timeout_s: Annotated[
        float, Meta(gt=0, description="FAILURE (and a cancel) when the action has not finished by then")
    ] = math.inf


class RequestAction(AsyncAction):
    """Sends a goal to an action server through two keys and follows it to its end.

    It writes ``{id, goal}`` to its `request` output and reads ``{id, status, feedback, result}``
    from its `state` input, which an action client answers (the ROS bridge's, from the robot file's
    ``ros: actions:``). Halted while the goal runs, it writes ``{id, cancel: true}``, so the server
    cancels the goal: a preempted branch never leaves the robot doing its work.
    """

    type_name = "request_action"
    Params = RequestActionParams
    params: RequestActionParams
    inputs = {
        "goal": Port("optional[dict]", "the goal's fields (else params.goal)", required=False),
        "state": Port(
            "optional[dict]", "the action client's answer: id, status, feedback, result", required=False
        ),
    }
    outputs = {
        "request": Port("dict", "where the goal (and a cancel) is sent to the action client"),
        "result": Port("any", "the action's result, on SUCCESS"),
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._id = ""
        self._deadline = math.inf

    @classmethod
    def check(cls, params: Any, env: CheckEnv) -> list[str]:
        problems = []
        if "request" not in env.key_types or "state" not in env.key_types:
            problems.append("output 'request' and input 'state' must be mapped to the action client's keys")
        if getattr(params, "goal", None) is None and "goal" not in env.key_types:
            problems.append("give params.goal or map the 'goal' input")
        return problems

    def start(self) -> Status:
        self._id = f"{self.path}#{next(_GOAL_NUMBERS)}"
        goal = self.read("goal")
        self.write("request", {"id": self._id, "goal": self.params.goal if goal is None else goal})
        self._deadline = self.clock.now() + self.params.timeout_s
        self.feedback_message = "goal sent"
        return Status.RUNNING

    def poll(self) -> Status:
        state = self.read("state")
        status = state.get("status") if isinstance(state, dict) and state.get("id") == self._id else "pending"
        if status == "succeeded":
            self.write("result", state.get("result"))
            self.feedback_message = "succeeded"
            return Status.SUCCESS
        if status in ACTION_FAILED:
            self.feedback_message = f"{status}: {state.get('reason', '')}".rstrip(": ")
            return Status.FAILURE
        if self.clock.now() >= self._deadline:
            self.cancel()
            self.feedback_message = f"no result within {self.params.timeout_s:g} s: cancelled"
            return Status.FAILURE
        feedback = state.get("feedback") if status != "pending" else None
        self.feedback_message = f"{status}: {feedback}" if feedback else str(status)
        return Status.RUNNING

    def cancel(self) -> None:
        self.write("request", {"id": self._id, "cancel": True})


BUILTIN_BEHAVIOURS: tuple[type[Leaf], ...] = (
    Succeed,
    Fail,
    Running,
    StatusScript,
    Wait,
    SetBlackboard,
    CheckBlackboard,
    Add,
    Increment,
    Clear,
    Log,
    RequestAction,
)
