"""Classifying a command in Python before any LLM call: what kind of command it is, what it asks for,
and whether it can be answered, refused or questioned without a model.

The patterns live in ``config/voice/classification.yaml`` (categories) and ``language.yaml`` (what a
command asks for). Classification decides the prompt (creative axes, recovery hints), the
temperature, and whether the LLM is needed at all: an ingredient the cell lacks, a motion the arm
cannot make, a name the user did not give, a place that is no zone, or a plain request to repeat or
save what was just done are all answered here, at no cost and without guessing. For everything else
it reads the requirements every plan must meet (:class:`~treebrain.voice.request.PlanRequest`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from treebrain.documents import read_document
from treebrain.voice.request import HandChoice, PlanRequest, RequestReader, blanked, check_pattern, listed

# Quotes (straight and curly) and end punctuation around a phrase the user wants learned.
_QUOTES_AND_STOPS = " \"'\u201c\u201d\u2018\u2019.,!?"
# What may separate a learned name from the definition that follows it.
_DEFINITION_LEAD = re.compile(
    r"^[\s:;,\-\u2013\u2014]*(?:(?:as|means|is|i mean|it means|that means)\b[\s:,]*)?"
)

AnsweredRoute = Literal["unknown_items", "unsupported", "name_taken", "clarify", "stop", "last_plan"]
"""Routes answered in Python, without the LLM."""
Route = AnsweredRoute | Literal["generate"]


class RecoveryPattern(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    pattern: str
    hint: str
    allowed: list[str] | None = None
    """A recovery command matching this pattern may only use these instructions."""
    forbidden: list[str] = Field(default_factory=list)
    required: list[str] = Field(default_factory=list)
    by_hand: HandChoice | None = None
    """Its steps when the gripper holds something and when it is empty (Python answers it from
    the scene, with no model)."""


class ClassificationRules(BaseModel):
    """The whole ``classification.yaml``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    trivial_words: list[str]
    creative_patterns: list[str]
    recovery_patterns: list[RecoveryPattern]
    learning_patterns: list[str]
    trigger_patterns: list[str] = Field(default_factory=list)
    unavailable_foods: list[str]


class Classification(BaseModel):
    """What Python knows about a command before the LLM sees it."""

    model_config = ConfigDict(frozen=True)

    is_creative: bool = False
    is_recovery: bool = False
    recovery_hint: str | None = None
    is_learning: bool = False
    learned_phrase: str | None = None
    """The name a learning command gives, as said ("the classic")."""
    definition: str | None = None
    """What a learning command says the name stands for, as said ("bread, meat, cheese, bread")."""
    named_items: list[str] = Field(default_factory=list)
    unknown_items: list[str] = Field(default_factory=list)
    request: PlanRequest = PlanRequest()
    """What every plan for this command must do."""
    unsupported: str | None = None
    """A motion the instruction set cannot express ("move diagonally")."""
    name_taken: bool = False
    """The learned name is a built-in instruction's, which is never redefined."""
    question: str | None = None
    """What to ask the user when the command is under-specified."""
    stop: bool = False
    """A pure stop: nothing may move."""
    uses_last_plan: Literal["repeat", "learn"] | None = None
    """The command repeats, or saves under a name, the last plan the arm executed."""

    @property
    def route(self) -> Route:
        """Every route but ``generate`` is answered without the LLM."""
        if self.unknown_items:
            return "unknown_items"
        if self.unsupported is not None:
            return "unsupported"
        if self.name_taken:
            return "name_taken"
        if self.question is not None:
            return "clarify"
        if self.stop:
            return "stop"
        if self.uses_last_plan is not None:
            return "last_plan"
        return "generate"


