"""What the ``treebrain`` process guards for every command: no secret on stdout, stderr or in a log
record, no argument that is not text, and SIGTERM handled like Ctrl-C -- the tree is halted (every
running action sent its stop) and the recording closed -- with the conventional exit code.
"""

from __future__ import annotations

import contextlib
import io
import logging
import signal
import sys
import traceback
from collections.abc import Iterator, Sequence
from types import FrameType
from typing import Any, TextIO

from treebrain.errors import InputError
from treebrain.secrets import redact

SIGNAL_EXIT_CODES: dict[int, int] = {signal.SIGINT: 130, signal.SIGTERM: 143}


class RedactingStream(io.TextIOBase):
    """A text stream that writes through :func:`~treebrain.secrets.redact`."""

    def __init__(self, inner: TextIO) -> None:
        self.inner = inner

    def write(self, text: str) -> int:
        self.inner.write(redact(text))
        return len(text)

    def flush(self) -> None:
        self.inner.flush()

    def isatty(self) -> bool:
        return self.inner.isatty()

    def fileno(self) -> int:
        return self.inner.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self.inner.encoding

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@contextlib.contextmanager
def redacted_output() -> Iterator[None]:
    """stdout and stderr pass through the redaction while the command runs; log records are redacted
    when they are made (their message and any traceback)."""
    _redact_log_records()
    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = RedactingStream(sys.stdout), RedactingStream(sys.stderr)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = streams


def _redact_log_records() -> None:
    make = logging.getLogRecordFactory()
    if getattr(make, "redacts", False):
        return

    def redacting(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = make(*args, **kwargs)
        message = record.getMessage()
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, ()
        if record.exc_info and record.exc_info[0] is not None:
            record.exc_text = redact("".join(traceback.format_exception(*record.exc_info)).rstrip("\n"))
        return record

    redacting.redacts = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(redacting)


def check_arguments(arguments: Sequence[str]) -> None:
    """Every argument must be text: a byte that is not UTF-8 is bad input, said plainly."""
    for number, argument in enumerate(arguments, start=1):
        try:
            argument.encode("utf-8")
        except UnicodeEncodeError as error:
            raw = argument[error.start]
            byte = ord(raw) - 0xDC00 if 0xDC80 <= ord(raw) <= 0xDCFF else ord(raw)
            what = f"byte 0x{byte:02x}" if byte < 0x100 else f"character U+{ord(raw):04X}"
            raise InputError.single(
                f"argument {number} is not valid UTF-8 text ({what})", "<command line>"
            ) from None


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled like Ctrl-C: whatever runs halts the tree and closes its recording."""


@contextlib.contextmanager
def signals_halt() -> Iterator[list[int]]:
    """SIGTERM raises :class:`Terminated` in the main thread; the list holds the signals received."""
    received: list[int] = []

    def terminate(number: int, frame: FrameType | None) -> None:
        received.append(number)
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield received
    finally:
        signal.signal(signal.SIGTERM, previous)
