"""Scoring plans on LIBERO's task files: a plan succeeds symbolically when its skills' effects,
applied to the task's initial predicates, make every goal predicate hold; its roles (which object goes
where, what is opened or switched) are compared with the goal's.

:func:`reference_plan` writes the plan a goal implies (the recorded answers ``treebrain eval
planning`` plays by default, so the pipeline is measured offline; a model is measured with
``--provider``).
"""

from __future__ import annotations

import json
import re
import statistics
from collections import Counter
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict

from treebrain.manipulation.bddl import BddlTask, Predicate, goal_holds
from treebrain.manipulation.goal_answer import GoalParse
from treebrain.manipulation.goal_planning import GoalError, parse_goal
from treebrain.manipulation.grounding import Grounding, grounded_answer
from treebrain.manipulation.plan_prompt import state_block
from treebrain.manipulation.plan_record import PlanningRecord
from treebrain.manipulation.planning import pick_and_place
from treebrain.manipulation.symbolic import SymbolicState, simulate

PLACING = ("On", "In")
ARTICULATION = {"Open": "open", "Close": "close", "TurnOn": "turn_on", "TurnOff": "turn_off"}


def reference_plan(task: BddlTask) -> list[dict[str, Any]]:
    """The plan the goal implies: opening first, then every placing (opening a closed container on
    the way), then closing and switching."""
    closed = {p.args[0] for p in task.init if p.relation == "Close"}
    steps: list[dict[str, Any]] = []

    def articulate(goal: Predicate) -> None:
        steps.append({"skill": ARTICULATION[goal.relation], "args": {"target": goal.args[0]}})
        if goal.relation == "Open":
            closed.discard(goal.args[0])

    for goal in (g for g in task.goal if g.relation == "Open"):
        articulate(goal)
    for goal in (g for g in task.goal if g.relation in PLACING):
        container = next((name for name in closed if goal.args[1].startswith(name)), None)
        if container is not None:
            articulate(Predicate("Open", (container,)))
        steps += pick_and_place(*goal.args)
    for goal in (g for g in task.goal if g.relation not in (*PLACING, "Open")):
        articulate(goal)
    return steps


def _task_and_objects(task: BddlTask) -> str:
    """The start of a task's prompt block up to its objects: what tells two tasks apart."""
    block = state_block(task.language, task.scene())
    return block[: block.index('"regions"')]


def reference_script(tasks: Iterable[BddlTask]) -> list[dict[str, Any]]:
    """Scripted-provider entries answering each task's planner prompt with its reference plan."""
    return [
        {
            "match": re.escape(_task_and_objects(task)),
            "times": 3,
            "text": json.dumps({"steps": reference_plan(task), "refusal": ""}),
        }
        for task in tasks
    ]


def placings(task: BddlTask) -> list[tuple[str, ...]]:
    """The goal's (object, target) pairs: what grounding is scored against."""
    return [goal.args for goal in task.goal if goal.relation in PLACING]


def reference_grounding_script(tasks: Iterable[BddlTask]) -> list[dict[str, Any]]:
    """Scripted-provider entries answering each placing task's grounding prompt with its first
    goal placing (tasks without one are not grounded)."""
    entries = []
    for task in tasks:
        found = placings(task)
        if not found:
            continue
        # exactly the task's objects, in order: no other "id" in the objects array
        between = r'(?:(?!"id")[^\]])*?'
        objects = "".join(f'{between}"id": "{re.escape(name)}"' for name in task.objects)
        source, target = found[0]
        entries.append(
            {
                "match": re.escape(f"Task: {task.language}\n")
                + r'[\s\S]*?"objects": \['
                + objects
                + between
                + r"\]",
                "times": 2,
                "text": json.dumps(grounded_answer(source, target)),
            }
        )
    return entries


class GroundingOutcomeScore(BaseModel):
    """One task's grounding, scored against the goal's placings."""

    model_config = ConfigDict(frozen=True)

    task: str
    language: str
    source: str
    target: str
    goal: list[str] = []
    """The goal predicates answered (goal grounding; `source` and `target` are then empty)."""
    correct: bool
    question: str
    refusal: str
    categories: list[str] = []
    """Why the last answer could not be used (``Grounding.categories``)."""
    tokens: int
    cost_usd: float


