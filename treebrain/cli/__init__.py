"""The ``treebrain`` command: argument parsing and printing only; the work happens in the packages.

Each module of this package adds one group of sub-commands through its ``register(commands)``;
a module may also add ``treebrain eval <name>`` sub-commands through ``register_eval(evaluations)``.
Modules are found by name, so adding a domain's commands touches no shared file.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import pkgutil
import sys
from collections.abc import Sequence
from types import ModuleType

from rich.console import Console
from rich.logging import RichHandler

from treebrain.cli.common import EXIT_BAD_INPUT, EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK, print_problems
from treebrain.cli.process import SIGNAL_EXIT_CODES, check_arguments, redacted_output, signals_halt
from treebrain.errors import InputError


def command_modules() -> list[ModuleType]:
    names = sorted(
        info.name for info in pkgutil.iter_modules(__path__) if info.name not in ("common", "process")
    )
    return [importlib.import_module(f"{__name__}.{name}") for name in names]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="treebrain", description="LLM-driven robot pipelines as behaviour trees."
    )
    parser.add_argument("--log-level", default="warning", choices=["debug", "info", "warning", "error"])
    commands = parser.add_subparsers(dest="command", required=True)
    modules = command_modules()
    for module in modules:
        if hasattr(module, "register"):
            module.register(commands)
    evaluations = [module for module in modules if hasattr(module, "register_eval")]
    if evaluations:
        evaluate = commands.add_parser("eval", help="evaluate a pipeline on its labelled suite")
        kinds = evaluate.add_subparsers(dest="evaluation", required=True)
        for module in evaluations:
            module.register_eval(kinds)
    return parser


def _configure_logging(level: str) -> None:
    """Leaves log through `logging` (the `log` leaf, failures); show them above the live view."""
    handler = RichHandler(console=Console(stderr=True), show_time=False, show_path=False)
    logging.basicConfig(level=level.upper(), format="%(name)s: %(message)s", handlers=[handler], force=True)


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    with redacted_output(), signals_halt() as received:
        try:
            check_arguments(arguments)
        except InputError as error:
            print_problems(error.problems)
            return EXIT_BAD_INPUT
        args = build_parser().parse_args(arguments)
        _configure_logging(args.log_level)
        code = _run(args)
    if received and code == EXIT_INTERRUPTED:
        return SIGNAL_EXIT_CODES.get(received[0], EXIT_INTERRUPTED)
    return code


def _run(args: argparse.Namespace) -> int:
    """The command's exit code; what it raises becomes an exit code and one line, never a traceback
    (but for --log-level debug)."""
    try:
        code: int = args.handler(args)
    except InputError as error:
        print_problems(error.problems)
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


if __name__ == "__main__":
    sys.exit(main())
