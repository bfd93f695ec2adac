"""Where the TDL data files (command set, robot specs, rule table, few-shot examples) live.

Reading and validating them, with every problem located, is :mod:`treebrain.documents`' job.
"""

from __future__ import annotations

from pathlib import Path


def default_config_dir() -> Path:
    """`config/tdl` of the source checkout this package runs from."""
    return Path(__file__).resolve().parents[2] / "config" / "tdl"