def score_grounding(
    task: BddlTask, grounding: Grounding, tokens: int, cost_usd: float
) -> GroundingOutcomeScore:
    return GroundingOutcomeScore(
        task=task.name,
        language=task.language,
        source=grounding.source,
        target=grounding.target,
        correct=grounding.usable and (grounding.source, grounding.target) in placings(task),
        question=grounding.question,
        refusal=grounding.refusal or "; ".join(grounding.issues),
        categories=grounding.categories,
        tokens=tokens,
        cost_usd=cost_usd,
    )


def goal_changes(goal: Iterable[Predicate], task: BddlTask) -> set[str]:
    """What a goal asks to change in the task's scene: its predicates that do not hold at the start,
    ``On`` and ``In`` alike (the skills put an object at a place either way)."""
    start = SymbolicState.of(task.scene())
    return {
        str(Predicate("On" if p.relation == "In" else p.relation, p.args))
        for p in goal
        if not goal_holds(p, start)
    }


def score_goal_grounding(
    task: BddlTask, parse: GoalParse, tokens: int = 0, cost_usd: float = 0.0
) -> GroundingOutcomeScore:
    """A goal parse is right when it asks for the same changes as the task file's goal."""
    try:
        answered = parse_goal(parse.goal)
    except GoalError as error:
        answered, refusal = [], str(error)
    else:
        refusal = parse.refusal
    return GroundingOutcomeScore(
        task=task.name,
        language=task.language,
        source="",
        target="",
        goal=parse.goal,
        correct=parse.usable
        and bool(answered)
        and goal_changes(answered, task) == goal_changes(task.goal, task),
        question=parse.question,
        refusal=refusal,
        tokens=tokens,
        cost_usd=cost_usd,
    )


def grounding_report(outcomes: list[GroundingOutcomeScore]) -> dict[str, Any]:
    """A suite's task count, grounding accuracy, questions, refusals (the model's own, in words),
    unusable answers by failure category, tokens and cost."""
    count = max(len(outcomes), 1)
    categories = Counter(category for outcome in outcomes for category in outcome.categories)
    return {
        "tasks": len(outcomes),
        "grounding_accuracy": round(sum(o.correct for o in outcomes) / count, 4),
        "questions": sum(bool(o.question) for o in outcomes),
        "refusals": sum(bool(o.refusal and not o.categories) for o in outcomes),
        "failure_categories": dict(sorted(categories.items())),
        "tokens": sum(o.tokens for o in outcomes),
        "cost_usd": round(sum(o.cost_usd for o in outcomes), 6),
    }


def plan_roles(steps: list[dict[str, Any]]) -> set[tuple[str, ...]]:
    """What a plan does, as goal-shaped roles: (object, target) placings and (skill, target) actions."""
    roles: set[tuple[str, ...]] = set()
    held: str | None = None
    for step in steps:
        args = step.get("args", {})
        if step["skill"] == "grasp":
            held = args["object"]
        elif step["skill"] == "place" and held is not None:
            roles.add((held, args["region"]))
        elif "target" in args:
            roles.add((step["skill"], args["target"]))
    return roles


def goal_roles(task: BddlTask, kept: Iterable[Predicate] = ()) -> set[tuple[str, ...]]:
    """What a plan must do for the goal: every goal predicate but those `kept` (true from the start
    to the end of the plan: a stove already on needs no ``turn_on``)."""
    return {
        goal.args if goal.relation in PLACING else (ARTICULATION[goal.relation], goal.args[0])
        for goal in task.goal
        if goal not in set(kept)
    }


