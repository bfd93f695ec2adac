"""The goal parser's answer: goal predicates with the words each came from and how sure the parser
is of it, or a question, or a refusal."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class GoalRole(BaseModel):
    """One goal predicate and the words it came from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    predicate: str
    phrase: str
    confidence: float
    """1.0 when no other name scored close, less the closer the runner-up came."""


class KeptEither(BaseModel):
    """A keep clause whose object the words leave unsure ("leave the bowl where it is" with two
    bowls): a goal that moves one of the candidates asks which one stays; else they all stay."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    phrase: str
    """The words that name it ("bowl")."""
    candidates: list[str]


class GoalParse(BaseModel):
    """The parser's answer: goal predicates (a conjunction), or a question, or a refusal."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: str
    goal: list[str] = []
    roles: list[GoalRole] = []
    kept: list[str] = []
    """Objects the words say stay where they are ("leave the milk where it is"): nothing may move
    them, not even to make room. A question has those the words named, for a model's goal."""
    rest_kept: bool = False
    """The words say the rest stays ("the rest stays"): every object the goal does not move (a goal
    has them in `kept`; a question leaves them to whoever answers it)."""
    kept_either: list[KeptEither] = []
    """Keep clauses whose object the words leave unsure, for whoever answers the goal (a goal keeps
    them all, or asks which one stays)."""
    question: str = ""
    refusal: str = ""

    @property
    def usable(self) -> bool:
        return bool(self.goal) and not self.question and not self.refusal

    def placing(self) -> tuple[str, str]:
        """The first object the goal puts somewhere and where (("", "") when it puts nothing): the
        placing a language episode is judged by."""
        for predicate in self.goal:
            arguments = predicate_arguments(predicate)
            if predicate.startswith(("In(", "On(")) and len(arguments) == 2:
                return arguments[0], arguments[1]
        return "", ""


def predicate_arguments(predicate: str) -> list[str]:
    """``In(Milk, bin_milk)`` -> ``["Milk", "bin_milk"]``."""
    return [part.strip() for part in predicate.partition("(")[2].rstrip(")").split(",")]