class Classifier:
    """Compiled patterns for one rules file, one language file and one instruction set."""

    def __init__(
        self, rules: ClassificationRules, reader: RequestReader, *, ask_unknown_dishes: bool = False
    ) -> None:
        self.rules = rules
        self.reader = reader
        self.ask_unknown_dishes = ask_unknown_dishes
        self.iset = reader.iset
        self._creative = [re.compile(pattern, re.IGNORECASE) for pattern in rules.creative_patterns]
        self._recovery = [(re.compile(item.pattern, re.IGNORECASE), item) for item in rules.recovery_patterns]
        self._learning = [re.compile(pattern, re.IGNORECASE) for pattern in rules.learning_patterns]
        self._triggers = [re.compile(pattern, re.IGNORECASE) for pattern in rules.trigger_patterns]
        item_words = self.iset.item_names_by_alias()
        unknown = [food for food in rules.unavailable_foods if food.lower() not in item_words]
        self._unknown = _word_pattern(unknown)

    def classify(self, text: str) -> Classification:
        recoveries = [item for pattern, item in self._recovery if pattern.search(text)]
        is_creative = any(pattern.search(text) for pattern in self._creative)
        is_learning = any(pattern.search(text) for pattern in self._learning)
        named_items = self.reader.named_items(text)
        base = Classification(
            is_creative=is_creative,
            is_recovery=bool(recoveries),
            recovery_hint="; ".join(item.hint for item in recoveries) or None,
            is_learning=is_learning,
            named_items=named_items,
            unknown_items=_unique(word.lower() for word in _found(self._unknown, text)),
            unsupported=self.reader.unsupported_motion(text),
        )
        if is_learning:
            return self._learning_command(text, base)
        if self.reader.asks_to_repeat(text):
            return base.model_copy(update={"uses_last_plan": "repeat"})
        held = None if recoveries or is_creative else self.reader.held_reference(text)
        if held is not None:
            return self._held_command(text, base, *held)
        listed = self.reader.is_item_list(text)  # "more bread", "cheese": those layers
        asks_for = self.reader.is_build(text) or listed or self.reader.names_dish(text)
        building = asks_for and not is_creative and not recoveries
        request = self.reader.read(
            text,
            build=building,
            ordered_list=building and self.reader.is_layer_listing(text),
            intent=not building and not is_creative,
        )
        # a recovery limits the plan unless the command also builds something ("start over" builds nothing)
        limited = bool(recoveries) and not (self.reader.is_build(text) and named_items)
        if limited:
            request = request.model_copy(update=_recovery_limits(recoveries))
        if not building and not is_creative and not limited and request.intent is None:
            request = request.model_copy(update={"unknown": True})
        return base.model_copy(
            update={
                "request": request,
                "question": self._question(text, request, building),
                "stop": request.allowed == [],
            }
        )

    def _knows_plan(self, text: str) -> bool:
        """Whether `text` names a learned composite (as the instruction set holds them now)."""
        known = _word_pattern(name.replace("_", " ") for name in self.iset.learned_composites)
        return bool(_found(known, text))

    def _held_command(
        self, text: str, base: Classification, spans: list[tuple[int, int]], item: str | None
    ) -> Classification:
        """A command about what the gripper holds ("put the cheese you're holding on the left"):
        the steps it names, with the held item left for the scene to say."""
        request = self.reader.read(blanked(text, spans), build=False, intent=True)
        request = request.model_copy(update={"held_item": item, "unknown": request.intent is None})
        return base.model_copy(update={"request": request, "question": self._question(text, request, False)})

    def _question(self, text: str, request: PlanRequest, building: bool) -> str | None:
        """What to ask when the command leaves out what is needed to act on it."""
        questions = self.reader.language.questions
        if request.question is not None:
            return request.question
        place = self.reader.vague_place(text)
        if place is not None:
            return questions.vague_place.format(place=repr(place), zones=self.zone_choices())
        name = self.reader.named_plan(text)
        if name is not None and not self._knows_plan(text):
            return questions.unknown_name.format(name=repr(name))
        if building and not request.builds and not self._knows_plan(text):
            return questions.no_items.format(items=listed(self.iset.valid_items(), "and"))
        if self.ask_unknown_dishes and request.unknown_dishes:
            dishes = listed(self.reader.cookbook().names(), "or")
            return questions.unknown_dish.format(dish=listed(request.unknown_dishes, "and"), dishes=dishes)
        if request.unknown:
            return questions.unknown_request  # no model call: its plan could not be checked
        return None

    def _learning_command(self, text: str, base: Classification) -> Classification:
        """A name the user gave, what it stands for (the definition after it, or the last plan),
        or the question that asks for the missing name."""
        questions = self.reader.language.questions
        found = next((match for pattern in self._triggers if (match := pattern.search(text))), None)
        name = found.group("phrase").strip(_QUOTES_AND_STOPS) if found else ""
        if not name or self.reader.is_generic_name(name):
            return base.model_copy(update={"question": questions.no_name})
        body = _DEFINITION_LEAD.sub("", text[found.end() :] if found else "").strip()
        update: dict[str, object] = {"learned_phrase": name, "name_taken": self._is_built_in(name)}
        if body:
            update["request"] = self._definition(body, creative=base.is_creative)
            update["definition"] = body
        elif self.reader.refers_to_last(text):
            update["uses_last_plan"] = "learn"
        else:
            update["question"] = questions.nothing_to_save
        return base.model_copy(update=update)

    def _definition(self, body: str, *, creative: bool) -> PlanRequest:
        """What a learned name stands for: a build ("a cheese sandwich", "bread, meat, bread"), the
        steps it names ("pick up the cheese"), or -- only items and words the reader does not know,
        "lettuce on bread" -- those items and no other; unknown when it names none of these (a
        creative one stays free)."""
        building = self.reader.names_build(body)
        request = self.reader.read(
            body,
            build=building,
            ordered_list=self.reader.is_item_list(body),
            intent=not building and not creative,
        )
        if building or request.intent is not None or creative:
            return request
        if self.reader.named_items(body):
            return self.reader.read(body, build=True)
        return request.model_copy(update={"unknown": True})

    def _is_built_in(self, name: str) -> bool:
        snake = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
        return snake in self.iset.composites or snake in self.iset.primitives

    def zone_choices(self) -> str:
        """The zones as a person says them: "left, centre or right"."""
        return self.reader.zone_choices()


