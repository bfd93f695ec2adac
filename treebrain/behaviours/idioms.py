"""Glue leaves the idioms are made of: rule validation, merging issues, the three-pass report,
copying a value, time stamps, the LLM watchdog, and user notifications.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from msgspec import Meta
from py_trees.common import Status

from treebrain.behaviours.base import CheckEnv, Leaf, NodeSetup, Params
from treebrain.behaviours.ports import Port
from treebrain.idioms.logic import (
    NOTIFICATIONS,
    Tier,
    WatchdogThresholds,
    merge_issues,
    speed_scale,
    three_pass_report,
    watchdog_tier,
)
from treebrain.validators import get_validator, run_validators, unknown_validator_message


class RuleParams(Params):
    validators: Annotated[
        list[str], Meta(min_length=1, description="registered rule validators, run in order")
    ]
    fail_on_issues: Annotated[
        bool, Meta(description="FAILURE when any issue is found (else SUCCESS with issues)")
    ] = False


class RuleValidate(Leaf):
    """Runs registered pure-Python validators on `candidate`; writes `issues` and `valid`."""

    type_name = "rule.validate"
    Params = RuleParams
    params: RuleParams
    variadic_inputs = True
    inputs = {
        "candidate": Port("any", "what to check"),
        "context": Port("dict[str, any]", "extra values the validators may use", required=False),
    }
    outputs = {
        "issues": Port("list[str]", "problems found; empty when valid"),
        "valid": Port("bool", required=False),
    }

    @classmethod
    def check(cls, params: Any, env: CheckEnv) -> list[str]:
        return [unknown_validator_message(name) for name in params.validators if get_validator(name) is None]

    def update(self) -> Status:
        context: dict[str, Any] = dict(self.read("context") or {}) if self.is_bound("context") else {}
        for port in self.input_ports():
            if port not in self.inputs:
                context[port] = self.read(port)
        issues = run_validators(self.params.validators, self.read("candidate"), context)
        self.write("issues", issues)
        self.write("valid", not issues)
        self.feedback_message = f"{len(issues)} issue(s)" if issues else "valid"
        return Status.FAILURE if issues and self.params.fail_on_issues else Status.SUCCESS


class MergeIssues(Leaf):
    """Concatenates issue lists or single issues (any input names) without repeats; unset = none."""

    type_name = "issues.merge"
    variadic_inputs = True
    outputs = {"issues": Port("list[str]", "all issues, each once")}

    def update(self) -> Status:
        values = [self.blackboard.get(key, self.path, None) for key in self._input_keys.values()]
        merged = merge_issues(*([value] if isinstance(value, str) else value for value in values))
        self.write("issues", merged)
        self.feedback_message = f"{len(merged)} issue(s)"
        return Status.SUCCESS


class ThreePassReport(Leaf):
    """Chooses pass 1 or pass 3 and writes the report of generate -> validate -> regenerate."""

    type_name = "gvr.report"
    inputs = {
        "pass1": Port("any", "the first answer"),
        "issues": Port("list[str]", "what validation found in pass 1", default=[]),
        "pass3": Port("any", "the regenerated answer, if any", required=False),
        "pass3_issues": Port("list[str]", "what validation found in pass 3", required=False),
    }
    outputs = {
        "output": Port("any", "the answer to use"),
        "report": Port(
            "dict[str, any]", "pass1, issues (fixed ones tagged [P3 fixed]), fixed, remaining, used_pass"
        ),
    }

    def update(self) -> Status:
        pass3 = (
            self.blackboard.get(self._input_keys["pass3"], self.path, None)
            if self.is_bound("pass3")
            else None
        )
        pass3_issues = (
            self.read("pass3_issues") if self.is_bound("pass3_issues") and pass3 is not None else None
        )
        output, report = three_pass_report(self.read("pass1"), self.read("issues"), pass3, pass3_issues)
        self.write("output", output)
        self.write("report", report)
        self.feedback_message = f"pass {report['used_pass']}, {len(report['fixed'])} fixed"
        return Status.SUCCESS


class Copy(Leaf):
    """Copies one key's value to another (e.g. a validated candidate to the final output)."""

    type_name = "copy"
    inputs = {"value": Port("any")}
    outputs = {"value": Port("any")}

    def update(self) -> Status:
        self.write("value", self.read("value"))
        return Status.SUCCESS


