"""Semantic grounding: the scene's names made readable (LIBERO's ``akita_black_bowl_1`` is a black
bowl, ``wooden_cabinet_1_top_region`` the top region of the wooden cabinet), the answer's schema
(a decision first: the task's source object and target with a confidence and a close other, over the
scene's names only, or a refusal in a few words) and the judgement: a refusal, a clarification
question when two candidates are within the margin (or the robot file's rule), the grounding the
planner is given, or the located issues of an answer that cannot be used. Before any model is
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
from treebrain.manipulation.object_kinds import kind_words
from treebrain.manipulation.planning import closed_object
from treebrain.manipulation.symbolic import Scene

OBJECT_TYPES = (
    "bowl", "plate", "mug", "cup", "drawer", "cabinet", "box", "can", "bottle", "ramekin", "basket", "tray",
    "pot", "stove", "microwave", "caddy", "rack", "book", "cheese", "butter", "milk", "bread", "cereal",
    "ketchup", "soup", "sauce", "pudding", "dressing", "juice", "cube", "bin", "mug", "frypan", "faucet",
)  # fmt: skip
COLORS = ("black", "white", "red", "blue", "green", "yellow", "brown", "porcelain")
COLOR_WORDS = {"porcelain": "white"}
"""What a colour of a scene name is called in a task (LIBERO's porcelain mug is "the white mug")."""
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
    scene's "frypan"), no object of the scene is of that kind (``object_kinds.yaml``: "the soda" is
    the can), and it does not describe the next word ("soda can" is a can). "put the banana
    in the bin" in a scene without one gives ["banana"]. A colour said before a thing of the scene
    must be a colour of something in the scene: "the blue cube" among a red and a green one gives
    ["blue cube"] (LIBERO's names and descriptions are too loose to ask more: its "white mug" is the
    ``porcelain_mug_1``)."""

    def forms_of(texts: Collection[str]) -> set[str]:
        return {form for text in texts for word in _words(text) for form in _forms(word)}

    things = forms_of((*scene.objects, *scene.fixtures))
    kinds = {form for name in scene.objects for word in kind_words(name) for form in _forms(word)}
    present = things | kinds | forms_of((*scene.regions, *scene.descriptions.values()))

    def in_scene(word: str, known: set[str]) -> bool:
        return any(name.endswith(form) for name in known for form in _forms(word))

    said = _words(task)
    known_nouns = set(nouns)
    colours = {
        COLOR_WORDS.get(word, word)
        for word in forms_of((*scene.objects, *scene.regions, *scene.descriptions.values()))
        if word in COLORS
    }
    absent: list[str] = []
    for index, word in enumerate(said):
        named = sorted(_forms(word) & known_nouns)
        modifies_next = index + 1 < len(said) and in_scene(said[index + 1], things)  # "soda can"
        if named and named[0] not in absent and not modifies_next and not in_scene(word, present):
            absent.append(named[0])
        thing = f"{word} {said[index + 1]}" if modifies_next else f"{word} thing"  # "the blue one"
        if word in COLORS and word not in colours and thing not in absent:
            absent.append(thing)  # a colour nothing in the scene has ("the blue cube")
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


REASON_PATTERN = r"^[A-Za-z][A-Za-z ,.'-]{1,79}$"
"""A refusal's reason: letters, spaces and light punctuation, at most 80 characters."""

FAILURE_CATEGORIES = (
    "not_an_answer", "unreadable_refusal", "unknown_name", "bad_confidence", "call_failed", "no_answer",
)  # fmt: skip
"""Why an answer could not be used (``Grounding.categories``): its shape, a refusal that is not words,
a name the scene lacks, a confidence outside 0..1; the call itself failed; the tree gave no answer."""


def _other(names: list[str]) -> dict[str, Any]:
    """Another name that could also be meant, with the model's confidence in it, or null."""
    return {
        "anyOf": [{"type": "null"}, closed_object({"name": {"enum": names}, "score": {"type": "number"}})]
    }


