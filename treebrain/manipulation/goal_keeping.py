"""What the words say stays where it is, whoever answers the goal: the offline parser reads "leave the
milk where it is" and "the rest stays" from the task's words; when it is unsure of the goal and a
model answers it, the same reading is carried to the model's goal, and a goal that moves a kept
object is refused, never planned."""

from __future__ import annotations

from collections.abc import Collection, Iterable

from treebrain.manipulation.goal_answer import GoalParse, predicate_arguments
from treebrain.manipulation.symbolic import Scene


def moved_by(goal: Iterable[str]) -> set[str]:
    """What a goal's predicates act on (their first argument): the objects it puts somewhere."""
    return {predicate_arguments(predicate)[0] for predicate in goal}


def kept_by(goal: Collection[str], named: Iterable[str], rest_kept: bool, scene: Scene) -> list[str]:
    """The objects that stay: those the words named, or with "the rest stays" every object `goal`
    does not move."""
    kept = set(scene.objects) - moved_by(goal) if rest_kept else set(named)
    return sorted(kept)


def kept_moved(goal: Iterable[str], kept: Collection[str]) -> str:
    """The first kept object `goal` moves ('' when none is)."""
    return next(iter(sorted(moved_by(goal) & set(kept))), "")


def kept_as_said(answer: GoalParse, said: GoalParse, scene: Scene) -> GoalParse:
    """A model's goal `answer` with what the parser's reading `said` of the same words keeps; a goal
    that moves a kept object is a refusal naming it (a question or refusal is left as it is)."""
    if not answer.usable:
        return answer
    kept = kept_by(answer.goal, said.kept, said.rest_kept, scene)
    moved = kept_moved(answer.goal, kept)
    if moved:
        goal = " and ".join(answer.goal)
        return GoalParse(
            task=answer.task,
            refusal=f"{moved} is to stay where it is, but the model's goal moves it ({goal})",
        )
    return answer.model_copy(update={"kept": kept})
