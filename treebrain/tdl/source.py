"""Turn program bytes into text without ever failing: undecodable bytes become located problems.

TDL files are read as UTF-8 (a leading BOM is dropped). Legacy Korean encodings (CP949/EUC-KR) are
not guessed: a wrong guess would silently change identifiers, so each invalid byte sequence is
replaced by U+FFFD and reported with its line and column, and parsing carries on with the rest.
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from treebrain.errors import InputError, Location, Problem

_BOM = b"\xef\xbb\xbf"
_REPLACEMENT = "\ufffd"
_MAX_REPORTED = 20
_SURROGATE_RUN = re.compile("[\ud800-\udfff]+")


class DecodeProblem(BaseModel):
    """An invalid UTF-8 byte sequence and where it sits in the decoded text."""

    model_config = ConfigDict(frozen=True)

    line: int
    column: int
    message: str


class DecodedSource(BaseModel):
    """The program text and the problems met while decoding it."""

    model_config = ConfigDict(frozen=True)

    text: str
    problems: tuple[DecodeProblem, ...] = ()


def decode_source(data: bytes | str) -> DecodedSource:
    """Decode `data` as UTF-8; every run of invalid bytes becomes U+FFFD plus a located problem.

    Text given as ``str`` is checked too: lone surrogates (which cannot be written as UTF-8 or JSON)
    are replaced and reported the same way.
    """
    if isinstance(data, str):
        escaped = data.removeprefix("\ufeff")
    else:
        # surrogateescape maps each invalid byte to one lone surrogate, so one scan finds them all
        escaped = data.removeprefix(_BOM).decode("utf-8", errors="surrogateescape")
    runs = list(_SURROGATE_RUN.finditer(escaped))
    if not runs:
        return DecodedSource(text=escaped)
    text = _SURROGATE_RUN.sub(_REPLACEMENT, escaped)
    problems: list[DecodeProblem] = []
    line, position, shrink = 1, 0, 0
    for run in runs[:_MAX_REPORTED]:
        offset = run.start() - shrink  # where this run's U+FFFD sits in `text`
        shrink += len(run.group()) - 1
        line += text.count("\n", position, offset)
        position = offset
        column = offset - (text.rfind("\n", 0, offset) + 1) + 1
        problems.append(
            DecodeProblem(line=line, column=column, message=_describe(run.group(), isinstance(data, bytes)))
        )
    if len(runs) > _MAX_REPORTED:
        last = problems[-1]
        problems.append(
            DecodeProblem(
                line=last.line,
                column=last.column,
                message=f"{len(runs) - _MAX_REPORTED} more undecodable runs",
            )
        )
    return DecodedSource(text=text, problems=tuple(problems))


def _describe(run: str, from_bytes: bool) -> str:
    if from_bytes:
        raw = run.encode("utf-8", errors="surrogateescape")
        shown = raw[:8].hex(" ")
        return f"bytes that are not valid UTF-8: {shown}{' ...' if len(raw) > 8 else ''}"
    shown = " ".join(f"U+{ord(char):04X}" for char in run[:8])
    return f"lone surrogate characters: {shown}{' ...' if len(run) > 8 else ''}"


def read_program_file(path: str | Path) -> str:
    """A program file's text for the command line, where bad input must stop with exit code 2.

    Unlike :func:`decode_source` (which lets validation go on and report bad bytes as syntax
    findings), a file that cannot be read, holds NUL bytes (a binary file) or is not UTF-8 raises
    :class:`InputError` with the line and column of each problem.
    """
    file = Path(path)
    try:
        data = file.read_bytes()
    except IsADirectoryError:
        raise InputError.single("is a directory, expected a TDL program file", file) from None
    except OSError as error:
        raise InputError.single(f"cannot read the program: {error.strerror}", file) from None
    nul = data.find(b"\0")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        column = nul - (data.rfind(b"\n", 0, nul) + 1) + 1
        raise InputError.single("binary file (NUL byte): expected TDL program text", file, line, column)
    decoded = decode_source(data)
    if decoded.problems:
        raise InputError(
            [
                Problem(
                    Location(str(file), problem.line, problem.column), f"not UTF-8 text: {problem.message}"
                )
                for problem in decoded.problems
            ]
        )
    return decoded.text
