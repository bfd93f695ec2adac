"""Shared helpers for the TDL verification tree tests: robot files around the real trees, programs."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
TREES = REPO / "config" / "trees" / "tdl"

RobotMaker = Callable[..., Path]


@dataclass(frozen=True)
class VV:
    """Where the verifier's files are, a correct program with its instruction, and answer builders."""

    repo: Path = REPO
    trees: Path = TREES
    verifier: Path = REPO / "config" / "robots" / "vv.yaml"
    evaluator: Path = REPO / "config" / "robots" / "vv_eval.yaml"
    good: str = (REPO / "tests" / "tdl" / "programs" / "transfer_ok.tdl").read_text(encoding="utf-8")
    instruction: str = "Transfer the red box from table A to table B"

    @staticmethod
    def quick(verdict: str, confidence: int, reason: str = "checked") -> str:
        """A schema-valid quick-check answer."""
        return json.dumps({"verdict": verdict, "confidence": confidence, "brief_reason": reason})

    @staticmethod
    def detailed(
        verdict: str, confidence: int, failed: tuple[str, ...] = (), issues: tuple[str, ...] = ()
    ) -> str:
        """A schema-valid detailed analysis; `failed` names aspects (object, action, ...) that failed."""
        aspects = ("object", "action", "spatial", "temporal", "safety")
        return json.dumps(
            {
                "overall_verdict": verdict,
                "confidence": confidence,
                "detailed_analysis": {
                    f"{aspect}_validation": {
                        "status": "FAIL" if aspect in failed else "PASS",
                        "details": "seen",
                    }
                    for aspect in aspects
                },
                "issues_found": list(issues),
                "suggestions": ["slow down near the glass"] if failed else [],
            }
        )


@pytest.fixture(scope="session")
def vv() -> VV:
    return VV()


@pytest.fixture
def make_robot(tmp_path: Path) -> RobotMaker:
    """Write a verifier robot file running a real TDL tree with a scripted LLM playing `responses`."""

    def make(*responses: Any, tree: str = "verify.yaml", latency_s: float = 0.0, name: str = "robot") -> Path:
        robot = {
            "robot": "test_vv",
            "tree": str(TREES / tree),
            "llm": {
                "default": "script",
                "profiles": {
                    "script": {"provider": "scripted", "latency_s": latency_s, "responses": list(responses)}
                },
            },
        }
        path = tmp_path / f"{name}.yaml"
        path.write_text(yaml.safe_dump(robot, allow_unicode=True), encoding="utf-8")
        return path

    return make
