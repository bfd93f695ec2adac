"""What the hostile suite's tests share: a minimal tree (files come from the suite-wide `write`)."""

from __future__ import annotations

TREE = """
version: 1
root: {type: wait, name: pause, params: {seconds: 0.1}}
"""
