"""Located problems: every bad-input error in treebrain says where it is and what was expected.

A loader collects *all* problems it can find before raising, so a user fixes a file in one pass
instead of one error per run. The CLI prints each problem on one line and exits 2; the Python API
raises :class:`InputError` carrying the same list.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True, order=True)
class Location:
    """A place in an input file; line and column are 1-based, 0 when unknown."""

    file: str = ""
    line: int = 0
    column: int = 0

    def __str__(self) -> str:
        parts = [self.file or "<input>"]
        if self.line:
            parts.append(str(self.line))
            if self.column:
                parts.append(str(self.column))
        return ":".join(parts)


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong with an input, with where it is and, for trees, which node it concerns."""

    location: Location
    message: str
    node_path: str = ""

    def __str__(self) -> str:
        where = f"{self.location}: "
        node = f"{self.node_path}: " if self.node_path else ""
        return f"{where}{node}{self.message}"


@dataclass
class InputError(Exception):
    """Raised when an input (YAML, program, data file) has one or more problems."""

    problems: list[Problem] = field(default_factory=list)

    def __post_init__(self) -> None:
        super().__init__(self.render())

    def render(self) -> str:
        return "\n".join(str(problem) for problem in self.problems)

    def __str__(self) -> str:
        return self.render()

    @classmethod
    def single(
        cls, message: str, file: str | Path = "", line: int = 0, column: int = 0, node_path: str = ""
    ) -> InputError:
        return cls([Problem(Location(str(file), line, column), message, node_path)])
