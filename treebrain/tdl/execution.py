"""Pass 3 of the analysis: walk the program as a robot would and record the order of execution.

Entry GOALs are those no other GOAL spawns (usually Main_Process); spawning a GOAL runs its body in
place. Poses re-assigned with ``Assign`` are tracked, so each executed step knows which pose a name
denotes at that moment. Recursion is cut at a repeated GOAL and the trace is capped, so programs that
spawn exponentially many steps still analyse in bounded time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from treebrain.tdl.model import GoalInfo, Invocation, Step
from treebrain.tdl.nodes import GoalDecl, ParsedProgram

_MAX_ALIAS_CHAIN = 16
_MAX_SPAWN_DEPTH = 32


def canonical_name(name: str, aliases: Mapping[str, str]) -> str:
    """The name an alias chain (``Assign(P2, P1)``) ends at."""
    seen = 0
    while name in aliases and seen < _MAX_ALIAS_CHAIN:
        name = aliases[name]
        seen += 1
    return name


@dataclass
class _Walk:
    invocations: Sequence[Invocation]
    by_goal: Mapping[str, Sequence[int]]
    aliases: Mapping[str, str]
    bindings: dict[str, int]
    limit: int
    steps: list[Step] = field(default_factory=list)
    truncated: bool = False

    def run(self, goal: str, stack: tuple[str, ...]) -> None:
        for index in self.by_goal.get(goal, []):
            if len(self.steps) >= self.limit:
                self.truncated = True
                return
            invocation = self.invocations[index]
            if invocation.kind == "goal":
                name = invocation.resolved or ""
                if name not in stack and len(stack) < _MAX_SPAWN_DEPTH:
                    self.run(name, (*stack, name))
                continue
            self.steps.append(self.step(index, invocation))
            if invocation.assigns is not None:
                self.rebind(invocation.assigns, invocation.assigned_pose)

    def step(self, index: int, invocation: Invocation) -> Step:
        poses: list[int | None] = []
        unbound: list[str] = []
        for target in invocation.targets:
            if target.name is None or target.role == "label_ref":
                poses.append(target.pose)
                continue
            current = self.bindings.get(
                target.name, self.bindings.get(canonical_name(target.name, self.aliases))
            )
            if current is None and target.status == "defined":
                unbound.append(target.name)
            poses.append(current if current is not None else target.pose)
        roles = [target.role for target in invocation.targets]
        main = roles.index("target_pose") if "target_pose" in roles else len(roles) - 1
        pose = poses[main] if invocation.action == "motion" and poses else None
        return Step(invocation=index, pose=pose, unbound=tuple(unbound))

    def rebind(self, name: str, pose: int | None) -> None:
        if pose is not None:
            self.bindings[name] = pose
        elif (
            name in self.aliases
            and (source := self.bindings.get(canonical_name(name, self.aliases))) is not None
        ):
            self.bindings[name] = source


def execution_trace(
    invocations: Sequence[Invocation],
    by_goal: Mapping[str, Sequence[int]],
    goal_names: Sequence[str],
    defined_poses: Mapping[str, int],
    aliases: Mapping[str, str],
) -> tuple[list[Step], bool, list[str]]:
    """Steps in execution order, whether the trace was cut short, and the entry GOALs.

    `by_goal` lists invocation indices per GOAL in source order (``""`` for statements outside any
    GOAL, which run first); `defined_poses` are the DEFINEd poses, bound before anything runs.
    """
    spawned = {
        inv.resolved for inv in invocations if inv.kind == "goal" and inv.goal and inv.goal != inv.resolved
    }
    entries = [name for name in goal_names if name not in spawned] or list(goal_names)
    walk = _Walk(invocations, by_goal, aliases, dict(defined_poses), max(10 * len(invocations), 10_000))
    walk.run("", ("",))
    for entry in entries:
        walk.run(entry, (entry,))
    return walk.steps, walk.truncated, entries


def goal_infos(
    parsed: ParsedProgram, invocations: Sequence[Invocation], by_goal: Mapping[str, Sequence[int]]
) -> list[GoalInfo]:
    """Every GOAL declaration with the GOALs it spawns, in order."""
    infos = []
    for item in parsed.items:
        if isinstance(item, GoalDecl):
            spawns = tuple(
                invocations[index].command
                for index in by_goal.get(item.name, [])
                if invocations[index].kind == "goal"
            )
            infos.append(
                GoalInfo(
                    name=item.name, line=item.line, column=item.column, end_line=item.end_line, spawns=spawns
                )
            )
    return infos


def phase_order(goals: Sequence[GoalInfo], entries: Sequence[str]) -> tuple[str, ...]:
    """The order GOALs run in: the spawn order of the first entry GOAL that spawns others, else source order."""
    by_name = {goal.name: goal for goal in goals}
    for entry in entries:
        goal = by_name.get(entry)
        if goal is not None and goal.spawns:
            return goal.spawns
    return tuple(goal.name for goal in goals)
