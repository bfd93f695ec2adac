"""The slot-filling parser: a plan built in Python from the command's slots, before any model is asked.

The seed's fast path matched whole phrases only. This parser generalises it: the request reader already
reads the slots of a command -- items by their names and synonyms (instruction set), counts ("two
slices of", "double"), zones ("on the left"), speeds ("slowly", "at 80 mm/s"), negations ("without
tomato"), several zones in one command -- and ``parser.yaml`` says what a dish noun builds (a sandwich
wraps its fillings in bread and ends at home). The parser answers only when it is sure: every word of
the command is explained by a slot, a build word, a recovery pattern or a filler word, and the plan it
builds passes the same rules and request check as any model's (:func:`parse_command` returns None
otherwise, and the LLM path runs as before). A command that builds nothing is answered from the steps
the request reader reads in it (its intent: "pick up a slice of cheese", "move the tomato to the serving
plate", "move a little to the left", "wait two seconds then go home", "switch to the right zone") when
``parser.yaml`` lets the parser answer each of those composites and every word is explained by them or
the fillers. Nothing here names an item, a zone or a word: all of it comes from the data files.
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from treebrain.documents import read_document
from treebrain.voice.classify import Classification, Classifier
from treebrain.voice.isa import InstructionSet
from treebrain.voice.plan_check import PlanContext, plan_misses
from treebrain.voice.request import PlanRequest, SpeedRequest, ZoneBuild
from treebrain.voice.rules import enforce_rules
from treebrain.voice.steps import Step

_WORDS = re.compile(r"[a-z0-9']+")


class Dish(BaseModel):
    """What a dish noun builds (``parser.yaml``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    wrap: str | None = None
    """An item laid below and above the fillings (bread for a sandwich)."""
    finish: list[str] = Field(default_factory=list)
    """Composites after each zone's layers (``go_home``)."""
    default_zone: bool = False
    """Said without a zone, the dish is built in the instruction set's default zone."""


class ParserVocabulary(BaseModel):
    """The whole ``parser.yaml``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    dishes: dict[str, Dish] = Field(default_factory=dict)
    named_dish: Dish = Dish(finish=["go_home"], default_zone=True)
    """How a dish said by its name is built (its layers are its own, from the cookbook)."""
    filler_words: list[str] = Field(default_factory=list)
    intents: list[str] = Field(default_factory=list)
    """Composites the parser answers from a command's intent (the request reader's reading)."""
    confidence: float = Field(default=0.95, gt=0, le=1)


class ParsedPlan(BaseModel):
    """A plan the parser is sure of: the steps, how sure, and what it understood."""

    model_config = ConfigDict(frozen=True)

    sequence: list[Step]
    confidence: float
    interpretation: str


class CommandParser:
    """The parser for one vocabulary, classifier and instruction set."""

    def __init__(self, vocabulary: ParserVocabulary, classifier: Classifier) -> None:
        self.vocabulary = vocabulary
        self.classifier = classifier
        self.iset: InstructionSet = classifier.iset
        self._fillers = {word.lower() for word in vocabulary.filler_words} | classifier.reader.filler_words()
        self._intent_fillers = {word.lower() for word in classifier.reader.language.intent_fillers}
        self._recovery = [
            re.compile(item.pattern, re.IGNORECASE) for item in classifier.rules.recovery_patterns
        ]
        dishes = sorted(vocabulary.dishes, key=len, reverse=True)
        self._dish = (
            re.compile(rf"\b({'|'.join(map(re.escape, dishes))})\b", re.IGNORECASE) if dishes else None
        )

    def unexplained(self, text: str, *, intent: bool = False) -> list[str]:
        """The words of `text` that no slot, build word, recovery pattern or filler explains; with
        `intent`, as a command that builds nothing: the intent's verbs and values, and the language
        file's intent fillers ("then")."""
        reader = self.classifier.reader
        spans = reader.intent_spans(text) if intent else reader.understood_spans(text)
        spans += [found.span() for pattern in self._recovery for found in pattern.finditer(text)]
        fillers = self._fillers | self._intent_fillers if intent else self._fillers
        blanked = list(text.lower())
        for start, end in spans:
            blanked[start:end] = " " * (end - start)
        return [word for word in _WORDS.findall("".join(blanked)) if word not in fillers]

    def reads_intent(self, classification: Classification) -> bool:
        """Whether the command is one the parser answers from its intent: it builds nothing and names
        only composites ``parser.yaml`` lets the parser answer (or only a speed), with no value left
        open ("wait a while": the parser would have to choose how long)."""
        request = classification.request
        if request.builds or request.intent is None:
            return False
        if not request.intent and request.speed is None:
            return False
        return all(
            step.step.instruction in self.vocabulary.intents and not step.vague for step in request.intent
        )

    def parse(
        self,
        text: str,
        classification: Classification,
        active_zone: str | None = None,
        context: PlanContext | None = None,
    ) -> ParsedPlan | None:
        """The plan for `text` when the parser is sure of it; None when the LLM should answer.
        `context`: what the gripper holds and which zones hold something (None: not known). A
        learning command is read by its definition ("call this the classic: bread, meat, ...")."""
        known = context is not None
        context = context or PlanContext(active_zone=active_zone)
        if classification.route != "generate" or classification.is_creative:
            return None
        if classification.is_learning:
            if classification.definition is None:
                return None
            text = classification.definition
        by_intent = self.reads_intent(classification)
        if self.unexplained(text, intent=by_intent):
            return None
        request = classification.request
        if request.builds:
            sequence = self._build_plan(text, request, context)
        elif by_intent:
            sequence = self._intent_plan(request)
        elif classification.is_recovery:
            sequence = _recovery_plan(request, context.held is not None if known else None)
        else:
            sequence = None
        if not sequence or not self._passes(sequence, request, active_zone, context):
            return None
        return ParsedPlan(
            sequence=sequence,
            confidence=self.vocabulary.confidence,
            interpretation="Understood without a model: " + ", ".join(step.short() for step in sequence),
        )

    def _build_plan(self, text: str, request: PlanRequest, context: PlanContext) -> list[Step] | None:
        found = self._dish.search(text) if self._dish is not None else None
        dish = self.vocabulary.dishes[found.group(1).lower()] if found else Dish()
        if any(build.dish is not None for build in request.builds):
            dish = (
                self.vocabulary.named_dish
            )  # a dish said by its name: its own layers, built like a sandwich
        elif found is None and self.classifier.reader.says_everything(text):
            return None  # "everything" without a dish: no telling what wraps it
        steps = [] if request.speed is None else [self._speed_step(request.speed)]
        if any(build.stacked_in_part or (build.dish and build.recipe is None) for build in request.builds):
            return None  # the order is the model's to say, or a dish nobody here knows
        free = self._free_zones(request, context)
        if free is None:
            return None
        for build in request.builds:
            layers = build.recipe if build.recipe is not None else _layers(build, dish)
            zone = build.zone or (free.pop(0) if build.own_zone else None)
            if zone is None and build.dish is not None:
                zone = self._zone_for_dish(context)
            zone = zone or (self.iset.default_zone if dish.default_zone else None)
            if zone is not None:
                steps.append(Step(instruction="set_active_zone", params={"zone": zone}))
            steps += [Step(instruction="add_layer", params={"item": item}) for item in layers]
            steps += [Step(instruction=name) for name in dish.finish]
        return steps

    def _intent_plan(self, request: PlanRequest) -> list[Step]:
        """The steps the command names, each as often as said, after the speed it says."""
        steps = [] if request.speed is None else [self._speed_step(request.speed)]
        return steps + [intent.step for intent in request.intent or [] for _ in range(intent.times)]

    def _speed_step(self, speed: SpeedRequest) -> Step:
        """``change_speed`` to the profile said ("slowly"), or to the number said ("at 80 mm/s")."""
        profile = next(
            (
                name
                for name, mm_s in self.iset.speed_profiles.items()
                if speed.slower is not None and mm_s == speed.mm_s
            ),
            None,
        )
        return Step(instruction="change_speed", params={"speed": profile or speed.mm_s})

    def _zone_for_dish(self, context: PlanContext) -> str:
        """A dish said by its name is a dish of its own: the default zone, or -- when that already
        holds one -- the first zone that holds nothing (else the default zone, whose limits decide)."""
        default = self.iset.default_zone
        order = [default, *(zone for zone in self.iset.assembly_zones if zone != default)]
        return next((zone for zone in order if zone not in context.occupied), default)

    def _free_zones(self, request: PlanRequest, context: PlanContext) -> list[str] | None:
        """Zones for the dishes of their own, in order: the active zone, then the instruction set's
        order, none that holds something or is named for another dish; None when there are too few."""
        wanted = sum(build.own_zone for build in request.builds)
        named = {build.zone for build in request.builds}
        active = context.active_zone or self.iset.default_zone  # the zone active before the command
        order = [active, *(zone for zone in self.iset.assembly_zones if zone != active)]
        free = [zone for zone in order if zone not in named and zone not in context.occupied]
        return free[:wanted] if len(free) >= wanted else None

    def _passes(
        self, sequence: list[Step], request: PlanRequest, active_zone: str | None, context: PlanContext
    ) -> bool:
        """The same validators as every plan: no rule would change it, and it is what was asked."""
        checked = enforce_rules(sequence, self.iset)
        return not checked.changes() and not plan_misses(request, sequence, self.iset, active_zone, context)


