"""py_trees' composites, as nodes that can show what a halt reset (see :class:`RemembersInvalidation`).

The ticking logic is py_trees' own. A parallel that finishes halts its children still RUNNING,
after they were ticked in the same tick, so it notes what they showed before halting them.
"""

from __future__ import annotations

import py_trees
from py_trees.common import Status

from treebrain.behaviours.base import RemembersInvalidation, remember_before_halting


class Sequence(RemembersInvalidation, py_trees.composites.Sequence):
    """py_trees' sequence."""


class Selector(RemembersInvalidation, py_trees.composites.Selector):
    """py_trees' selector."""


class Parallel(RemembersInvalidation, py_trees.composites.Parallel):
    """py_trees' parallel."""

    def stop(self, new_status: Status = Status.INVALID) -> None:
        for child in self.children:
            if child.status is Status.RUNNING:
                remember_before_halting(child)
        super().stop(new_status)
