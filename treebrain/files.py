"""Safe file writing: every file treebrain writes is replaced atomically, never left half-written.

A crash (or a kill) during a write leaves either the old file or the new one, never a mix: the data
goes to a temporary file in the same directory, is flushed and fsynced, then renamed over the target.
A kill -9 mid-write can still leave that temporary file; its name carries the writer's process id,
so the next write of the same target removes the ones whose writer is gone (never a live writer's).
Writers that read-modify-write a shared file (learned memory, knowledge graphs) also hold
:func:`file_lock` so two processes cannot interleave their updates.
"""

from __future__ import annotations

import contextlib
import fcntl
import glob
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Replace `path` with `data` atomically (same-directory temp file, fsync, rename)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_orphans(target)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        Path(tmp_name).replace(target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            Path(tmp_name).unlink()
        raise
    dir_fd = os.open(target.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def _remove_orphans(target: Path) -> None:
    """Delete temporary files of `target` left by writers that were killed mid-write."""
    prefix = f".{target.name}."
    for candidate in target.parent.glob(f"{glob.escape(prefix)}*.tmp"):
        pid = candidate.name[len(prefix) :].split(".", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            with contextlib.suppress(FileNotFoundError):
                candidate.unlink()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def atomic_write_text(path: str | Path, text: str) -> None:
    """Replace `path` with UTF-8 `text` atomically."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: str | Path, data: Any, indent: int | None = 2) -> None:
    """Serialise `data` as JSON (UTF-8, keys kept in order) and replace `path` atomically."""
    atomic_write_text(path, json.dumps(data, indent=indent, ensure_ascii=False) + "\n")


@contextlib.contextmanager
def file_lock(path: str | Path) -> Iterator[None]:
    """Hold an exclusive advisory lock on `<path>.lock` for a read-modify-write of `path`."""
    lock_path = Path(f"{path}.lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open("a") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