def grounding_schema(scene: Scene) -> dict[str, Any]:
    """The answer's JSON Schema: ``{"decision": {"ground": {...}}}`` or ``{"decision": {"refuse":
    "why"}}``. The decision's only key says which, so a decoder that writes keys in sorted order (the
    local provider) still has the model choose before it writes any free text. The grounding holds
    only the scene's names and numbers (keys in sorted order: the source, its confidence and one close
    other or null, then the same for the target), one alternative per source object so that neither
    the target nor a close other can be the source itself; the refusal's reason is a few words
    (`REASON_PATTERN`). Every object is closed with every key required and nothing bounds a number or
    an array, so OpenAI's strict mode and Anthropic's and Gemini's structured outputs take it as it
    is; the confidences' range and the reason's words are checked in Python (`judge_grounding`)."""
    targets = list(dict.fromkeys((*scene.regions, *scene.objects)))

    def grounding_of(source: str) -> dict[str, Any]:
        others = [name for name in scene.objects if name != source]
        places = [name for name in targets if name != source]
        return closed_object(
            {
                "source": {"enum": [source]},
                "source_confidence": {"type": "number"},
                "source_other": _other(others) if others else {"type": "null"},
                "target": {"enum": places},
                "target_confidence": {"type": "number"},
                "target_other": _other(places),
            }
        )

    # a source with nowhere else to go (the scene's only name) cannot be grounded
    sources = [source for source in scene.objects if any(name != source for name in targets)]
    ground = closed_object({"ground": {"anyOf": [grounding_of(source) for source in sources]}})
    refuse = closed_object({"refuse": {"type": "string", "pattern": REASON_PATTERN}})
    return closed_object({"decision": {"anyOf": [ground, refuse] if sources else [refuse]}})


def grounded_answer(
    source: str,
    target: str,
    source_confidence: float = 0.9,
    target_confidence: float = 0.9,
    source_other: tuple[str, float] | None = None,
    target_other: tuple[str, float] | None = None,
) -> dict[str, Any]:
    """An answer that grounds the task (for scripted and reference answers)."""

    def other(value: tuple[str, float] | None) -> dict[str, Any] | None:
        return None if value is None else {"name": value[0], "score": value[1]}

    ground = {
        "source": source,
        "source_confidence": source_confidence,
        "source_other": other(source_other),
        "target": target,
        "target_confidence": target_confidence,
        "target_other": other(target_other),
    }
    return {"decision": {"ground": ground}}


def refusal_answer(reason: str) -> dict[str, Any]:
    """An answer that refuses the task."""
    return {"decision": {"refuse": reason}}


GROUNDING_PROMPT = """You are a robot perception assistant.

Task: {task}

The scene:
{scene}

First decide whether the task can be done in this scene. If it names something that is not in the
scene, is impossible or contradicts itself, refuse with the reason in a few words. Otherwise give the
object to be moved ("source", an object id) and where it goes ("target", a place id or another object
id), each with your confidence (0 to 1). If another id could also be meant for a role, give it in
"source_other" or "target_other" with your confidence in it as "score"; otherwise null.

Two examples from another scene (objects pear_1 and cup_1, places shelf_1_top_region):
"put the pear on the shelf" ->
{{"decision": {{"ground": {{"source": "pear_1", "source_confidence": 0.9, "source_other": null, \
"target": "shelf_1_top_region", "target_confidence": 0.9, "target_other": null}}}}}}
"put the lemon in the cup" -> {{"decision": {{"refuse": "there is no lemon in the scene"}}}}

Answer only JSON."""


def grounding_prompt(task: str, scene: Scene) -> str:
    return GROUNDING_PROMPT.format(task=task.strip(), scene=json.dumps(enrich(scene), indent=2))


