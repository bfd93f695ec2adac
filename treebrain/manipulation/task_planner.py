"""Solving a :class:`~treebrain.manipulation.strips.PlanningProblem` with the Unified Planning
framework (``unified-planning``, Apache-2.0) and one of its engines, and the plan as skill steps.

Engines (the ``plan`` extra installs pyperplan; Fast Downward is ``pip install up-fast-downward``;
both engines are GPL-3.0, only called, never linked into treebrain's code):

- ``pyperplan``: pyperplan's greedy best-first search with the h_add heuristic, in this process
  (a median of about 45 ms a LIBERO task here, building the problem included). The default.
- ``pyperplan-opt``: pyperplan's optimal A* (shortest plans; slower).
- ``fast-downward``, ``fast-downward-opt``: Fast Downward in a subprocess (lama-first, or an optimal
  configuration; a median of about 0.8 s a task here, mostly starting it).

Importing Unified Planning takes seconds (it imports SciPy), so this module runs in the planner's
worker process (:mod:`treebrain.manipulation.planner_process`), never on a tree's tick.
"""

from __future__ import annotations

import logging
import re
import time
import warnings
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from treebrain.extras import needs_extra
from treebrain.manipulation.strips import TYPES, PlanningProblem

Engine = Literal["pyperplan", "pyperplan-opt", "fast-downward", "fast-downward-opt"]
ENGINES: dict[str, tuple[str, dict[str, str]]] = {
    "pyperplan": ("pyperplan", {"search": "gbf", "heuristic": "hadd"}),
    "pyperplan-opt": ("pyperplan-opt", {}),
    "fast-downward": ("fast-downward", {}),
    "fast-downward-opt": ("fast-downward-opt", {}),
}
"""Engine choice → Unified Planning's engine name and its parameters."""
SearchStatus = Literal["solved", "unsolvable", "timeout", "cancelled", "error"]
_EXPANDED = re.compile(r"(\d+) Nodes expanded|Expanded (\d+) state")


class SearchResult(BaseModel):
    """What the planner answered: a plan of skill steps, or why there is none."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    status: SearchStatus
    steps: list[dict[str, Any]] = []
    engine: str = ""
    seconds: float = 0.0
    """The planner's own time: building the problem for the engine and solving it."""
    expansions: int | None = None
    """Search nodes the engine expanded (from its log), when it says."""
    message: str = ""


class _Expansions(logging.Handler):
    """Reads pyperplan's "N Nodes expanded" from its log."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.count: int | None = None

    def emit(self, record: logging.LogRecord) -> None:
        found = _EXPANDED.search(record.getMessage())
        if found:
            self.count = int(found.group(1) or found.group(2))


def import_planner() -> None:
    """Import the planning framework and start the default engine once (seconds, and a quarter of
    one for the engine's first use: a worker does both before its first search)."""
    with needs_extra("plan", "the symbolic planner"):
        import unified_planning.shortcuts as up
    up.get_environment().credits_stream = None
    _planner("pyperplan")


_PLANNERS: dict[str, Any] = {}


def _planner(engine: Engine) -> Any:
    """The engine's Unified Planning planner, made once per process: making one walks the call
    stack for its credits (a tenth of a second), longer than most searches here."""
    import unified_planning.shortcuts as up

    if engine not in _PLANNERS:
        name, params = ENGINES[engine]
        _PLANNERS[engine] = up.OneshotPlanner(name=name, params=params)
    return _PLANNERS[engine]


def solve(problem: PlanningProblem, engine: Engine, timeout_s: float) -> SearchResult:
    """Plan `problem` with `engine` (Fast Downward stops itself after `timeout_s`; pyperplan has no
    timeout: the worker process running it is ended instead)."""
    with needs_extra("plan", "the symbolic planner"):
        import unified_planning.shortcuts as up
        from unified_planning.engines import PlanGenerationResultStatus as Status

    started = time.perf_counter()
    env = up.get_environment()
    env.credits_stream = None
    types: dict[str, Any] = {}
    for type_name, parent in TYPES.items():
        types[type_name] = env.type_manager.UserType(type_name, types.get(parent))
    objects = {name: up.Object(name, types[kind], env) for name, kind in problem.objects.items()}
    fluents = {
        relation: up.Fluent(
            relation,
            env.type_manager.BoolType(),
            None,
            env,
            **{f"a{i}": types[t] for i, t in enumerate(signature)},
        )
        for relation, signature in problem.relations.items()
    }
    planning = up.Problem("manipulation", env)
    for fluent in fluents.values():
        planning.add_fluent(fluent, default_initial_value=False)
    planning.add_objects(objects.values())
    specs = {}
    for spec in problem.operators:
        action = up.InstantaneousAction(spec.name, {param: types[kind] for param, kind in spec.params}, env)
        bound = {f"?{param}": action.parameter(param) for param, _ in spec.params}

        def term(value: str, bound: dict[str, Any] = bound) -> Any:
            return bound[value] if value.startswith("?") else objects[value]

        for atom in spec.requires:
            action.add_precondition(fluents[atom[0]](*map(term, atom[1:])))
        for atom in spec.deletes:
            action.add_effect(fluents[atom[0]](*map(term, atom[1:])), False)
        for atom in spec.adds:
            action.add_effect(fluents[atom[0]](*map(term, atom[1:])), True)
        planning.add_action(action)
        specs[spec.name] = spec
    for atom in problem.init:
        planning.set_initial_value(fluents[atom[0]](*(objects[arg] for arg in atom[1:])), True)
    for atom in problem.goal:
        planning.add_goal(fluents[atom[0]](*(objects[arg] for arg in atom[1:])))
    counter = _Expansions()
    root = logging.getLogger()
    level = root.level
    root.addHandler(counter)
    root.setLevel(logging.INFO)  # pyperplan says how many nodes it expanded at INFO
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pyperplan's "does not support timeout"
            result = _planner(engine).solve(
                planning, timeout=timeout_s if engine.startswith("fast") else None
            )
    finally:
        root.removeHandler(counter)
        root.setLevel(level)
    seconds = time.perf_counter() - started
    for message in result.log_messages or []:
        counter.emit(logging.makeLogRecord({"msg": message.message}))
    if result.status in (Status.SOLVED_SATISFICING, Status.SOLVED_OPTIMALLY) and result.plan is not None:
        steps = []
        for instance in result.plan.actions:
            spec = specs[instance.action.name]
            values = {
                param: str(value)
                for (param, _), value in zip(spec.params, instance.actual_parameters, strict=True)
            }
            steps.append({"skill": spec.skill, "args": {arg: values[arg] for arg in spec.args}})
        return SearchResult(
            status="solved", steps=steps, engine=engine, seconds=seconds, expansions=counter.count
        )
    status: SearchStatus = "timeout" if result.status == Status.TIMEOUT else "unsolvable"
    if result.status not in (Status.TIMEOUT, Status.UNSOLVABLE_PROVEN, Status.UNSOLVABLE_INCOMPLETELY):
        status = "error"
    return SearchResult(
        status=status,
        engine=engine,
        seconds=seconds,
        expansions=counter.count,
        message=result.status.name.lower(),
    )
