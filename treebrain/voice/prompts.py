"""Prompt builders for the three passes: system text, user text, JSON Schema, temperature, budget.

Templates are Jinja2 files in ``config/voice/prompts``. The generation system prompt depends only
on the instruction set, so it is rendered once and stays byte-identical between commands (a
provider can cache it); everything that changes per command (the scene, recovery and learning
hints, the creative axes, a pass-3 CORRECTION section, the command) goes in the user text.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import jinja2
from pydantic import BaseModel, ConfigDict, Field

from treebrain.errors import InputError
from treebrain.robots.arm.workcell import ArmScene
from treebrain.voice.brief import brief_grammar
from treebrain.voice.classify import Classification
from treebrain.voice.creative import CreativeAssignment
from treebrain.voice.isa import InstructionSet
from treebrain.voice.request import describe_request
from treebrain.voice.schemas import generation_schema, verdict_schema
from treebrain.voice.steps import Step, steps_to_json

if TYPE_CHECKING:
    from treebrain.voice.examples import Example

Purpose = Literal["generate", "validate", "regenerate"]
MAX_SAMPLES = 5
"""The tree's retry around pass 3 (three_passes.yaml) allows this many answers."""
TEMPLATE_NAMES = ("generate.system.j2", "generate.user.j2", "validate.system.j2", "validate.user.j2")


class PassSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    temperature: float = Field(default=0.0, ge=0, le=2)
    max_tokens: int = Field(gt=0)


class PromptSettings(BaseModel):
    """Sampling per pass, as in the design: deterministic except creative generation."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    generate: PassSettings = PassSettings(max_tokens=900)
    creative_temperature: float = Field(default=1.0, ge=0, le=2)
    creative_max_tokens: int | None = Field(default=None, gt=0)
    """A creative answer's budget (passes 1 and 3) when its plans run longer than a command's (three
    zones of layers); None: the pass's own."""
    validate_pass: PassSettings = Field(default=PassSettings(max_tokens=700), alias="validate")
    regenerate: PassSettings = PassSettings(max_tokens=900)
    constrain_names: bool = True
    """Enums for names in the output schemas (see :mod:`treebrain.voice.schemas` for the trade-off)."""
    samples: int = Field(default=1, ge=1, le=MAX_SAMPLES)
    """Answers per pass at most: pass 3's first at the regenerate temperature with the corrections, the
    others sampled at `sample_temperature` until one passes every validator (self-check by agreement);
    pass 1 samples only after an answer that could not be read."""
    sample_temperature: float = Field(default=0.8, ge=0, le=2)
    sample_budget_s: float = Field(default=30.0, gt=0)
    """No new sample (of pass 1 or pass 3) starts once this long has passed since the command's first
    answer was asked for; pass 3's first answer is always asked for."""
    brief_grammar: bool = False
    """A creative plan's sequence schema carries its brief as a grammar (:mod:`treebrain.voice.brief`),
    for a provider that decodes under one (the local model); cloud APIs would be sent an unknown keyword."""


class PromptRequest(BaseModel):
    """One LLM call to make; ``purpose`` and ``command`` are for records, not sent."""

    model_config = ConfigDict(frozen=True)

    purpose: Purpose
    command: str
    system: str
    user: str
    json_schema: dict[str, Any]
    temperature: float
    max_tokens: int


