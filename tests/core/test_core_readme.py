"""The README's examples work as written."""

from __future__ import annotations

from pathlib import Path

from treebrain.testing import TreeHarness

REPO = Path(__file__).resolve().parents[2]


def test_readme_harness_example():
    harness = TreeHarness.from_file(
        REPO / "config/robots/demo_bot.yaml", stubs={"root/*/leg": ["RUNNING", "SUCCESS"]}
    )
    harness.assert_ticks([{"root": "RUNNING"}, {"root/patrol_rounds": "RUNNING"}])
    harness.assert_blackboard({"/battery/level": 0.5})


def test_readme_documents_both_setup_commands():
    readme = (REPO / "README.md").read_text()
    quick_start = readme.split("## Quick start", 1)[1].split("##", 1)[0]
    assert "make demo" in quick_start and "make test" in quick_start