def _layers(build: ZoneBuild, dish: Dish) -> list[str]:
    """The zone's layers, bottom first: the listed order, or the fillings (each as often as said) in
    the dish's wrap unless the wrap item was counted itself."""
    if build.order is not None:
        return list(build.order)
    fillings = [
        item
        for item, count in build.items.items()
        for _ in range(count)
        if item != dish.wrap or item in build.exact
    ]
    if dish.wrap is None or dish.wrap in build.exact:
        return fillings
    return [dish.wrap, *fillings, dish.wrap]


def _recovery_plan(request: PlanRequest, holding: bool | None) -> list[Step] | None:
    """A recovery does exactly what its patterns require, or the one thing they allow, or what its
    pattern does with the gripper as the scene shows it."""
    if request.required:
        names = request.required
    elif request.allowed is not None and len(request.allowed) == 1:
        names = request.allowed
    elif request.by_hand is not None and holding is not None:
        names = request.by_hand.steps(holding)
    else:
        return None
    return [Step(instruction=name) for name in names]


def load_parser(path: str | Path, classifier: Classifier) -> CommandParser:
    """``parser.yaml``, with every wrap item and finishing composite checked against the instruction set."""
    document = read_document(path)
    vocabulary = document.validate(ParserVocabulary)
    if vocabulary is not None:
        iset = classifier.iset
        for noun, dish in vocabulary.dishes.items():
            if dish.wrap is not None and dish.wrap not in iset.items:
                document.problem(
                    ["dishes", noun, "wrap"], f"{dish.wrap!r} is not an item of the instruction set"
                )
            for index, name in enumerate(dish.finish):
                signature = iset.signature(name)
                if signature is None or any(spec.required for spec in signature.values()):
                    document.problem(
                        ["dishes", noun, "finish", index],
                        f"{name!r} is not a composite callable without parameters",
                    )
        for index, name in enumerate(vocabulary.intents):
            if name not in iset.composites:
                document.problem(["intents", index], f"{name!r} is not a composite of the instruction set")
            elif name not in classifier.reader.language.intent_verbs:
                document.problem(
                    ["intents", index],
                    f"{name!r} has no intent_verbs in the language file: no command names it",
                )
        dish_nouns = {noun.lower() for noun in classifier.reader.language.dish_nouns}
        for noun, dish in vocabulary.dishes.items():
            if (dish.wrap is not None or dish.finish) and noun.lower() not in dish_nouns:
                document.problem(
                    ["dishes", noun],
                    f"{noun!r} adds more than the items said but is not a dish noun of the language file",
                )
    document.raise_problems()
    assert vocabulary is not None
    return CommandParser(vocabulary, classifier)
