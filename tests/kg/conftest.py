"""Shared fixtures for the kitchen knowledge-graph tests: the real kitchen config, fresh graphs."""

from __future__ import annotations

from pathlib import Path

import pytest

from treebrain.kg.config import KitchenConfig, load_kitchen_config
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.vocabulary import Vocabulary

REPO = Path(__file__).resolve().parents[2]
KITCHEN_DIR = REPO / "config" / "kitchen"


@pytest.fixture(scope="session")
def kitchen_dir() -> Path:
    return KITCHEN_DIR


@pytest.fixture(scope="session")
def kitchen() -> KitchenConfig:
    return load_kitchen_config(KITCHEN_DIR / "kitchen.yaml")


@pytest.fixture(scope="session")
def vocabulary(kitchen: KitchenConfig) -> Vocabulary:
    return kitchen.vocabulary


@pytest.fixture
def kg(kitchen: KitchenConfig) -> KitchenGraph:
    return kitchen.new_graph()
