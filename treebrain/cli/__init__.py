"""The ``treebrain`` command: argument parsing and printing only; the work happens in the packages.

:data:`COMMANDS` names every sub-command, its one line of help and the function that adds its
arguments; that function's module is imported only when the sub-command is chosen, so a command
imports only what it needs and ``treebrain --help`` imports none of them. A feature that needs an
optional install says so in one line (:class:`~treebrain.extras.MissingExtra`), exit 2.
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import sys
from collections.abc import Sequence
from typing import Any

from treebrain.cli.common import EXIT_BAD_INPUT, EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK, print_problems
from treebrain.cli.process import SIGNAL_EXIT_CODES, check_arguments, redacted_output, signals_halt
from treebrain.cli.subcommands import Subcommand, add_subcommands
from treebrain.errors import InputError
from treebrain.extras import MissingExtra, needs_extra

COMMANDS = (
    Subcommand(
        "validate",
        "check robot or tree files; exit 2 listing every problem",
        "treebrain.cli.core:configure_validate",
    ),
    Subcommand("show", "draw a tree", "treebrain.cli.core:configure_show"),
    Subcommand(
        "run", "tick a tree until it finishes, --max-ticks, or Ctrl-C", "treebrain.cli.run:configure_run"
    ),
    Subcommand(
        "list-behaviours",
        "every node type with its ports and params",
        "treebrain.cli.core:configure_list_behaviours",
    ),
    Subcommand(
        "voice",
        "interpret spoken commands and execute them on the robot's arm, one after another",
        "treebrain.cli.voice:configure",
    ),
    Subcommand(
        "kg", "the kitchen knowledge graph: ingest narrations, query, draw", "treebrain.cli.kg:configure"
    ),
    Subcommand(
        "vv", "verify TDL robot programs before they run (see docs/tdl.md)", "treebrain.cli.vv:configure"
    ),
    Subcommand("eval", "evaluate a pipeline on its labelled suite", "treebrain.cli.evaluate:configure"),
    Subcommand(
        "replay",
        "open a recording in the viewer's timeline, or --rerun it and report any divergence",
        "treebrain.cli.record:configure_replay",
    ),
    Subcommand(
        "view",
        "serve the viewer for a recording (live while it is being written), or --ros: the py_trees_ros viewer",
        "treebrain.cli.record:configure_view",
    ),
    Subcommand(
        "sim-node",
        "a robot file's simulated mobile base as a ROS 2 node (scan, odom, camera; cmd_vel)",
        "treebrain.cli.navigation:configure_sim_node",
        extra="nav",
    ),
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="treebrain", description="LLM-driven robot pipelines as behaviour trees."
    )
    parser.add_argument("--log-level", default="warning", choices=["debug", "info", "warning", "error"])
    add_subcommands(parser, "command", COMMANDS)
    return parser


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is when a record comes: under a live view that is the
    view's proxy, which prints the line above the view instead of through it."""

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        """The stream is always the current ``sys.stderr``."""


def _configure_logging(level: str) -> None:
    """Leaves log through `logging` (the `log` leaf, failures): one plain line each on stderr."""
    handler = _StderrHandler()
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=level.upper(), handlers=[handler], force=True)


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    with redacted_output(), signals_halt() as received:
        try:
            check_arguments(arguments)
        except InputError as error:
            print_problems(error.problems)
            return EXIT_BAD_INPUT
        try:
            args = build_parser().parse_args(arguments)
        except MissingExtra as missing:
            print(f"treebrain: {missing}", file=sys.stderr)
            return EXIT_BAD_INPUT
        _configure_logging(args.log_level)
        code = _run(args)
    if received and code == EXIT_INTERRUPTED:
        return SIGNAL_EXIT_CODES.get(received[0], EXIT_INTERRUPTED)
    return code


def _run(args: argparse.Namespace) -> int:
    """The command's exit code; what it raises becomes an exit code and one line, never a traceback
    (but for --log-level debug)."""
    try:
        with needs_extra(None, _command_words(args)):
            code: int = args.handler(args)
    except InputError as error:
        print_problems(error.problems)
        return EXIT_BAD_INPUT
    except MissingExtra as missing:
        print(f"treebrain: {missing}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`treebrain ... | head`): stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except Exception as error:
        logging.getLogger("treebrain").debug("the command failed", exc_info=True)
        print(
            f"treebrain: internal error: {type(error).__name__}: {error} "
            "(run with --log-level debug for the traceback)",
            file=sys.stderr,
        )
        return EXIT_FAILURE
    return code


SUBCOMMAND_DESTS = ("command", "kg_command", "vv_command", "evaluation")
"""Where argparse puts each level's chosen sub-command (``treebrain kg draw``)."""


def _command_words(args: argparse.Namespace) -> str:
    return " ".join(["treebrain", *(getattr(args, dest) for dest in SUBCOMMAND_DESTS if hasattr(args, dest))])


def entry() -> None:
    """The ``treebrain`` program: :func:`main`, then exit without the collector's last pass over
    a heap that is about to be freed anyway (a quarter of a short command's time).

    Pydantic's plugins stay off unless ``PYDANTIC_DISABLE_PLUGINS`` is set (to ``""`` for all of
    them): finding them reads every installed package's metadata when the first model is built,
    a tenth of a short command's time, for plugins (tracing validation) a robot never needs."""
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    code = main()
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":
    entry()
