"""One spoken command through a robot's voice tree: ticked until it finishes, how it ended, and
the report of it that ``treebrain voice`` prints (as text or JSON)."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from py_trees.common import Status
from pydantic import BaseModel

from treebrain.blackboard import Blackboard
from treebrain.robots.arm.commands import describe, parse_command
from treebrain.robots.arm.workcell import ArmScene
from treebrain.trees import TreebrainTree
from treebrain.trees.runner import Runner, RunStats
from treebrain.voice.outcome import CommandOutcome, CommandStatus, command_outcome
from treebrain.voice.outline import PlanOutline, plan_outline
from treebrain.voice.steps import Step
from treebrain.voice.trace import Trace

DEFAULT_ROBOT = Path("config/robots/gofa.yaml")
WRITER = "treebrain voice"
TRACE = "/voice/trace"
ACTIVE_ZONE = "/voice/active_zone"
TickCallback = Callable[[TreebrainTree, RunStats], None]


def value(blackboard: Blackboard, key: str) -> Any:
    return blackboard.get(key, WRITER) if blackboard.has(key) else None


@dataclass
class CommandRun:
    """How one command's run ended: the runner's statistics, on failure the failing leaves, where
    ``add_layer`` built as it began, and how long it took."""

    stats: RunStats
    failures: list[str] = field(default_factory=list)
    active_zone: str | None = None
    """Where ``add_layer`` built as the command began (None: the instruction set's default zone)."""
    interpret_s: float | None = None
    """From the first tick until the tree wrote its trace (interpreting done); None: it never did."""
    total_s: float = 0.0
    """From the first tick until the runner returned: interpreting, approving, compiling, executing."""

    @property
    def succeeded(self) -> bool:
        return self.stats.final_status == Status.SUCCESS.name


def run_command(
    tree: TreebrainTree,
    command: str,
    hz: float,
    values: dict[str, Any],
    wrap: Callable[[TickCallback], TickCallback | None] | None = None,
    ask: Callable[[str], bool] | None = None,
    timer: Callable[[], float] = time.perf_counter,
) -> CommandRun:
    """Tick the tree on one command until it finishes (the runner halts it afterwards); `wrap`
    adds a session's per-tick work (the ROS bridge) to the command's own. When strict mode waits
    for approval, `ask` decides from the approval message (none: not approved).

    The times are `timer`'s: the wall clock, since a person waits for them (a recorded run's tree
    clock stands still during a tick, so a phrase-bank answer would read 0 s). Interpreting ends when
    the trace is written, within its tick, not at the tick's end."""
    blackboard = tree.blackboard
    for key, item in {"/voice/command": command, **values}.items():
        blackboard.set(key, item, WRITER)
    active_zone = value(blackboard, ACTIVE_ZONE)
    failures: list[str] = []
    interpreted: list[float] = []

    def on_write(key: str, written: Any, writer: str) -> None:
        if key == TRACE and written is not None and not interpreted:
            interpreted.append(timer())

    def after_tick(tree: TreebrainTree, stats: RunStats) -> None:
        _decide_when_waiting(tree, ask)
        if tree.root.status == Status.FAILURE:
            failures[:] = [
                f"{path}: {node.feedback_message}"
                for path, node in tree.nodes.items()
                if node.status == Status.FAILURE and not node.children
            ]

    started = timer()
    blackboard.add_write_listener(on_write)
    try:
        stats = Runner(tree, hz, on_tick=wrap(after_tick) if wrap else after_tick).run()
    finally:
        blackboard.remove_write_listener(on_write)
    return CommandRun(
        stats,
        failures,
        active_zone=active_zone,
        interpret_s=interpreted[0] - started if interpreted else None,
        total_s=timer() - started,
    )


def _decide_when_waiting(tree: TreebrainTree, ask: Callable[[str], bool] | None) -> None:
    """Strict mode: when the approval gate waits and nobody decided, `ask` decides."""
    blackboard = tree.blackboard
    if not value(blackboard, "/voice/awaiting_approval") or blackboard.has("/voice/approved"):
        return
    message = value(blackboard, "/voice/approval_message")
    blackboard.set("/voice/approved", bool(ask and ask(str(message))), WRITER)


def outcome(blackboard: Blackboard, run: CommandRun) -> CommandOutcome:
    """How the command ended, from the voice tree's keys."""
    return command_outcome(
        value(blackboard, "/voice/result"),
        tree_succeeded=run.succeeded,
        dispatch=bool(value(blackboard, "/voice/dispatch")),
        commands=value(blackboard, "/voice/commands"),
        executed=value(blackboard, "/arm/executed") or 0,
        approval_message=value(blackboard, "/voice/approval_message"),
        compile_error=value(blackboard, "/voice/compile_error"),
        arm_error=value(blackboard, "/arm/error"),
        failures=run.failures,
    )


class CommandReport(BaseModel):
    """One command as ``treebrain voice`` reports it: how it ended, what was understood and planned,
    how long it took, what the arm did, and the whole cell after it (``--json`` prints it as is)."""

    command: str
    status: CommandStatus
    message: str
    route: str | None
    interpret_s: float | None
    """Seconds, as :class:`CommandRun` measured them."""
    total_s: float
    result: dict[str, Any] | None
    """The seed's result dict (:class:`~treebrain.voice.result.InterpretResult`); None for an empty
    command."""
    plan: PlanOutline | None
    """The result's steps as layers per zone and other steps; None when it has none."""
    notice: str | None
    """What the user must be told about the command itself (it was cut to the longest allowed)."""
    dispatched: list[str]
    executed: int
    memory: dict[str, Any] | None
    active_zone: str | None
    """Where ``add_layer`` builds next."""
    creative_brief: str | None = None
    """A creative command's two axes, as drawn before the model was asked ("palindrome, doubled")."""
    scene: ArmScene | None


def command_report(command: str, blackboard: Blackboard, run: CommandRun) -> CommandReport:
    """The report of the command `run` ran, from the voice tree's keys."""
    ended = outcome(blackboard, run)
    result = value(blackboard, "/voice/result")
    iset = value(blackboard, "/voice/instruction_set")
    steps = [Step.model_validate(step) for step in (result or {}).get("sequence", [])]
    return CommandReport(
        command=command,
        status=ended.status,
        message=ended.message,
        route=value(blackboard, "/voice/route"),
        interpret_s=None if run.interpret_s is None else round(run.interpret_s, 4),
        total_s=round(run.total_s, 4),
        result=result,
        plan=plan_outline(steps, iset, run.active_zone) if steps and iset is not None else None,
        notice=value(blackboard, "/voice/notice"),
        dispatched=[describe(parse_command(item)) for item in value(blackboard, "/voice/commands") or []],
        executed=value(blackboard, "/arm/executed") or 0,
        memory=value(blackboard, "/voice/memory"),
        active_zone=value(blackboard, ACTIVE_ZONE),
        creative_brief=_brief(value(blackboard, "/voice/trace")),
        scene=value(blackboard, "/arm/scene"),
    )


def _brief(trace: Trace | None) -> str | None:
    creative = trace.creative if trace is not None else None
    return None if creative is None else f"{creative.spatial} \u00d7 {creative.ingredient}"


def robot_options(parser: argparse.ArgumentParser, hz: float, *, provider: bool = True) -> None:
    """``--robot``, ``--provider`` and ``--hz``, shared with ``treebrain eval voice`` (whose
    ``--provider`` is the evaluation runner's)."""
    parser.add_argument(
        "--robot", type=Path, default=DEFAULT_ROBOT, help=f"robot file (default {DEFAULT_ROBOT})"
    )
    if provider:
        parser.add_argument(
            "--provider", metavar="PROFILE", help="LLM profile of the robot file (default: its llm.default)"
        )
    parser.add_argument("--hz", type=float, default=hz, help=f"tick rate (default {hz:g})")
