"""What the words say stays where it is, whoever answers the goal: the offline parser reads "leave the
milk where it is" and "the rest stays" from the task's words; when it is unsure of the goal and a
model answers it, the same reading is carried to the model's goal, and a goal that moves a kept
object is refused, never planned."""

from __future__ import annotations

from collections.abc import Collection, Iterable

from treebrain.manipulation.goal_answer import GoalParse, predicate_arguments
from treebrain.manipulation.grounding import Grounding
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


def kept_for(goal: Collection[str], said: GoalParse, scene: Scene) -> tuple[list[str], str]:
    """What stays while `goal` is done, by the words' reading `said`, and a question ('' when none):
    a keep clause the words leave unsure ("leave the bowl where it is", two bowls) asks which one
    stays when `goal` moves one of its candidates; when it moves none, they all stay."""
    moved = moved_by(goal)
    for either in said.kept_either:
        if moved & set(either.candidates):
            return [], f"which {either.phrase} stays where it is: {' or '.join(either.candidates)}?"
    unsure = [name for either in said.kept_either for name in either.candidates]
    return kept_by(goal, [*said.kept, *unsure], said.rest_kept, scene), ""


def _judged(goal: Collection[str], said: GoalParse, scene: Scene) -> tuple[list[str], str, str]:
    """What stays while `goal` is done (:func:`kept_for`), the question an unsure keep clause asks
    ('' when none), and the first kept object `goal` moves ('' when none, or when it asks)."""
    kept, which = kept_for(goal, said, scene)
    return kept, which, "" if which else kept_moved(goal, kept)


def kept_as_said(answer: GoalParse, said: GoalParse, scene: Scene) -> GoalParse:
    """A model's goal `answer` with what the parser's reading `said` of the same words keeps; a goal
    that moves a kept object is a refusal naming it, one that moves an object of an unsure keep
    clause a question (a question or refusal is left as it is)."""
    if not answer.usable:
        return answer
    kept, which, moved = _judged(answer.goal, said, scene)
    if which:
        return GoalParse(task=answer.task, question=which)
    if moved:
        goal = " and ".join(answer.goal)
        return GoalParse(
            task=answer.task,
            refusal=f"{moved} is to stay where it is, but the model's goal moves it ({goal})",
        )
    return answer.model_copy(update={"kept": kept})


def grounding_kept(grounding: Grounding, said: GoalParse, scene: Scene) -> Grounding:
    """A model's grounding (which object goes where) with what the parser's reading `said` of the
    same words keeps, whoever grounds the task; a grounding whose object is kept is a refusal naming
    it, one whose object an unsure keep clause names a question (a question or refusal is left as
    it is)."""
    if not grounding.usable:
        return grounding
    kept, which, moved = _judged([f"In({grounding.source}, {grounding.target})"], said, scene)
    if which:
        return Grounding(question=which)
    if moved:
        return Grounding(
            refusal=f"{grounding.source} is to stay where it is, but the model's grounding moves it "
            f"(to {grounding.target})"
        )
    return grounding.model_copy(update={"kept": kept})
