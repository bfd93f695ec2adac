"""robosuite's private macro file, written the way robosuite's own ``scripts/setup_macros.py``
does (a copy of ``macros.py``), with its console logging at ERROR so importing robosuite prints
nothing about optional packages we do not use. ``make`` runs ``python -m
treebrain.robots.manipulator.macros`` once after installing the ``sim`` extra.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

from treebrain.files import atomic_write_text

LEVEL = re.compile(r'^CONSOLE_LOGGING_LEVEL = ".*"$', re.MULTILINE)


def write_private_macros() -> Path:
    """Write (or fix) ``robosuite/macros_private.py``; robosuite is located, never imported."""
    spec = importlib.util.find_spec("robosuite")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("robosuite is not installed: pip install -e '.[sim]'")
    package = Path(next(iter(spec.submodule_search_locations)))
    private = package / "macros_private.py"
    source = private if private.exists() else package / "macros.py"
    text = source.read_text(encoding="utf-8")
    fixed, count = LEVEL.subn('CONSOLE_LOGGING_LEVEL = "ERROR"', text)
    if count != 1:
        raise SystemExit(f"{source}: no CONSOLE_LOGGING_LEVEL line to set")
    if fixed != text or not private.exists():
        atomic_write_text(private, fixed)
    return private


if __name__ == "__main__":
    print(f"robosuite macros: {write_private_macros()}", file=sys.stderr)
