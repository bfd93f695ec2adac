"""The kitchen pipeline's configuration bundle (``config/kitchen/kitchen.yaml``), loaded once.

It ties together the vocabulary files (and a dataset's class files, when given), the prompt
templates, the few-shot examples, the narration column mapping and the retrieval, retry and query
settings. Each few-shot example describes a small graph; loading builds that graph, runs the real
extraction, retrieval and validator on the example, and renders it with the real request template,
so an example can never drift from what the pipeline does (an example answer the validator would
reject is a located load error).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import Field

from treebrain.documents import Document, load_model, read_document
from treebrain.errors import InputError, Problem
from treebrain.kg.extraction import extract_entities
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import ChatMessage, Frozen, HandSlot, Interaction, Narration
from treebrain.kg.narrations import ColumnMapping
from treebrain.kg.places import PlaceResolver
from treebrain.kg.prompting import PromptTemplates, Shot, load_templates, render_request
from treebrain.kg.retrieval import RetrievalSettings, retrieve_candidates
from treebrain.kg.validation import validate_update
from treebrain.kg.vocabulary import Vocabulary, VocabularyFiles, load_vocabulary

T = TypeVar("T")


class VocabularyNames(Frozen):
    verbs: str = "verbs.yaml"
    foods: str = "foods.yaml"
    locations: str = "locations.yaml"
    nouns: str = "nouns.yaml"


class ClassFiles(Frozen):
    """A dataset's verb and noun class files (EPIC-KITCHENS' ``EPIC_100_*_classes.csv``), if any."""

    verbs: str | None = None
    nouns: str | None = None


class KitchenFile(Frozen):
    """``kitchen.yaml``; paths are relative to the file itself."""

    vocabulary: VocabularyNames = VocabularyNames()
    dataset_classes: ClassFiles = ClassFiles()
    few_shot: str = "few_shot.yaml"
    few_shot_count: int = Field(default=2, ge=0, le=10)
    prompts: str = "prompts"
    narration_columns: ColumnMapping = ColumnMapping()
    retrieval: RetrievalSettings = RetrievalSettings()
    max_attempts: int = Field(default=3, ge=1, le=10)
    open_states: list[str] = Field(default=["open", "on"], min_length=1)


class ExampleFood(Frozen):
    """A food in a few-shot example's graph: at a zone (by name) or in a hand."""

    food_id: str = Field(pattern=r"^food_[a-z0-9_]+_[0-9]+$")
    name: str
    state: str = "unknown"
    quantity: str = "unknown"
    zone: str | None = None
    hand: HandSlot | None = None
    history: list[Interaction] = []


class FewShotExample(Frozen):
    title: str
    narration: Narration
    foods: list[ExampleFood] = []
    answer: dict[str, Any]


class FewShotFile(Frozen):
    examples: list[FewShotExample] = Field(min_length=1)


@dataclass(frozen=True)
class KitchenConfig:
    """Everything the kitchen stage functions need besides the graph and the narration."""

    vocabulary: Vocabulary
    templates: PromptTemplates
    examples: tuple[FewShotExample, ...]
    shots: tuple[Shot, ...]
    few_shot_count: int
    columns: ColumnMapping
    retrieval: RetrievalSettings
    max_attempts: int
    open_states: tuple[str, ...]

    def new_graph(self) -> KitchenGraph:
        """An empty graph that folds food synonyms the way this kitchen's vocabulary does."""
        return KitchenGraph(self.vocabulary.names)


def load_kitchen_config(
    path: str | Path, dataset_classes: tuple[Path | None, Path | None] | None = None
) -> KitchenConfig:
    """Load ``kitchen.yaml`` and everything it names; InputError lists every problem found.

    `dataset_classes` (verb class file, noun class file) replaces the file's ``dataset_classes``.
    """
    settings = load_model(path, KitchenFile)
    base = Path(path).parent
    named = settings.dataset_classes
    verb_classes, noun_classes = dataset_classes or (
        base / named.verbs if named.verbs else None,
        base / named.nouns if named.nouns else None,
    )
    files = VocabularyFiles(
        verbs=base / settings.vocabulary.verbs,
        foods=base / settings.vocabulary.foods,
        locations=base / settings.vocabulary.locations,
        nouns=base / settings.vocabulary.nouns,
        verb_classes=verb_classes,
        noun_classes=noun_classes,
    )
    problems: list[Problem] = []
    vocabulary = _collect(problems, lambda: load_vocabulary(files))
    templates = _collect(problems, lambda: load_templates(base / settings.prompts))
    few_shot = _collect(problems, lambda: read_document(base / settings.few_shot))
    if vocabulary is None or templates is None or few_shot is None:
        raise InputError(problems)
    examples = few_shot.validated(FewShotFile).examples
    shots = [
        _shot(example, vocabulary, templates, settings.retrieval, few_shot, index, problems)
        for index, example in enumerate(examples)
    ]
    if problems:
        raise InputError(problems)
    return KitchenConfig(
        vocabulary=vocabulary,
        templates=templates,
        examples=tuple(examples),
        shots=tuple(shots),
        few_shot_count=settings.few_shot_count,
        columns=settings.narration_columns,
        retrieval=settings.retrieval,
        max_attempts=settings.max_attempts,
        open_states=tuple(settings.open_states),
    )


def _collect(problems: list[Problem], load: Callable[[], T]) -> T | None:
    """Run one loader, moving its problems into `problems` so all files are checked in one pass."""
    try:
        return load()
    except InputError as error:
        problems.extend(error.problems)
        return None


def example_graph(example: FewShotExample, vocabulary: Vocabulary) -> KitchenGraph:
    """The small graph a few-shot example describes."""
    kg = KitchenGraph(vocabulary.names)
    places = PlaceResolver(kg, vocabulary)
    for food in example.foods:
        before = example.narration.start
        attributes = {
            "name": food.name,
            "state": food.state,
            "quantity": food.quantity,
            "first_seen": min((entry.start for entry in food.history), default=before),
            "last_seen": max((entry.end for entry in food.history), default=before),
            "hand": food.hand,
            "last_zone": None,
            "history": list(food.history),
        }
        kg.restore_food(food.food_id, attributes)
        if food.zone:
            kg.put_at(food.food_id, places.place(food.zone))
    return kg


def _shot(
    example: FewShotExample,
    vocabulary: Vocabulary,
    templates: PromptTemplates,
    settings: RetrievalSettings,
    source: Document,
    index: int,
    problems: list[Problem],
) -> Shot:
    kg = example_graph(example, vocabulary)
    extraction = extract_entities(example.narration.text, vocabulary)
    retrieval = retrieve_candidates(kg, extraction, settings)
    check = validate_update(example.answer, example.narration, extraction, retrieval, kg, vocabulary)
    for error in check.errors:
        problems.append(
            source.problem_at(("examples", index, "answer"), f"the validator rejects this answer: {error}")
        )
    request = render_request(templates, example.narration, extraction, retrieval)
    answer = json.dumps(example.answer, ensure_ascii=False)
    return Shot(
        title=example.title,
        request=ChatMessage(role="user", content=request),
        answer=ChatMessage(role="assistant", content=answer),
        verb_type=extraction.verb_type,
        first_sighting=not retrieval.matching(),
        words=frozenset(example.narration.text.lower().split()),
    )