class PromptBuilder:
    """Templates and schemas for one instruction set."""

    def __init__(self, templates_dir: str | Path, iset: InstructionSet, settings: PromptSettings) -> None:
        self.iset = iset
        self.settings = settings
        self._templates = _load_templates(Path(templates_dir))
        self._generation_schema = generation_schema(iset, settings.constrain_names)
        self._verdict_schema = verdict_schema(iset, settings.constrain_names)
        self.generate_system = self._templates["generate.system.j2"].render(**_cell_context(iset))
        self.validate_system = self._templates["validate.system.j2"].render(
            valid_composites=iset.valid_composites(),
            valid_items=iset.valid_items(),
            valid_locations=iset.valid_locations(),
            valid_zones=iset.valid_zones(),
            directions=iset.directions,
        )

    def generate(
        self,
        command: str,
        classification: Classification,
        *,
        scene: ArmScene | None = None,
        active_zone: str | None = None,
        creative: CreativeAssignment | None = None,
        corrections: list[str] | None = None,
        examples: Sequence[Example] = (),
        temperature: float | None = None,
    ) -> PromptRequest:
        """Pass 1, or pass 3 when `corrections` (the pass-2 issues) are given; `examples` are known
        commands with their plans (few-shot), `temperature` overrides the pass's own (sampling)."""
        user = self._templates["generate.user.j2"].render(
            command=command,
            examples=[
                {"command": example.command, "plan": json.dumps(steps_to_json(example.sequence))}
                for example in examples
            ],
            corrections=corrections or [],
            recovery_hint=classification.recovery_hint,
            learning=classification.is_learning,
            learned_phrase=classification.learned_phrase,
            requirements=describe_request(classification.request),
            creative=creative,
            creative_prefix=creative.reasoning_prefix() if creative else "",
            **_scene_context(self.iset, scene, active_zone),
        )
        if corrections:
            purpose: Purpose = "regenerate"
            settings = self.settings.regenerate
            chosen = settings.temperature
        else:
            purpose = "generate"
            settings = self.settings.generate
            chosen = self.settings.creative_temperature if creative else settings.temperature
        return PromptRequest(
            purpose=purpose,
            command=command,
            system=self.generate_system,
            user=user,
            json_schema=self._answer_schema(creative, scene),
            temperature=chosen if temperature is None else temperature,
            max_tokens=(creative and self.settings.creative_max_tokens) or settings.max_tokens,
        )

    def _answer_schema(self, creative: CreativeAssignment | None, scene: ArmScene | None) -> dict[str, Any]:
        """The generation schema; a creative one's sequence under its brief's grammar when the settings
        ask for it (with the scene's stock when the scene is known)."""
        if creative is None or not self.settings.brief_grammar:
            return self._generation_schema
        stock = scene.stacks if scene is not None and scene.objects_known else None
        grammar = brief_grammar(creative, self.iset.valid_items(), self.iset.valid_zones(), stock)
        if grammar is None:
            return self._generation_schema
        properties = self._generation_schema["properties"]
        return {
            **self._generation_schema,
            "properties": {**properties, "sequence": grammar.attach(properties["sequence"])},
        }

    def validate(self, command: str, interpretation: str, sequence: list[Step]) -> PromptRequest:
        """Pass 2: the LLM validator reviews the pass-1 sequence."""
        user = self._templates["validate.user.j2"].render(
            command=command,
            interpretation=interpretation,
            sequence_json=json.dumps(steps_to_json(sequence), indent=1),
        )
        settings = self.settings.validate_pass
        return PromptRequest(
            purpose="validate",
            command=command,
            system=self.validate_system,
            user=user,
            json_schema=self._verdict_schema,
            temperature=settings.temperature,
            max_tokens=settings.max_tokens,
        )


def _load_templates(directory: Path) -> dict[str, jinja2.Template]:
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(directory),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=False,
        autoescape=False,
    )
    templates: dict[str, jinja2.Template] = {}
    problems: list[InputError] = []
    for name in TEMPLATE_NAMES:
        try:
            templates[name] = environment.get_template(name)
        except jinja2.TemplateNotFound:
            problems.append(InputError.single("prompt template is missing", directory / name))
        except jinja2.TemplateSyntaxError as error:
            problems.append(
                InputError.single(f"template syntax error: {error.message}", directory / name, error.lineno)
            )
    if problems:
        raise InputError([problem for error in problems for problem in error.problems])
    return templates


def _cell_context(iset: InstructionSet) -> dict[str, Any]:
    composites = [
        {
            "name": name,
            "description": composite.description,
            "params": [
                f"{key}: {spec.kind}" + ("" if spec.required else f" = {spec.default!r}")
                for key, spec in composite.params.items()
            ],
        }
        for name, composite in iset.composites.items()
    ]
    return {
        "composites": composites,
        "learned": list(iset.learned_composites),
        "items": iset.valid_items(),
        "locations": iset.valid_locations(),
        "zones": [{"name": name, "aliases": zone.aliases} for name, zone in iset.assembly_zones.items()],
        "default_zone": iset.default_zone,
        "speed_profiles": iset.speed_profiles,
        "distance_aliases": iset.distance_aliases,
        "directions": iset.directions,
    }


def _scene_context(iset: InstructionSet, scene: ArmScene | None, active_zone: str | None) -> dict[str, Any]:
    known = scene is not None and scene.objects_known
    return {
        "active_zone": active_zone or iset.default_zone,
        "held": scene.held if known and scene else None,
        "zone_layers": {
            zone: (scene.zones.get(zone, []) if known and scene else []) for zone in iset.assembly_zones
        },
        "stacks": scene.stacks if known and scene else {},
    }