def load_classifier(
    path: str | Path, reader: RequestReader, *, ask_unknown_dishes: bool = False
) -> Classifier:
    """Rules from `path`, with every bad regular expression reported at its line; with
    `ask_unknown_dishes`, a dish the cookbook does not know is asked about (no model could build it)."""
    document = read_document(path)
    rules = document.validate(ClassificationRules)
    if rules is not None:
        lists: dict[str, list[str]] = {
            "creative_patterns": rules.creative_patterns,
            "learning_patterns": rules.learning_patterns,
            "trigger_patterns": rules.trigger_patterns,
        }
        for section, patterns in lists.items():
            for index, pattern in enumerate(patterns):
                check_pattern(document, [section, index], pattern)
        for index, item in enumerate(rules.recovery_patterns):
            check_pattern(document, ["recovery_patterns", index, "pattern"], item.pattern)
            by_hand = [*item.by_hand.holding, *item.by_hand.empty] if item.by_hand else []
            for name in [*(item.allowed or []), *item.forbidden, *item.required, *by_hand]:
                if name not in reader.iset.composites:
                    document.problem(["recovery_patterns", index], f"{name!r} is not a composite")
        for index, pattern in enumerate(rules.trigger_patterns):
            if "(?P<phrase>" not in pattern:
                document.problem(
                    ["trigger_patterns", index], "a trigger pattern needs a (?P<phrase>...) group"
                )
    document.raise_problems()
    assert rules is not None
    return Classifier(rules, reader, ask_unknown_dishes=ask_unknown_dishes)


def _recovery_limits(recoveries: list[RecoveryPattern]) -> dict[str, object]:
    """What a recovery may do: only what all its patterns allow together (when each has a list),
    nothing any of them forbids, all they require; the gripper's choice when one pattern alone
    matched and has one."""
    forbidden = _unique(name for item in recoveries for name in item.forbidden)
    allowed = [name for item in recoveries if item.allowed is not None for name in item.allowed]
    limited = all(item.allowed is not None for item in recoveries)
    return {
        "allowed": _unique(name for name in allowed if name not in forbidden) if limited else None,
        "forbidden": forbidden,
        # "never mind, just go home": what one pattern forbids, another cannot require (nothing is
        # destroyed that the words do not clearly ask to destroy)
        "required": _unique(name for item in recoveries for name in item.required if name not in forbidden),
        "by_hand": recoveries[0].by_hand if len(recoveries) == 1 else None,
    }


def _word_pattern(words: Iterable[str]) -> re.Pattern[str] | None:
    choices = sorted({word for word in words if word}, key=len, reverse=True)
    if not choices:
        return None
    alternatives = "|".join(re.escape(word).replace(r"\ ", r"\s+") for word in choices)
    return re.compile(rf"\b({alternatives})(?:s|es)?\b", re.IGNORECASE)


def _found(pattern: re.Pattern[str] | None, text: str) -> list[str]:
    return [] if pattern is None else [match.group(1) for match in pattern.finditer(text)]


def _unique(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(values))
