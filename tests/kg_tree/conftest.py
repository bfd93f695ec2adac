"""Shared helpers for the kitchen tree tests: robot files around the real tree, answers, graphs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from treebrain.kg.config import KitchenConfig, load_kitchen_config

REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class KitchenFiles:
    """Where the kitchen pipeline's files are in the repository."""

    repo: Path = REPO
    robot: Path = REPO / "config" / "robots" / "kitchen.yaml"
    tree: Path = REPO / "config" / "trees" / "kitchen" / "narration_to_kg.yaml"
    retries: Path = REPO / "config" / "trees" / "kitchen" / "update_with_retries.yaml"
    schemas: Path = REPO / "config" / "trees" / "kitchen" / "schemas"
    kitchen: Path = REPO / "config" / "kitchen" / "kitchen.yaml"
    scenarios: Path = REPO / "config" / "kitchen" / "eval" / "scenarios"
    answers: Path = REPO / "config" / "kitchen" / "eval" / "scripted_answers.jsonl"
    sample_csv: Path = REPO / "config" / "kitchen" / "samples" / "breakfast_narrations.csv"


FILES = KitchenFiles()
RobotMaker = Callable[..., Path]


@pytest.fixture(scope="session")
def files() -> KitchenFiles:
    return FILES


@pytest.fixture(scope="session")
def kitchen_config() -> KitchenConfig:
    return load_kitchen_config(FILES.kitchen)


@pytest.fixture
def make_robot(tmp_path: Path) -> RobotMaker:
    """Write a robot file running the real kitchen tree with a scripted LLM playing `responses`."""

    def make(*responses: Any, kg: Path | None = None, **sections: Any) -> Path:
        params: dict[str, Any] = {"kitchen": str(FILES.kitchen)}
        if kg is not None:
            params["kg"] = str(kg)
        robot = {
            "robot": "test_kitchen",
            "tree": str(FILES.tree),
            "driver": {"type": "kitchen_graph", "params": params},
            "llm": {
                "default": "script",
                "profiles": {"script": {"provider": "scripted", "responses": list(responses)}},
            },
            **sections,
        }
        path = tmp_path / "robot.yaml"
        path.write_text(yaml.safe_dump(robot), encoding="utf-8")
        return path

    return make
