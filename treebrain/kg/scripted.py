"""Stand-in LLM providers that answer from the kitchen's scripted answers by narration id, so the
tree runs the labelled evaluation set exactly like the plain loop does, with no model."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from treebrain.kg.eval_set import ScriptedAnswers, load_scripted_answers
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