class Timestamp(Leaf):
    """Writes the tree clock's time: marks when something fresh happened (e.g. an LLM decision)."""

    type_name = "timestamp"
    outputs = {"time": Port("float", "seconds on the tree's clock")}

    def update(self) -> Status:
        self.write("time", self.clock.now())
        return Status.SUCCESS


class NotifyParams(Params):
    message: Annotated[
        str, Meta(description="text for the user; {port} fields are filled from mapped inputs")
    ]
    level: Literal["info", "warning", "error"] = "info"


class Notify(Leaf):
    """Sends a notification to the user (recordings, viewer, CLI) and writes it to `message`."""

    type_name = "notify"
    Params = NotifyParams
    params: NotifyParams
    variadic_inputs = True
    outputs = {"message": Port("str", required=False)}

    def update(self) -> Status:
        values = {port: self.read(port) for port in self.input_ports()}
        text = self.params.message.format(**values)
        self.context.emit("notification", self.path, {"message": text, "level": self.params.level})
        self.write("message", text)
        self.feedback_message = text
        return Status.SUCCESS


class WatchdogParams(Params):
    stop_wait_s: Annotated[float, Meta(gt=0, description="CONTINUE until this age, then STOP_WAIT")] = 3.0
    local_s: Annotated[float, Meta(gt=0, description="age at which the LOCAL fallback takes over")] = 10.0
    return_home_s: Annotated[float, Meta(gt=0, description="age at which the robot returns home")] = 30.0
    hold_s: Annotated[float, Meta(gt=0, description="age at which the robot holds still for an operator")] = (
        120.0
    )
    tau_s: Annotated[float, Meta(gt=0, description="time constant of the speed decay while continuing")] = 2.0


class Watchdog(Leaf):
    """Tiers of graceful degradation by the age of the last fresh LLM decision; notifies on change."""

    type_name = "llm.watchdog"
    Params = WatchdogParams
    params: WatchdogParams
    inputs = {"decided_at": Port("float", "clock time of the last fresh decision", required=False)}
    outputs = {
        "tier": Port("str", "CONTINUE, STOP_WAIT, LOCAL, RETURN_HOME or HOLD"),
        "speed_scale": Port(
            "float", "factor for the last command's speed (decays while continuing)", required=False
        ),
        "age_s": Port("float", "age of the last decision", required=False),
        "notification": Port("str", "what the user was last told", required=False),
    }

    def __init__(self, setup: NodeSetup) -> None:
        super().__init__(setup)
        p = self.params
        self.thresholds = WatchdogThresholds(p.stop_wait_s, p.local_s, p.return_home_s, p.hold_s, p.tau_s)
        self.started_at: float | None = None
        self.tier: Tier | None = None

    @classmethod
    def check(cls, params: Any, env: CheckEnv) -> list[str]:
        try:
            WatchdogThresholds(
                params.stop_wait_s, params.local_s, params.return_home_s, params.hold_s, params.tau_s
            )
        except ValueError as error:
            return [str(error)]
        return []

    def update(self) -> Status:
        now = self.clock.now()
        if self.started_at is None:
            self.started_at = now
        decided = self.read("decided_at") if self.is_bound("decided_at") else None
        age = now - (decided if decided is not None else self.started_at)
        tier = watchdog_tier(age, self.thresholds)
        self.write("tier", tier.value)
        self.write("speed_scale", speed_scale(age, tier, self.thresholds.tau_s))
        self.write("age_s", age)
        if tier != self.tier:
            message = NOTIFICATIONS[tier]
            self.context.emit(
                "notification", self.path, {"message": message, "tier": tier.value, "age_s": age}
            )
            self.write("notification", message)
            self.tier = tier
        self.feedback_message = f"{tier.value} ({age:.1f} s)"
        return Status.SUCCESS


BEHAVIOURS = (RuleValidate, MergeIssues, ThreePassReport, Copy, Timestamp, Notify, Watchdog)
