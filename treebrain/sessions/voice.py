"""One spoken command through a robot's voice tree: ticked until it finishes, and how it ended."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from py_trees.common import Status

from treebrain.blackboard import Blackboard
from treebrain.trees import TreebrainTree
from treebrain.trees.runner import Runner, RunStats
from treebrain.voice.outcome import CommandOutcome, command_outcome

DEFAULT_ROBOT = Path("config/robots/gofa.yaml")
WRITER = "treebrain voice"
TickCallback = Callable[[TreebrainTree, RunStats], None]


def value(blackboard: Blackboard, key: str) -> Any:
    return blackboard.get(key, WRITER) if blackboard.has(key) else None


@dataclass
class CommandRun:
    """How one command's run ended: the runner's statistics and, on failure, the failing leaves."""

    stats: RunStats
    failures: list[str] = field(default_factory=list)

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
) -> CommandRun:
    """Tick the tree on one command until it finishes (the runner halts it afterwards); `wrap`
    adds a session's per-tick work (the ROS bridge) to the command's own. When strict mode waits
    for approval, `ask` decides from the approval message (none: not approved)."""
    for key, item in {"/voice/command": command, **values}.items():
        tree.blackboard.set(key, item, WRITER)
    failures: list[str] = []

    def after_tick(tree: TreebrainTree, stats: RunStats) -> None:
        _decide_when_waiting(tree, ask)
        if tree.root.status == Status.FAILURE:
            failures[:] = [
                f"{path}: {node.feedback_message}"
                for path, node in tree.nodes.items()
                if node.status == Status.FAILURE and not node.children
            ]

    stats = Runner(tree, hz, on_tick=wrap(after_tick) if wrap else after_tick).run()
    return CommandRun(stats, failures)


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
