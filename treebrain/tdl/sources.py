"""Where the programs to check come from: files, directories, glob patterns and TDL blocks in Markdown.

``treebrain vv check`` takes any mix of them. A directory contributes its ``*.tdl`` files and the
TDL blocks of its Markdown files (recursively, skipping hidden directories), a pattern such as
``"docs/**/*.md"`` the files it matches. In Markdown, a fenced block tagged ``tdl`` is a program, and
so is an untagged block with a ``GOAL`` line. A block keeps the document's line numbers (its text is
preceded by as many empty lines as come before it), so a finding points into the document itself.
Every problem reading a source is located (``file:line:column``) and kept with it: one unreadable
file does not stop the others from being checked.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from treebrain.errors import InputError, Location, Problem
from treebrain.tdl.source import read_program_file

PROGRAM_SUFFIX = ".tdl"
DOCUMENT_SUFFIXES = frozenset({".md", ".markdown"})
_GLOB = re.compile(r"[*?\[]")
_FENCE = re.compile(r"[ \t]*(`{3,}|~{3,})")
_GOAL_LINE = re.compile(r"^\s*GOAL\b")


@dataclass(frozen=True)
class ProgramText:
    """One program to check: `label` names it in a summary (``doc.md:12`` for a block whose fence is
    on line 12), `source_name` is the file its findings point into; `text` is None when it could not
    be read, and `problems` say why."""

    label: str
    source_name: str
    text: str | None
    problems: tuple[Problem, ...] = field(default=())


def is_batch(arguments: Sequence[str]) -> bool:
    """Whether the arguments name more than one program file: several arguments, a directory, a
    pattern or a Markdown document (whose blocks are programs)."""
    if len(arguments) != 1:
        return True
    path = Path(arguments[0])
    if path.is_dir() or path.suffix.lower() in DOCUMENT_SUFFIXES:
        return True
    return not path.exists() and bool(_GLOB.search(arguments[0]))


def markdown_blocks(text: str) -> Iterator[tuple[int, str]]:
    """(line of the opening fence, program text with the document's line numbers) per TDL block."""
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        rest = lines[index][opening.end() :] if opening else ""
        if opening is None or (opening.group(1)[0] == "`" and "`" in rest):
            index += 1
            continue
        fence, info = opening.group(1), (rest.split() or [""])[0].lower()
        end = index + 1
        while end < len(lines) and not _closes(lines[end], fence):
            end += 1
        body = lines[index + 1 : end]
        if info == "tdl" or (not info and any(_GOAL_LINE.match(line) for line in body)):
            yield index + 1, "\n" * (index + 1) + "\n".join(body) + "\n"
        index = end + 1


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return stripped.startswith(fence) and set(stripped) == {fence[0]}


def _unreadable(path: Path, error: InputError) -> ProgramText:
    return ProgramText(str(path), str(path), None, tuple(error.problems))


def _from_file(path: Path, named: bool) -> list[ProgramText]:
    """The programs in one file: itself, or its Markdown blocks (`named`: the user asked for it, so
    a document without any TDL block is a problem rather than nothing to do)."""
    try:
        text = read_program_file(path)
    except InputError as error:
        return [_unreadable(path, error)]
    if path.suffix.lower() not in DOCUMENT_SUFFIXES:
        return [ProgramText(str(path), str(path), text)]
    blocks = [ProgramText(f"{path}:{line}", str(path), block) for line, block in markdown_blocks(text)]
    if not blocks and named:
        problem = Problem(Location(str(path)), "no TDL block (```tdl, or a fenced block with a GOAL)")
        return [ProgramText(str(path), str(path), None, (problem,))]
    return blocks


def _in_directory(directory: Path) -> list[Path]:
    found = [
        path
        for path in directory.rglob("*")
        if path.is_file()
        and (path.suffix == PROGRAM_SUFFIX or path.suffix.lower() in DOCUMENT_SUFFIXES)
        and not any(part.startswith(".") for part in path.relative_to(directory).parts)
    ]
    return sorted(found)


def _matching(pattern: str) -> list[Path]:
    """The paths a glob pattern (``**`` included) matches, sorted."""
    parts = Path(pattern).parts
    fixed = next(index for index, part in enumerate(parts) if _GLOB.search(part))
    base = Path(*parts[:fixed]) if fixed else Path()
    return sorted(base.glob(str(Path(*parts[fixed:]))))


def collect_programs(arguments: Sequence[str]) -> list[ProgramText]:
    """Every program the arguments name, in argument order (a file named twice is checked once)."""
    programs: list[ProgramText] = []
    seen: set[Path] = set()

    def add(path: Path, named: bool) -> None:
        resolved = path.resolve()
        if resolved not in seen:
            seen.add(resolved)
            programs.extend(_from_file(path, named))

    for argument in arguments:
        path = Path(argument)
        if path.is_dir():
            files = _in_directory(path)
            before = len(programs)
            for file in files:
                add(file, named=False)
            if len(programs) == before and not files:
                problem = Problem(
                    Location(argument), f"no TDL program (*{PROGRAM_SUFFIX}) or Markdown file in it"
                )
                programs.append(ProgramText(argument, argument, None, (problem,)))
        elif not path.exists() and _GLOB.search(argument):
            files = [match for match in _matching(argument) if match.is_file()]
            if not files:
                problem = Problem(Location(argument), "no file matches this pattern")
                programs.append(ProgramText(argument, argument, None, (problem,)))
            for file in files:
                add(file, named=True)
        else:
            add(path, named=True)
    return programs
