"""The goal of a language task (an object put somewhere) and how an episode is judged against it:
the facts must hold in the world state, and where the simulator has its own check for them, that
check must pass too.

The task catalogue's goal is what the simulator's success check means: on PickPlace each of its
facts is one object in its own compartment (the simulator checks each object), on Stack the goal as
a whole (``on(cubeA, cubeB)``). A language task may ask for anything else ("the milk in the can's
compartment"); then the world state alone judges it, and the log says the simulator could not.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from treebrain.manipulation.facts import fact, parse_fact
from treebrain.manipulation.regions import OnObjectRegion
from treebrain.manipulation.tasks import TaskSpec


def placing_goal(task: TaskSpec, source: str, target: str) -> list[str]:
    """The facts that say `source` was put at `target` and let go: ``in`` for a region of space,
    ``on`` for the top of an object (a target that is an object is its top too)."""
    region = task.regions.get(target)
    placed = (
        fact("on", source, region.object)
        if isinstance(region, OnObjectRegion)
        else fact("in", source, target)
        if region is not None
        else fact("on", source, target)
    )
    return [placed, f"not {fact('holding', source)}"]


@dataclass(frozen=True)
class GoalJudgement:
    """An episode against its goal."""

    success: bool
    unmet: list[str]
    """Goal facts that do not hold in the world state."""
    simulator_agrees: bool | None
    """The simulator's own check of the goal; None when it has none for this goal."""


def judge_goal(
    goal: list[str],
    facts: Collection[str],
    task: TaskSpec,
    task_success: bool,
    objects_placed: Mapping[str, bool],
) -> GoalJudgement:
    """`goal` against the world's `facts` and the simulator's checks (`task_success` for the
    catalogue's goal as a whole, `objects_placed` per object where the simulator has that)."""
    unmet = [text for text in goal if not parse_fact(text).holds_in(facts)]
    positive = {text for text in goal if not parse_fact(text).negated}
    catalogue = {text for text in task.goal if not parse_fact(text).negated}
    agrees: bool | None = None
    if catalogue <= positive:
        agrees = task_success
    else:
        checked = [parse_fact(text).args[0] for text in positive & catalogue]
        if checked and all(name in objects_placed for name in checked):
            agrees = all(objects_placed[name] for name in checked)
    return GoalJudgement(not unmet and agrees is not False, unmet, agrees)
