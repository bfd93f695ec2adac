"""Goals as predicates over a scene (``On(akita_black_bowl_1, plate_1)``, ``Open(top_drawer)``) and
what is checked before a classical planner is asked to reach one: the names exist, the goal does not
contradict itself, it is not already true; and the planner's answer turned into a plan or a refusal.

A goal is what grounding answers (the task's words, or a model, say *what* must hold); the sequence
of skills that makes it hold is the planner's (:mod:`treebrain.manipulation.strips`,
:mod:`treebrain.manipulation.task_planner`), as in LLM+P (Liu et al., 2023).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from treebrain.manipulation.bddl import Predicate, goal_holds
from treebrain.manipulation.strips import Atom
from treebrain.manipulation.symbolic import SKILL_SETS, Scene, SymbolicState
from treebrain.manipulation.task_planner import SearchResult

GOAL_RELATIONS: dict[str, tuple[str, int]] = {
    "On": ("in", 2),
    "In": ("in", 2),
    "Open": ("opened", 1),
    "Close": ("closed", 1),
    "TurnOn": ("switched_on", 1),
    "TurnOff": ("switched_off", 1),
}
"""A goal relation → the planner's relation and how many arguments it takes (``On`` and ``In`` are
the same for the skills: the object is put at a place)."""
_PREDICATE = re.compile(r"^\s*(\w+)\s*\(\s*([^()]*?)\s*\)\s*$")
_OPPOSITES = {"Open": "Close", "TurnOn": "TurnOff"}


class GoalError(ValueError):
    """A goal that cannot be planned for, in words a user can act on."""


def parse_goal(texts: Sequence[str]) -> list[Predicate]:
    """``["On(a, b)", "Open(c)"]`` as predicates (a conjunction); a malformed one or an unknown
    relation raises :class:`GoalError` naming it and what was expected."""
    goal = []
    for text in texts:
        found = _PREDICATE.match(text)
        if found is None:
            raise GoalError(f"goal {text!r}: expected Relation(name, ...), e.g. On(bowl_1, plate_1)")
        relation, args = found.group(1), tuple(arg.strip() for arg in found.group(2).split(","))
        if relation not in GOAL_RELATIONS:
            raise GoalError(
                f"goal {text!r}: unknown relation {relation} (known: {', '.join(GOAL_RELATIONS)})"
            )
        if len(args) != GOAL_RELATIONS[relation][1] or not all(args):
            raise GoalError(f"goal {text!r}: {relation} takes {GOAL_RELATIONS[relation][1]} name(s)")
        goal.append(Predicate(relation, args))
    return goal


def goal_refusal(goal: Sequence[Predicate], scene: Scene) -> str:
    """Why no plan can reach `goal` in `scene` whatever the planner does, or ``""``: an empty goal, a
    name the scene lacks, an object put on itself or in two places, a fixture both opened and closed
    (or switched on and off)."""
    if not goal:
        return "the goal is empty"
    for predicate in goal:
        relation, args = predicate.relation, predicate.args
        if relation in ("On", "In"):
            if args[0] not in scene.objects:
                return f"{args[0]} is not an object in the scene"
            if args[1] not in scene.regions:
                return f"{args[1]} is not a place in the scene"
            if args[0] == args[1]:
                return f"{args[0]} cannot be put on itself"
        elif args[0] not in scene.fixtures:
            return f"{args[0]} is not something in the scene that can be {_verb(relation)}"
    places: dict[str, str] = {}
    for predicate in goal:
        if predicate.relation in ("On", "In"):
            thing, place = predicate.args
            if places.setdefault(thing, place) != place:
                return f"{thing} cannot be at both {places[thing]} and {place}"
    said = {(p.relation, p.args[0]) for p in goal}
    for relation, opposite in _OPPOSITES.items():
        both = sorted(name for kind, name in said if kind == relation and (opposite, name) in said)
        if both:
            return f"{both[0]} cannot be both {_verb(relation)} and {_verb(opposite)}"
    return ""


def with_goal_fixtures(goal: Sequence[Predicate], scene: Scene) -> Scene:
    """The scene with every part of a fixture that the goal opens, closes or switches made a fixture
    itself, closed: LIBERO's task files list only the drawers they name, and a drawer they leave
    unnamed starts closed (a goal may still ask to open the middle drawer of the cabinet)."""
    parts = [
        p.args[0]
        for p in goal
        if p.relation not in ("On", "In")
        and p.args[0] not in scene.fixtures
        and p.args[0] in scene.regions
        and any(p.args[0].startswith(f"{fixture}_") for fixture in scene.fixtures)
    ]
    if not parts:
        return scene
    added = tuple(dict.fromkeys(parts))
    return scene.model_copy(update={"fixtures": (*scene.fixtures, *added), "closed": (*scene.closed, *added)})


def _verb(relation: str) -> str:
    return {"Open": "opened", "Close": "closed", "TurnOn": "switched on", "TurnOff": "switched off"}[relation]


def goal_met(goal: Sequence[Predicate], scene: Scene) -> bool:
    """Whether every goal predicate holds in the scene already (then nothing is to be done)."""
    state = SymbolicState.of(scene)
    return all(goal_holds(predicate, state) for predicate in goal)


def goal_atoms(goal: Sequence[Predicate]) -> list[Atom]:
    """The goal as the planner's atoms: ``On(a, b)`` is ``("in", "a", "b")``."""
    return [(GOAL_RELATIONS[p.relation][0], *p.args) for p in goal]


def with_lifts(steps: Sequence[dict[str, Any]], scene: Scene) -> list[dict[str, Any]]:
    """The planner's steps with ``lift`` after every grasp, as every pick is done (its symbolic
    effect changes nothing a goal asks for, so the planner's operators leave it out)."""
    lifts = "lift" in SKILL_SETS[scene.skill_set]
    lifted: list[dict[str, Any]] = []
    for step in steps:
        lifted.append(step)
        if lifts and step["skill"] == "grasp":
            lifted.append({"skill": "lift", "args": {}})
    return lifted


def search_refusal(result: SearchResult, timeout_s: float) -> str:
    """Why a search gave no plan, in words (``""`` when it found one)."""
    match result.status:
        case "solved":
            return ""
        case "unsolvable":
            return "no sequence of the robot's skills reaches this goal"
        case "timeout":
            return f"the planner found no plan within {timeout_s:g} s"
        case "cancelled":
            return "the search was cancelled"
        case _:
            return f"the planner failed: {result.message or result.status}"