class Grounding(BaseModel):
    """What the task refers to, or why it cannot be done as asked."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source: str = ""
    target: str = ""
    kept: list[str] = []
    """Objects the task says stay where they are (the offline parser's reading of the words, whoever
    grounds): no skill may move them."""
    question: str = ""
    """A clarification to ask (then nothing is executed)."""
    refusal: str = ""
    issues: list[str] = []
    """Why the answer could not be used (then it is asked again), each located in the answer."""
    categories: list[str] = []
    """The `FAILURE_CATEGORIES` of the issues, one each."""

    @property
    def usable(self) -> bool:
        return bool(self.source and self.target) and not (self.question or self.refusal or self.issues)

    def for_planner(self) -> str:
        return f"{self.source} is the object to move; it goes to {self.target}."


def unreadable(reason: str) -> str:
    """Why a refusal's reason is not words (empty when it is): it needs two words or more, each of
    letters (an apostrophe inside, a comma or full stop after) with a vowel and no capital after a
    small letter (``cubeA`` is a name). A small model constrained to a free-text field fills it with
    names and brackets ("][", "cubeA", `":{"`): such a reason is an issue, never a refusal."""
    words = reason.split()
    if len(words) < 2:
        return f"{reason!r} is not a reason in words (fewer than two words)"
    for word in words:
        bare = word.rstrip(",.")
        if not re.fullmatch(r"[A-Za-z]+(?:'[A-Za-z]+)?", bare) or re.search(r"[a-z][A-Z]", bare):
            return f"{reason!r} is not a reason in words ({word!r} is not a word)"
        if not re.search(r"[aeiouyAEIOUY]", bare):
            return f"{reason!r} is not a reason in words ({word!r} has no vowel)"
    return ""


Issues = list[tuple[str, str]]
"""(category, located reason) pairs."""


def _confidence(value: Any, where: str, issues: Issues) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= 1.0:
        issues.append(("bad_confidence", f"{where}: {value!r} is not a confidence between 0 and 1"))
        return 0.0
    return float(value)


def _failed(issues: Issues, source: str = "", target: str = "") -> Grounding:
    return Grounding(
        source=source,
        target=target,
        issues=[text for _, text in issues],
        categories=[category for category, _ in issues],
    )


def _ground_issues(
    ground: Mapping[str, Any], scene: Scene
) -> tuple[Issues, dict[str, float], dict[str, Any]]:
    """The issues of a grounding alternative, its confidences and its close others (name, score)."""
    issues: Issues = []
    source, target = ground.get("source"), ground.get("target")
    names = {"source": tuple(scene.objects), "target": (*scene.regions, *scene.objects)}
    if source not in names["source"]:
        issues.append(("unknown_name", f"decision.ground.source: {source!r} is not an object of the scene"))
    if target not in names["target"] or target == source:
        issues.append(
            (
                "unknown_name",
                f"decision.ground.target: {target!r} is not another object or a place of the scene",
            )
        )
    confidences: dict[str, float] = {}
    others: dict[str, Any] = {}
    for role in ("source", "target"):
        where = f"decision.ground.{role}"
        confidences[role] = _confidence(ground.get(f"{role}_confidence"), f"{where}_confidence", issues)
        other = ground.get(f"{role}_other")
        if other is None:
            continue
        name = other.get("name") if isinstance(other, Mapping) else other
        if name not in names[role]:
            issues.append(("unknown_name", f"{where}_other: {name!r} is not a {role} name of the scene"))
            continue
        others[role] = (name, _confidence(other.get("score"), f"{where}_other.score", issues))
    return issues, confidences, others


def judge_grounding(answer: Any, scene: Scene, settings: GroundingSettings) -> Grounding:
    """The grounding an answer gives, with the robot file's rule for ambiguity applied: the roles, a
    clarification question, a refusal in words, or the issues (each located by its path in the
    answer, with a category) that make it unusable."""
    decision = answer.get("decision") if isinstance(answer, Mapping) else None
    if not isinstance(decision, Mapping) or len(decision) != 1 or not {"ground", "refuse"} & set(decision):
        shape = '{"decision": {"ground": {...}}} or {"decision": {"refuse": "why"}}'
        return _failed([("not_an_answer", f"the answer is not {shape}")])
    if "refuse" in decision:
        reason = str(decision["refuse"] or "").strip()
        problem = unreadable(reason)
        if problem:
            return _failed([("unreadable_refusal", f"decision.refuse: {problem}")])
        return Grounding(refusal=f"the task cannot be grounded: {reason}")
    ground = decision["ground"]
    if not isinstance(ground, Mapping):
        return _failed([("not_an_answer", "decision.ground: not an object with source and target")])
    issues, confidences, others = _ground_issues(ground, scene)
    source, target = str(ground.get("source") or ""), str(ground.get("target") or "")
    if issues:
        return _failed(issues, source, target)
    questions = []
    for role, chosen in (("source", source), ("target", target)):
        rival, score = others.get(role, (chosen, 0.0))
        if settings.ambiguity == "ask" and rival != chosen and confidences[role] - score < settings.margin:
            questions.append(f"Do you mean {chosen} or {rival}?")
        elif confidences[role] < settings.min_confidence:
            questions.append(
                f"Is {chosen} the {'object to move' if role == 'source' else 'place to put it'}?"
            )
    return Grounding(source=source, target=target, question=" ".join(questions))
