"""The built tree: a :class:`py_trees.trees.BehaviourTree` that also knows its blackboard, clock,
node paths and where it was loaded from, and halts everything RUNNING when closed.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path

import py_trees
from py_trees.behaviour import Behaviour
from py_trees.common import Status

from treebrain.behaviours import TreeContext
from treebrain.blackboard import Access, Blackboard
from treebrain.clock import Clock
from treebrain.trees.spec import NodeSpec


class TreebrainTree(py_trees.trees.BehaviourTree):
    """A loaded tree. ``nodes`` maps node paths (``root/child``) to behaviours."""

    def __init__(
        self, root: Behaviour, context: TreeContext, spec: NodeSpec, nodes: dict[str, Behaviour], source: Path
    ) -> None:
        super().__init__(root)
        self.context = context
        self.spec = spec
        self.nodes = nodes
        self.source = source
        self._paths: dict[uuid.UUID, str] = {node.id: path for path, node in nodes.items()}
        self.tick_listeners: list[Callable[[TreebrainTree], None]] = []
        self.last_visited: list[Behaviour] = []
        """The nodes the last tick visited, in the order it yielded them (each after its children)."""
        self.last_activity: list[Access] = []
        """The blackboard reads and writes of the last tick, in order (never changed afterwards)."""

    @property
    def blackboard(self) -> Blackboard:
        return self.context.blackboard

    @property
    def clock(self) -> Clock:
        return self.context.clock

    @property
    def status(self) -> Status:
        return self.root.status

    def path_of(self, node: Behaviour) -> str:
        return self._paths[node.id]

    def node(self, path: str) -> Behaviour:
        try:
            return self.nodes[path]
        except KeyError:
            raise KeyError(f"no node at path '{path}'") from None

    def tick(
        self,
        pre_tick_handler: Callable[[py_trees.trees.BehaviourTree], None] | None = None,
        post_tick_handler: Callable[[py_trees.trees.BehaviourTree], None] | None = None,
    ) -> None:
        """One tick, noting the nodes it visits in :attr:`last_visited` and its blackboard accesses in
        :attr:`last_activity`.

        Unlike py_trees' version it builds no per-node visitor lists, and with no visitors set it runs
        no Python code per visited node at all (the tick's generator is drained into a list in C).
        """
        self.blackboard.activity.clear()
        if pre_tick_handler is not None:
            pre_tick_handler(self)
        for handler in self.pre_tick_handlers:
            handler(self)
        if self.visitors:
            self.last_visited = self._tick_with_visitors()
        else:
            self.last_visited = list(self.root.tick())
        for handler in self.post_tick_handlers:
            handler(self)
        if post_tick_handler is not None:
            post_tick_handler(self)
        self.last_activity = self.blackboard.take_activity()
        for listener in self.tick_listeners:
            listener(self)
        self.count += 1

    def _tick_with_visitors(self) -> list[Behaviour]:
        for visitor in self.visitors:
            visitor.initialise()
        partial = [visitor.run for visitor in self.visitors if not visitor.full]
        visited: list[Behaviour] = []
        for node in self.root.tick():
            visited.append(node)
            for visit in partial:
                visit(node)
        full = [visitor for visitor in self.visitors if visitor.full]
        if full:
            for node in self.root.iterate():
                for visitor in full:
                    node.visit(visitor)
        for visitor in self.visitors:
            visitor.finalise()
        return visited

    def halt(self) -> None:
        """Stop every RUNNING node (cancelling LLM calls and actions) and reset statuses."""
        if self.root.status != Status.INVALID:
            self.root.stop(Status.INVALID)

    def close(self) -> None:
        """Halt, then release the services (providers, drivers) the tree's leaves used."""
        self.halt()
        self.context.close()
