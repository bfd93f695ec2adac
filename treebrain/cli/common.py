"""What every command shares: exit codes and how problems are printed."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from treebrain.errors import Problem

EXIT_OK, EXIT_FAILURE, EXIT_BAD_INPUT, EXIT_INTERRUPTED = 0, 1, 2, 130
EXIT_REFUSED = 3
"""Nothing was done on purpose: the command was refused, or needs a question answered."""
EXIT_LLM_UNAVAILABLE = 4
"""The model could not be used (no or wrong key, overloaded, timeout, missing model, no plan in its answer)."""


def print_problems(problems: Sequence[Problem]) -> None:
    """One line per problem on stderr, then a count."""
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"{len(problems)} problem{'s' if len(problems) != 1 else ''} found", file=sys.stderr)
