"""Shared fixtures for the kitchen knowledge-graph tests: the real kitchen config, fresh graphs."""

from __future__ import annotations

from pathlib import Path

import pytest

from treebrain.kg.config import KitchenConfig, load_kitchen_config
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import Interaction, OutcomeKind
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


def entry(narration_id: str, start: float, text: str, outcome: OutcomeKind, note: str = "") -> Interaction:
    """A history entry citing its narration (one second long, the text's first word as the action)."""
    return Interaction(
        narration_id=narration_id,
        start=start,
        end=start + 1,
        action=text.split(maxsplit=1)[0],
        narration=text,
        outcome=outcome,
        note=note,
    )
