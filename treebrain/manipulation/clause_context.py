"""What the clauses of a task read so far refer to ("it", "them", "the drawer"), what must stay and
what must not be done: the state the clause readers share."""

from __future__ import annotations

from dataclasses import dataclass, field

from treebrain.manipulation.goal_answer import GoalRole, KeptEither


@dataclass
class Reading:
    """What the clauses read so far refer to ("it", "them")."""

    held: str = ""
    """The object picked up or last placed ("it")."""
    last_place: str = ""
    """The last fixture or place named ("close it" after "put ... in the drawer")."""
    stack_bottom: str = ""
    roles: list[GoalRole] = field(default_factory=list)
    kept: set[str] = field(default_factory=set)
    """Objects the task says stay where they are."""
    rest_kept: bool = False
    """The task says the rest stays ("the rest stays"): every object it does not move."""
    kept_either: list[KeptEither] = field(default_factory=list)
    """Keep clauses whose object the words leave unsure ("leave the bowl where it is", two bowls)."""
    forbidden: list[str] = field(default_factory=list)
    """Clauses that say what not to do ("don't put the milk in the bin")."""

    unsure_before: bool = False
    """A clause before was one the parser is unsure of: "it" is known only from the clauses after."""

    def forget_referents(self) -> None:
        """After a clause the parser is unsure of, what "it", "them" and "there" mean is not known:
        a later "leave it where it is" must not keep a thing named before that clause."""
        self.held = self.last_place = self.stack_bottom = ""
        self.unsure_before = True
