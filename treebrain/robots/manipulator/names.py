"""Canonical object names: the simulator's body and observation names reduced to the object's own.

robosuite names one object ``Can`` in its observations (``Can_pos``), ``Can_main`` as a body and
``Can_g0`` as a geom; the canonical name is ``Can``, and the raw body name is kept beside it.
"""

from __future__ import annotations

import re

_SUFFIX = re.compile(r"(_main|_g\d+|_pos|_quat|_joint\d*)$")


def canonical_name(raw: str) -> str:
    """``Can_main`` -> ``Can``; ``cubeA_main`` -> ``cubeA``; ``VisualCan`` -> ``Can``."""
    name = raw
    while True:
        stripped = _SUFFIX.sub("", name)
        if stripped == name:
            break
        name = stripped
    if name.startswith("Visual") and len(name) > len("Visual"):
        name = name[len("Visual") :]
    return name
