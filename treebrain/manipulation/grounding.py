"""Semantic grounding: the scene's names made readable (LIBERO's ``akita_black_bowl_1`` is a black
bowl, ``wooden_cabinet_1_top_region`` the top region of the wooden cabinet), the answer's schema
(the task's source object and target with a confidence, and any close alternatives, over the scene's
names only) and the judgement: a refusal, a clarification question when two candidates are within
the margin (or the robot file's rule), or the grounding the planner is given. Before any model is
asked, a task that names a thing nothing in the scene is called (a banana among milk and cereal) is
refused by the words alone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from treebrain.documents import load_located
from treebrain.manipulation.symbolic import Scene

OBJECT_TYPES = (
    "bowl", "plate", "mug", "cup", "drawer", "cabinet", "box", "can", "bottle", "ramekin", "basket", "tray",
    "pot", "stove", "microwave", "caddy", "rack", "book", "cheese", "butter", "milk", "bread", "cereal",
    "ketchup", "soup", "sauce", "pudding", "dressing", "juice", "cube", "bin", "mug", "frypan", "faucet",
)  # fmt: skip
COLORS = ("black", "white", "red", "blue", "green", "yellow", "brown", "porcelain")
MATERIALS = ("wooden", "metal", "plastic", "glass", "ceramic", "white_cabinet")
AmbiguityRule = Literal["ask", "most_confident"]


class GroundingSettings(BaseModel):
    """The robot file's ``manipulation.grounding`` section."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    margin: float = Field(default=0.15, ge=0.0, le=1.0)
    """Two candidates whose confidences differ by less than this are ambiguous."""
    ambiguity: AmbiguityRule = "ask"
    """ask: a clarification question and nothing executed; most_confident: take the higher one."""
    min_confidence: float = Field(default=0.5, ge=0.0, le=1.0)
    """A choice below this is asked about too."""
    object_words: str | None = None
    """A file of nouns for things people ask to be moved (relative to the robot file): a task naming
    one that nothing in the scene is called is refused before any model is asked."""


class ObjectWords(BaseModel):
    """``config/manipulation/object_words.yaml``: single lowercase nouns."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    words: list[Annotated[str, Field(pattern=r"^[a-z]+$")]] = Field(min_length=1)


@lru_cache(maxsize=8)
def load_object_words(path: Path) -> frozenset[str]:
    """The nouns of an object-words file (an InputError at the line of a bad entry)."""
    return frozenset(load_located(path, ObjectWords)[0].words)


def _words(text: str) -> list[str]:
    """Lowercase words of a name or a phrase: ``cubeA`` -> cube, a; ``bin_milk`` -> bin, milk."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])|[^A-Za-z]+", " ", text)
    return spaced.lower().split()


def _forms(word: str) -> set[str]:
    """A word and what it is without a plural ending (cookies -> cookie, boxes -> box)."""
    return {word, word.removesuffix("s"), word.removesuffix("es")}


def absent_things(task: str, scene: Scene, nouns: Collection[str]) -> list[str]:
    """The nouns of `nouns` the task names that nothing in the scene is called: no word of a name or
    description is that noun (singular or plural) or a compound ending in it (a frying "pan" is the
    scene's "frypan"), and it does not describe the next word ("soda can" is a can). "put the banana
    in the bin" in a scene without one gives ["banana"]."""

    def forms_of(texts: Collection[str]) -> set[str]:
        return {form for text in texts for word in _words(text) for form in _forms(word)}

    things = forms_of((*scene.objects, *scene.fixtures))
    present = things | forms_of((*scene.regions, *scene.descriptions.values()))

    def in_scene(word: str, known: set[str]) -> bool:
        return any(name.endswith(form) for name in known for form in _forms(word))

    said = _words(task)
    known_nouns = set(nouns)
    absent: list[str] = []
    for index, word in enumerate(said):
        named = sorted(_forms(word) & known_nouns)
        modifies_next = index + 1 < len(said) and in_scene(said[index + 1], things)  # "soda can"
        if named and named[0] not in absent and not modifies_next and not in_scene(word, present):
            absent.append(named[0])
    return absent


def absent_refusal(absent: list[str]) -> str:
    return f"there is no {' and no '.join(absent)} in the scene" if absent else ""


