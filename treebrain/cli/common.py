"""What every command shares: exit codes and how problems are printed."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from treebrain.errors import Problem

EXIT_OK, EXIT_FAILURE, EXIT_BAD_INPUT, EXIT_INTERRUPTED = 0, 1, 2, 130


def print_problems(problems: Sequence[Problem]) -> None:
    """One line per problem on stderr, then a count."""
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"{len(problems)} problem{'s' if len(problems) != 1 else ''} found", file=sys.stderr)
