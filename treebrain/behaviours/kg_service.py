"""What the kitchen leaves of one tree share: the kitchen config and the live knowledge graph.

The graph is a mutable networkx-backed object, so it lives in a per-tree service rather than on
the blackboard; leaves put JSON-safe views of it (extraction, retrieval, update, report) there. The
robot file says where things are, as the parameters of its "driver" (the graph is what the kitchen
leaves act on)::

    driver:
      type: kitchen_graph
      params: {kitchen: ../kitchen/kitchen.yaml, kg: ../../runs/kitchen/kg.json}

Also here: the stand-in LLM that answers from the kitchen's scripted answers by narration id, so
the tree can run the labelled evaluation set exactly like the plain loop does.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError

from treebrain.behaviours.base import Params, resolve_relative
from treebrain.behaviours.context import RobotSettings, TreeContext
from treebrain.errors import InputError, Location, Problem
from treebrain.kg.config import KitchenConfig, load_kitchen_config
from treebrain.kg.eval_set import ScriptedAnswers, load_scripted_answers
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.persistence import load_graph, save_graph
from treebrain.llm import (
    LLMError,
    LLMErrorKind,
    LLMRequest,
    LLMResponse,
    LLMSection,
    Provider,
    build_provider,
)
from treebrain.llm.context import CallContext
from treebrain.llm.profiles import ScriptedProfile
from treebrain.llm.providers.scripted import ScriptedEntry, ScriptedProvider

DRIVER_TYPE = "kitchen_graph"


class KitchenSettings(Params):
    """The kitchen robot's ``driver.params``; paths are relative to the robot file."""

    kitchen: str = Field(description="kitchen.yaml: vocabulary, prompts, few-shot examples, attempts")
    kg: str | None = Field(
        None, description="the graph file: loaded when the tree starts (if it exists), saved by kg ingest"
    )


@dataclass(frozen=True)
class KitchenPaths:
    kitchen: Path
    kg: Path | None


def kitchen_paths(robot: RobotSettings) -> KitchenPaths:
    """Where the robot's kitchen config and graph file are; InputError naming the robot file if unclear."""
    where = Location(str(robot.file or "<robot>"))
    expected = f"driver: {{type: {DRIVER_TYPE}, params: {{kitchen: <kitchen.yaml>, kg: <graph file>}}}}"
    if robot.driver.get("type") != DRIVER_TYPE:
        found = robot.driver.get("type")
        raise InputError([Problem(where, f"driver.type is {found!r}; the kitchen tree needs {expected}")])
    try:
        settings = KitchenSettings.model_validate(robot.driver.get("params") or {})
    except ValidationError as error:
        problems = [
            Problem(where, f"driver.params.{'.'.join(map(str, detail['loc']))}: {detail['msg']} ({expected})")
            for detail in error.errors()
        ]
        raise InputError(problems) from None
    kg = resolve_relative(robot.file, settings.kg, robot) if settings.kg else None
    return KitchenPaths(resolve_relative(robot.file, settings.kitchen, robot), kg)


class KitchenGraphService:
    """The kitchen config and the graph the leaves of one tree read and update."""

    def __init__(
        self, config: KitchenConfig, kg: KitchenGraph, kg_path: Path | None, kitchen_file: Path
    ) -> None:
        self.config = config
        self.kg = kg
        self.kg_path = kg_path
        self.kitchen_file = kitchen_file
        self.load_warnings: list[str] = []

    @classmethod
    def from_context(cls, context: TreeContext) -> KitchenGraphService:
        paths = kitchen_paths(context.robot)
        return cls.open(paths.kitchen, paths.kg)

    @classmethod
    def open(cls, kitchen: Path, kg_path: Path | None, *, require_graph: bool = False) -> KitchenGraphService:
        """Load the config, and the graph file when it exists (else start an empty graph).

        With `require_graph` a missing file is an error: a query of a graph that was never saved.
        """
        config = load_kitchen_config(kitchen)
        if kg_path is None or not kg_path.exists():
            if require_graph:
                message = "no knowledge graph file here; run `treebrain kg ingest` first or pass --kg"
                raise InputError.single(message, kg_path or "<no graph file>")
            return cls(config, config.new_graph(), kg_path, kitchen)
        loaded = load_graph(kg_path, config.vocabulary.names)
        service = cls(config, loaded.kg, kg_path, kitchen)
        service.load_warnings = loaded.warnings
        return service

    def save(self) -> Path:
        """Write the graph to its file atomically under the file's lock (persistence.save_graph)."""
        if self.kg_path is None:
            raise InputError.single("no graph file to save to: set driver.params.kg or pass --kg", "<kg>")
        save_graph(self.kg, self.kg_path)
        return self.kg_path

    def close(self) -> None:
        """Nothing to release: saving is explicit, so a test or a failed run never writes by accident."""


def answer_text(answer: object) -> str:
    """A scripted answer as the text a model would send (JSON for anything but text)."""
    return answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)


class NarrationScript:
    """An LLM provider for tests and evaluations: each narration's calls get that narration's
    scripted answers in attempt order (never repeated; running out is an ``exhausted`` error)."""

    name = "scripted"

    def __init__(self, answers: ScriptedAnswers, profile: ScriptedProfile) -> None:
        self.answers = answers
        self.profile = profile
        self.model = profile.model
        self.timeout_s = profile.timeout_s
        self._current: ScriptedProvider | None = None
        self._narration = ""

    def begin(self, narration_id: str) -> None:
        """Serve the answers of this narration from now on (call between narrations)."""
        entries = [
            ScriptedEntry(text=answer_text(answer)) for answer in self.answers.answers_for(narration_id)
        ]
        self._current = ScriptedProvider(
            entries, latency_s=self.profile.latency_s, model=self.model, timeout_s=self.timeout_s
        )
        self._narration = narration_id

    def complete(self, request: LLMRequest, context: CallContext) -> LLMResponse:
        if self._current is None:
            raise LLMError(LLMErrorKind.EXHAUSTED, "no narration has begun, so there is no scripted answer")
        try:
            return self._current.complete(request, context)
        except LLMError as error:
            if error.kind is not LLMErrorKind.EXHAUSTED:
                raise
            message = f"no scripted answer left for narration {self._narration!r}"
            raise LLMError(LLMErrorKind.EXHAUSTED, message) from None

    def close(self) -> None:
        """Nothing to release."""


ProviderFactory = Callable[[str, LLMSection, Path], Provider]


@dataclass
class KitchenProviders:
    """Builds the tree's LLM providers. A ``scripted`` profile with no script of its own answers
    from the kitchen's scripted answers (by narration id), read from `answers` when first needed."""

    answers: Path
    scripts: list[NarrationScript] = field(default_factory=list)
    narration_id: str | None = None

    def __call__(self, name: str, section: LLMSection, base_dir: Path) -> Provider:
        profile: Any = section.profiles.get(name)
        if isinstance(profile, ScriptedProfile) and not profile.responses and profile.responses_file is None:
            script = NarrationScript(load_scripted_answers(self.answers), profile)
            if self.narration_id is not None:
                script.begin(self.narration_id)
            self.scripts.append(script)
            return script
        return build_provider(name, section, base_dir=base_dir)

    def begin(self, narration_id: str) -> None:
        """A new narration starts: scripts built now or later answer for it."""
        self.narration_id = narration_id
        for script in self.scripts:
            script.begin(narration_id)