class TaskOutcome(BaseModel):
    """One task's planning, scored."""

    model_config = ConfigDict(frozen=True)

    task: str
    language: str
    first_try_valid: bool
    valid: bool
    symbolic_success: bool
    roles_correct: bool
    attempts: int
    failure_categories: dict[str, int]
    refusal: str
    unmet_goals: list[str]
    plan: list[dict[str, Any]]
    reference_steps: int = 0
    """The length of the plan the goal implies (:func:`reference_plan`)."""
    planner_ms: float | None = None
    """The classical planner's own time (``manipulation.plan_goal``), None for a model's plan."""
    expansions: int | None = None
    tokens: int
    cost_usd: float


def score_task(task: BddlTask, record: PlanningRecord, tokens: int, cost_usd: float) -> TaskOutcome:
    steps = record.plan if not record.refusal else []
    state, failure = simulate(steps, task.scene())
    unmet = [str(goal) for goal in task.goal if failure is not None or not goal_holds(goal, state)]
    start = SymbolicState.of(task.scene())
    kept = [goal for goal in task.goal if goal_holds(goal, start) and str(goal) not in unmet]
    return TaskOutcome(
        task=task.name,
        language=task.language,
        first_try_valid=record.first_try_valid,
        valid=bool(steps),
        symbolic_success=bool(steps) and not unmet,
        roles_correct=bool(steps) and goal_roles(task, kept) <= plan_roles(steps),
        attempts=len(record.attempts),
        failure_categories=dict(record.failure_categories()),
        refusal=record.refusal,
        unmet_goals=unmet,
        plan=steps,
        reference_steps=len(reference_plan(task)),
        planner_ms=None if record.search is None else round(record.search.seconds * 1000, 2),
        expansions=None if record.search is None else record.search.expansions,
        tokens=tokens,
        cost_usd=cost_usd,
    )


def suite_report(outcomes: list[TaskOutcome]) -> dict[str, Any]:
    """A suite's task count, rates, failure categories, tokens and cost."""
    count = max(len(outcomes), 1)
    categories: Counter[str] = Counter()
    for outcome in outcomes:
        categories.update(outcome.failure_categories)
    timed = [o.planner_ms for o in outcomes if o.planner_ms is not None]
    return {
        "tasks": len(outcomes),
        "grounding_accuracy": round(sum(o.roles_correct for o in outcomes) / count, 4),
        "first_try_valid": round(sum(o.first_try_valid for o in outcomes) / count, 4),
        "symbolic_success": round(sum(o.symbolic_success for o in outcomes) / count, 4),
        "longer_than_reference": sum(len(o.plan) > o.reference_steps for o in outcomes if o.valid),
        "planner_ms_median": round(statistics.median(timed), 2) if timed else None,
        "planner_ms_max": round(max(timed), 2) if timed else None,
        "failure_categories": dict(sorted(categories.items())),
        "tokens": sum(o.tokens for o in outcomes),
        "cost_usd": round(sum(o.cost_usd for o in outcomes), 6),
    }


PLANNING_RATES = ("grounding_accuracy", "first_try_valid", "symbolic_success")
GROUNDING_RATES = ("grounding_accuracy",)


def reports_table(reports: dict[str, dict[str, Any]], rates: tuple[str, ...]) -> str:
    """A markdown row per LIBERO suite: its task count, `rates`, tokens and cost."""
    timed = any(found.get("planner_ms_median") is not None for found in reports.values())
    extra = " longer than reference | planner ms median | planner ms max |" if timed else ""
    lines = [
        f"| suite | tasks | {' | '.join(rate.replace('_', ' ') for rate in rates)} |{extra} tokens | cost USD |",
        f"|---|---:|{'---:|' * len(rates)}{'---:|' * 3 if timed else ''}---:|---:|",
    ]
    for suite, found in reports.items():
        cells = " | ".join(f"{found[rate]:.0%}" for rate in rates)
        if timed:
            cells += (
                f" | {found['longer_than_reference']} | {found['planner_ms_median']}"
                f" | {found['planner_ms_max']}"
            )
        lines.append(
            f"| libero_{suite} | {found['tasks']} | {cells} | {found['tokens']} | {found['cost_usd']:.4f} |"
        )
    return "\n".join(lines)