def describe_name(name: str, regions: Mapping[str, str] | None = None) -> dict[str, Any]:
    """A scene name in words: its type, colour, material and a description (``regions`` may give
    a region's own description)."""
    if regions and regions.get(name):
        return {"id": name, "description": regions[name]}
    words = [part for part in name.replace("-", "_").split("_") if part]
    instance = words.pop() if words and words[-1].isdigit() else "1"
    if "region" in words or "side" in words:
        owner_end = next((index for index, word in enumerate(words) if word.isdigit() or word == "table"), 0)
        owner = " ".join(word for word in words[: owner_end + 1] if not word.isdigit())
        place = " ".join(words[owner_end + 1 :])
        return {"id": name, "description": f"the {place} of the {owner}"}
    lowered = [word.lower() for word in words]
    found_type = next((word for word in reversed(lowered) if word in OBJECT_TYPES), None)
    color = next((word for word in lowered if word in COLORS), None)
    material = next((word for word in lowered if word in MATERIALS), None)
    rest = [word for word in words if word.lower() not in (color, material)]
    return {
        "id": name,
        "type": found_type,
        "color": color,
        "material": material,
        "description": " ".join(part for part in (color, material, *rest) if part),
        "instance": instance,
    }


def enrich(scene: Scene) -> dict[str, Any]:
    """The scene as the grounding prompt shows it."""
    objects = [describe_name(name) for name in scene.objects]
    places = [describe_name(name, scene.descriptions) for name in scene.regions if name not in scene.objects]
    return {"objects": objects, "places": places}


def grounding_schema(scene: Scene) -> dict[str, Any]:
    """The answer's JSON Schema: names only from the scene."""
    targets = list(dict.fromkeys((*scene.regions, *scene.objects)))
    candidate = {
        "type": "object",
        "properties": {
            "role": {"enum": ["source", "target"]},
            "name": {"enum": targets},
            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        },
        "required": ["role", "name", "confidence"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {
            "source": {"enum": [*scene.objects, ""]},
            "source_confidence": {"type": "number", "minimum": 0, "maximum": 1},
            "target": {"enum": [*targets, ""]},
            "target_confidence": {"type": "number", "minimum": 0, "maximum": 1},
            "alternatives": {"type": "array", "items": candidate, "maxItems": 6},
            "refusal": {"type": "string"},
        },
        "required": ["source", "source_confidence", "target", "target_confidence", "alternatives", "refusal"],
        "additionalProperties": False,
    }


GROUNDING_PROMPT = """You are a robot perception assistant.

Task: {task}

The scene:
{scene}

Which object is to be moved ("source") and where it goes ("target": a place or another object)?
Give each with your confidence (0 to 1). If another name could also be meant, list it in
"alternatives" with its confidence. If the task names something that is not in the scene, is
impossible or contradicts itself, leave source and target empty and say why in "refusal".
Answer only JSON."""


def grounding_prompt(task: str, scene: Scene) -> str:
    return GROUNDING_PROMPT.format(task=task.strip(), scene=json.dumps(enrich(scene), indent=2))


class Grounding(BaseModel):
    """What the task refers to, or why it cannot be done as asked."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source: str = ""
    target: str = ""
    question: str = ""
    """A clarification to ask (then nothing is executed)."""
    refusal: str = ""
    issues: list[str] = []
    """Why the answer could not be used (then it is asked again)."""

    @property
    def usable(self) -> bool:
        return bool(self.source and self.target) and not (self.question or self.refusal or self.issues)

    def for_planner(self) -> str:
        return f"{self.source} is the object to move; it goes to {self.target}."


def _rival(answer: Mapping[str, Any], role: str, chosen: str, confidence: float, margin: float) -> str | None:
    for alternative in answer.get("alternatives") or []:
        if (
            alternative.get("role") == role
            and alternative.get("name") != chosen
            and confidence - float(alternative.get("confidence", 0.0)) < margin
        ):
            return str(alternative["name"])
    return None


def judge_grounding(answer: Any, scene: Scene, settings: GroundingSettings) -> Grounding:
    """The grounding an answer gives, with the robot file's rule for ambiguity applied."""
    if not isinstance(answer, Mapping):
        return Grounding(issues=["the answer is not a JSON object with source and target"])
    refusal = str(answer.get("refusal") or "").strip()
    if refusal:
        return Grounding(refusal=f"the task cannot be grounded: {refusal}")
    source, target = str(answer.get("source") or ""), str(answer.get("target") or "")
    issues = []
    if source not in scene.objects:
        issues.append(f"source {source!r} is not an object of the scene ({', '.join(scene.objects)})")
    if target not in (*scene.regions, *scene.objects) or target == source:
        issues.append(f"target {target!r} is not another object or a place of the scene")
    if issues:
        return Grounding(source=source, target=target, issues=issues)
    questions = []
    for role, chosen in (("source", source), ("target", target)):
        confidence = float(answer.get(f"{role}_confidence", 0.0))
        rival = _rival(answer, role, chosen, confidence, settings.margin)
        if settings.ambiguity == "ask" and rival is not None:
            questions.append(f"Do you mean {chosen} or {rival}?")
        elif confidence < settings.min_confidence:
            questions.append(
                f"Is {chosen} the {'object to move' if role == 'source' else 'place to put it'}?"
            )
    return Grounding(source=source, target=target, question=" ".join(questions))
