"""Evaluating what a command did against the observation suite, and the report's tables.

:func:`evaluate_case` is pure: one command's result, trace, end and the cell it left, and the case's
expectations in; the list of failed checks out. A case that failed after the arm executed something
is *executed but wrong* -- the one outcome the pipeline must never have; a case where nothing reached
the arm is at worst a refusal. A refusal or a question where the case has a plan to carry out is a
*false refusal*: the price of caution, counted beside executed-but-wrong so a change that trades one for
the other shows both.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, computed_field

from treebrain.robots.arm.workcell import ArmScene
from treebrain.voice.compiler import CompileError, compile_sequence
from treebrain.voice.creative import axis_violations
from treebrain.voice.kit import VoiceKit
from treebrain.voice.outcome import CommandOutcome
from treebrain.voice.result import InterpretResult, needs_approval
from treebrain.voice.suite import CATEGORIES, Expectations, SuiteCase
from treebrain.voice.trace import Trace

REFUSALS = ("clarify", "refused", "llm_unavailable")
"""Ends where nothing reached the arm on purpose."""
PLAN_FIELDS = ("instructions", "starts_with", "ends_with", "contains", "items_in_order", "zones_in_order")
"""Expectations that, non-empty, describe steps the plan must have."""


def expects_execution(expect: Expectations) -> bool:
    """Whether the case has a plan for the arm: its status is done or, with no status, it names steps,
    layers, a cell to leave or primitives to execute."""
    if expect.status is not None:
        return expect.status == "done"
    if expect.result_none:
        return False
    return (
        any(getattr(expect, name) for name in PLAN_FIELDS)
        or any(count > 0 for count in expect.counts.values())
        or any(layers for layers in (expect.zones or {}).values())
        or any(layers for layers in (expect.locations or {}).values())
        or any(expect.dishes or [])
        or (expect.executed or 0) > 0
    )


def is_false_refusal(expect: Expectations, *, passed: bool, status: str) -> bool:
    """Refused or asked where the case has a plan to execute. A case that expects the model to fail
    (llm_failure) is not counted: its llm_unavailable is the right end."""
    return not passed and status in REFUSALS and expect.llm_failure is None and expects_execution(expect)


class CaseOutcome(BaseModel):
    """One case's verdict with what the report shows about it."""

    id: str
    category: str
    command: str
    passed: bool
    failures: list[str]
    route: str
    status: str
    result: dict[str, Any] | None
    validation_issues: list[str]
    pass3_fixed: bool
    primitives: int
    executed: int
    zones: dict[str, list[str]] | None
    input_tokens: int
    output_tokens: int
    cost_usd: float
    seconds: float = 0.0
    """Wall time of the command (its `before` commands not counted)."""
    false_refusal: bool = False
    """Refused or asked although the case has a plan to execute (:func:`is_false_refusal`)."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def executed_but_wrong(self) -> bool:
        """The arm did something, and it was not what the case asks for (in the result file's detail, so
        that ``eval compare`` can count it)."""
        return not self.passed and self.executed > 0


class CategoryStats(BaseModel):
    category: str
    cases: int
    passed: int
    pass_rate: float
    refused: int
    """Cases where nothing reached the arm on purpose (a refusal or a question)."""
    false_refusals: int = 0
    """Refused or asked although a plan was expected (0 in result files written before it was counted)."""
    executed_but_wrong: int


class Timing(BaseModel):
    """Seconds per LLM-routed command: how long a person waits when the model answers."""

    commands: int
    median_s: float
    p90_s: float
    min_s: float
    max_s: float
    seconds: list[float]


def llm_timing(outcomes: list[CaseOutcome]) -> Timing | None:
    """The distribution over the cases the LLM answered (None when it answered none)."""
    seconds = sorted(outcome.seconds for outcome in outcomes if outcome.route == "llm")
    if not seconds:
        return None
    p90 = seconds[min(len(seconds) - 1, round(0.9 * (len(seconds) - 1)))]
    return Timing(
        commands=len(seconds),
        median_s=statistics.median(seconds),
        p90_s=p90,
        min_s=seconds[0],
        max_s=seconds[-1],
        seconds=[round(value, 2) for value in seconds],
    )


class SuiteReport(BaseModel):
    cases: int
    passed: int
    pass_rate: float
    refused: int
    false_refusals: int = 0
    """0 in result files written before it was counted."""
    executed_but_wrong: int
    categories: list[CategoryStats]
    validation_issues: int
    pass3_fixes: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    llm_timing: Timing | None = None
    outcomes: list[CaseOutcome]


def evaluate_case(
    case: SuiteCase,
    result: InterpretResult | None,
    trace: Trace,
    kit: VoiceKit,
    ended: CommandOutcome,
    *,
    strict: bool = True,
    final: ArmScene | None = None,
    memory_saved: bool = False,
    scripted: bool = True,
    seconds: float = 0.0,
) -> CaseOutcome:
    """Check what the command did against the case's expectations; every failed check is listed.

    `final` is the cell after the command ran on the simulated arm, `memory_saved` whether the
    memory writer saved something. Compile checks judge the plan on an ample cell. Without the
    suite's `scripted` answers a case is judged by what it did (:meth:`SuiteCase.expectations`).
    """
    expect = case.expectations(scripted=scripted)
    failures = _check_route_and_none(expect, result, trace)
    primitives = 0
    if result is not None:
        primitives, compile_error = _compiled_count(result, kit, None)
        failures.extend(_check_sequence(expect, result))
        failures.extend(_check_fields(expect, result, trace, kit, case, strict=strict))
        if expect.compiles is not None and (compile_error is None) != expect.compiles:
            failures.append(f"compiles: expected {expect.compiles}, got {compile_error or 'it compiled'}")
        if expect.max_commands is not None and primitives > expect.max_commands:
            failures.append(
                f"max_commands: {primitives} dispatchable primitives, at most {expect.max_commands} allowed"
            )
    failures.extend(_check_end(expect, result, ended, final, memory_saved))
    passed = not failures
    return CaseOutcome(
        id=case.id,
        category=case.category,
        command=case.command,
        passed=passed,
        failures=failures,
        route=trace.route,
        status=ended.status,
        result=None if result is None else result.as_dict(),
        validation_issues=[] if result is None else list(result.validation_issues),
        pass3_fixed=trace.pass3_fixed,
        primitives=primitives,
        executed=ended.executed,
        zones=None if final is None else final.zones,
        input_tokens=trace.input_tokens,
        output_tokens=trace.output_tokens,
        cost_usd=trace.cost_usd,
        seconds=seconds,
        false_refusal=is_false_refusal(expect, passed=passed, status=ended.status),
    )


def _check_end(
    expect: Expectations,
    result: InterpretResult | None,
    ended: CommandOutcome,
    final: ArmScene | None,
    memory_saved: bool,
) -> list[str]:
    """How the command ended, what the arm did, and what the cell holds afterwards."""
    failures: list[str] = []
    if expect.status is not None and ended.status != expect.status:
        failures.append(f"status: expected {expect.status}, got {ended.status} ({ended.message})")
    if expect.reason_contains is not None and expect.reason_contains.lower() not in ended.message.lower():
        failures.append(f"reason_contains: {expect.reason_contains!r} not in {ended.message!r}")
    failure = None if result is None or result.llm_failure is None else result.llm_failure.cause
    if expect.llm_failure is not None and failure != expect.llm_failure:
        failures.append(f"llm_failure: expected {expect.llm_failure}, got {failure}")
    if expect.executed is not None and ended.executed != expect.executed:
        failures.append(f"executed: expected {expect.executed} primitives, got {ended.executed}")
    if expect.memory_saved is not None and memory_saved != expect.memory_saved:
        failures.append(f"memory_saved: expected {expect.memory_saved}, got {memory_saved}")
    failures.extend(_check_cell(expect, final))
    return failures


def _check_cell(expect: Expectations, final: ArmScene | None) -> list[str]:
    """What the zones, the locations and the gripper hold after the command."""
    failures: list[str] = []
    for kind, wanted in (("zones", expect.zones), ("locations", expect.locations)):
        for place, layers in (wanted or {}).items():
            left = None if final is None else (final.zones if kind == "zones" else final.locations).get(place)
            if left != layers:
                failures.append(f"{kind}.{place}: expected {layers}, the arm left {left}")
    if expect.dishes is not None:
        wanted_stacks = sorted(layers for layers in expect.dishes if layers)
        stacks = None if final is None else sorted(layers for layers in final.zones.values() if layers)
        if stacks != wanted_stacks:
            failures.append(f"dishes: expected {wanted_stacks} in any zones, the arm left {stacks}")
    if "held" in expect.model_fields_set and (final is None or final.held != expect.held):
        holds = "no cell was observed" if final is None else f"the arm holds {final.held}"
        failures.append(f"held: expected {expect.held}, {holds}")
    return failures


def _check_route_and_none(expect: Expectations, result: InterpretResult | None, trace: Trace) -> list[str]:
    failures: list[str] = []
    if expect.route is not None and trace.route != expect.route:
        failures.append(f"route: expected {expect.route}, got {trace.route}")
    if expect.result_none is not None and (result is None) != expect.result_none:
        failures.append(f"result_none: expected {expect.result_none}")
    elif result is None and not expect.result_none:
        failures.append("result_none: the result is None")
    return failures


def _check_sequence(expect: Expectations, result: InterpretResult) -> list[str]:
    names = [step.instruction for step in result.sequence]
    layers = [str(step.params.get("item")) for step in result.sequence if step.instruction == "add_layer"]
    items = {str(value) for step in result.sequence for key, value in step.params.items() if key == "item"}
    zones = [
        str(step.params.get("zone")) for step in result.sequence if step.instruction == "set_active_zone"
    ]
    failures: list[str] = []
    checks: list[tuple[str, Any, Any, Callable[[Any, Any], bool]]] = [
        ("instructions", expect.instructions, names, lambda want, got: want == got),
        ("starts_with", expect.starts_with, names, lambda want, got: got[: len(want)] == want),
        ("ends_with", expect.ends_with, names, lambda want, got: bool(want) and got[-len(want) :] == want),
        ("items_in_order", expect.items_in_order, layers, lambda want, got: want == got),
        ("items_subset", expect.items_subset, sorted(items), lambda want, got: set(got) <= set(want)),
        ("zones_in_order", expect.zones_in_order, zones, lambda want, got: want == got),
    ]
    for label, wanted, got, holds in checks:
        if wanted is not None and not holds(wanted, got):
            failures.append(f"{label}: expected {wanted}, got {got}")
    failures.extend(f"contains: {name} is missing" for name in expect.contains if name not in names)
    failures.extend(f"not_contains: {name} is present" for name in expect.not_contains if name in names)
    for name, count in expect.counts.items():
        if names.count(name) != count:
            failures.append(f"counts: expected {count} {name}, got {names.count(name)}")
    return failures


def _check_fields(
    expect: Expectations,
    result: InterpretResult,
    trace: Trace,
    kit: VoiceKit,
    case: SuiteCase,
    *,
    strict: bool,
) -> list[str]:
    failures: list[str] = []
    if expect.min_confidence is not None and result.confidence < expect.min_confidence:
        failures.append(f"min_confidence: {result.confidence} < {expect.min_confidence}")
    if expect.max_confidence is not None and result.confidence > expect.max_confidence:
        failures.append(f"max_confidence: {result.confidence} > {expect.max_confidence}")
    if "composite_name" in expect.model_fields_set and result.composite_name != expect.composite_name:
        failures.append(f"composite_name: expected {expect.composite_name!r}, got {result.composite_name!r}")
    wanted_issue = expect.issues_contain
    if wanted_issue is not None and not any(
        wanted_issue.lower() in i.lower() for i in result.validation_issues
    ):
        failures.append(f"issues_contain: {wanted_issue!r} not in {list(result.validation_issues)}")
    feedback = result.user_feedback or ""
    if expect.feedback_contains is not None and expect.feedback_contains.lower() not in feedback.lower():
        failures.append(f"feedback_contains: {expect.feedback_contains!r} not in {feedback!r}")
    flags: list[tuple[str, bool | None, bool]] = [
        ("is_creative", expect.is_creative, result.is_creative),
        ("validated", expect.validated, result.validated),
        ("pass3_fixed", expect.pass3_fixed, trace.pass3_fixed),
        ("raw_response_kept", expect.raw_response_kept, bool(result.raw_response)),
        (
            "needs_approval",
            expect.needs_approval,
            needs_approval(result, strict=strict, threshold=kit.settings.strict_threshold),
        ),
    ]
    if expect.creative_reasoning_format is not None:
        prefix = trace.creative.reasoning_prefix() if trace.creative else "Axis 1: "
        flags.append(
            (
                "creative_reasoning_format",
                expect.creative_reasoning_format,
                (result.creative_reasoning or "").startswith(prefix),
            )
        )
    failures.extend(
        f"{label}: expected {wanted}, got {got}"
        for label, wanted, got in flags
        if wanted is not None and wanted != got
    )
    if expect.follows_axes is not None:
        departures = (
            axis_violations(trace.creative, result.sequence, kit.iset.valid_items())
            if trace.creative
            else ["no axes were assigned"]
        )
        if expect.follows_axes and departures:
            failures.append(f"follows_axes: {'; '.join(departures)}")
        elif not expect.follows_axes and not departures:
            failures.append("follows_axes: expected a departure from the axes")
    return failures


def _compiled_count(result: InterpretResult, kit: VoiceKit, scene: ArmScene | None) -> tuple[int, str | None]:
    """How many primitives would be dispatched (0 when the sequence does not compile)."""
    try:
        program = compile_sequence(result.sequence, kit.iset, scene=scene)
    except CompileError as error:
        return 0, str(error)
    return len(program.commands), None


def crashed_outcome(case: SuiteCase, reason: str) -> CaseOutcome:
    """A case the pipeline could not finish (a provider bug, a missing script): failed, with why."""
    return CaseOutcome(
        id=case.id,
        category=case.category,
        command=case.command,
        passed=False,
        failures=[reason],
        route="error",
        status="failed",
        result=None,
        validation_issues=[],
        pass3_fixed=False,
        primitives=0,
        executed=0,
        zones=None,
        input_tokens=0,
        output_tokens=0,
        cost_usd=0.0,
    )


def build_report(outcomes: list[CaseOutcome]) -> SuiteReport:
    categories = []
    for category in CATEGORIES:
        members = [outcome for outcome in outcomes if outcome.category == category]
        if members:
            passed = sum(outcome.passed for outcome in members)
            categories.append(
                CategoryStats(
                    category=category,
                    cases=len(members),
                    passed=passed,
                    pass_rate=passed / len(members),
                    refused=sum(outcome.status in REFUSALS for outcome in members),
                    false_refusals=sum(outcome.false_refusal for outcome in members),
                    executed_but_wrong=sum(outcome.executed_but_wrong for outcome in members),
                )
            )
    passed = sum(outcome.passed for outcome in outcomes)
    return SuiteReport(
        cases=len(outcomes),
        passed=passed,
        pass_rate=passed / len(outcomes) if outcomes else 0.0,
        refused=sum(category.refused for category in categories),
        false_refusals=sum(category.false_refusals for category in categories),
        executed_but_wrong=sum(category.executed_but_wrong for category in categories),
        categories=categories,
        validation_issues=sum(len(outcome.validation_issues) for outcome in outcomes),
        pass3_fixes=sum(outcome.pass3_fixed for outcome in outcomes),
        input_tokens=sum(outcome.input_tokens for outcome in outcomes),
        output_tokens=sum(outcome.output_tokens for outcome in outcomes),
        cost_usd=sum(outcome.cost_usd for outcome in outcomes),
        llm_timing=llm_timing(outcomes),
        outcomes=outcomes,
    )


def summary_markdown(report: SuiteReport) -> str:
    """The totals, the per-category table and how long the LLM-routed commands took."""
    lines = [
        f"**{report.passed}/{report.cases} passed ({report.pass_rate:.0%})** · refused {report.refused} · "
        f"false refusals {report.false_refusals} · executed but wrong {report.executed_but_wrong} · "
        "validation issues: "
        f"{report.validation_issues} · pass-3 fixes: {report.pass3_fixes} · tokens: {report.input_tokens} in / "
        f"{report.output_tokens} out · cost: ${report.cost_usd:.4f} "
        f"(${report.cost_usd / max(1, report.cases):.5f} per command)",
        "",
        "| category | cases | passed | pass rate | refused | false refusals | executed but wrong |",
        "|---|---:|---:|---:|---:|---:|---:|",
        *(
            f"| {c.category} | {c.cases} | {c.passed} | {c.pass_rate:.0%} | {c.refused} | {c.false_refusals} "
            f"| {c.executed_but_wrong} |"
            for c in report.categories
        ),
    ]
    timing = report.llm_timing
    if timing is not None:
        lines += [
            "",
            f"LLM-routed commands: {timing.commands} · seconds each: median {timing.median_s:.1f} · "
            f"p90 {timing.p90_s:.1f} · min {timing.min_s:.1f} · max {timing.max_s:.1f}",
        ]
    return "\n".join(lines) + "\n"
