"""Sub-commands whose module is imported only when the sub-command is chosen.

``treebrain --help`` lists every command from its one-line help alone; ``treebrain voice ...`` (or
``treebrain voice --help``) imports the voice command's module and nothing of the others, so no
command pays for, or breaks on, what another needs (simulators, ROS, image libraries).
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from treebrain.extras import needs_extra

Configure = Callable[[argparse.ArgumentParser], None]
"""Adds a sub-command's arguments and its ``handler`` default to its (still empty) parser."""


@dataclass(frozen=True)
class Subcommand:
    """A sub-command by name: its one line of help, the function that configures its parser, either
    as ``module:function`` (imported when the sub-command is chosen) or itself, and the extra that
    module needs, if any (named when it is missing)."""

    name: str
    help: str
    configure: str | Configure
    extra: str | None = None

    def load(self) -> Configure:
        if not isinstance(self.configure, str):
            return self.configure
        module, _, function = self.configure.partition(":")
        configure: Configure = getattr(importlib.import_module(module), function)
        return configure


class LazySubcommands(argparse._SubParsersAction):  # type: ignore[type-arg]
    """An argparse sub-parsers action whose parsers are configured when chosen."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._pending: dict[str, Subcommand] = {}

    def add(self, subcommand: Subcommand) -> None:
        self.add_parser(subcommand.name, help=subcommand.help, description=subcommand.help)
        self._pending[subcommand.name] = subcommand

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        assert isinstance(values, list) and values
        chosen = self._pending.pop(values[0], None)
        if chosen is not None:
            with needs_extra(chosen.extra, f"{parser.prog} {chosen.name}"):
                chosen.load()(self._name_parser_map[chosen.name])
        super().__call__(parser, namespace, values, option_string)


def add_subcommands(
    parser: argparse.ArgumentParser, dest: str, subcommands: Sequence[Subcommand]
) -> LazySubcommands:
    """Required sub-commands of `parser`, each configured only when chosen."""
    action = parser.add_subparsers(dest=dest, required=True, action=LazySubcommands)
    assert isinstance(action, LazySubcommands)
    for subcommand in subcommands:
        action.add(subcommand)
    return action
