"""The data that crosses stage boundaries of the kitchen pipeline (all pydantic, all JSON-safe).

A behaviour reads one of these from the blackboard, calls a stage function and writes the next one
back, so each model is small, immutable and serialisable.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

HandSlot = Literal["left", "right"]
#: The order free hands are used in when a narration does not say which hand.
HAND_ORDER: tuple[HandSlot, ...] = ("right", "left")
Confidence = Literal["normal", "low"]
#: Whether a place was said by a narration ("sure") or inferred from the context ("likely": the
#: fridge was open, the person works at the counter).
PlaceCertainty = Literal["sure", "likely"]
#: Why a food was offered as a candidate: same name, same head noun, or simply held in a hand.
MatchKind = Literal["name", "similar", "in_hand", ""]


class UpdateType(StrEnum):
    """The four ways a narration can change a food node."""

    CREATE_NEW = "CREATE_NEW"
    TAKE = "TAKE"
    PLACE = "PLACE"
    MODIFY_STATE = "MODIFY_STATE"


class OutcomeKind(StrEnum):
    """What a narration did to the graph: one of the update types, or an event without a food."""

    CREATE_NEW = "CREATE_NEW"
    TAKE = "TAKE"
    PLACE = "PLACE"
    MODIFY_STATE = "MODIFY_STATE"
    ZONE_EVENT = "ZONE_EVENT"
    UNATTRIBUTED = "UNATTRIBUTED"


class Frozen(BaseModel):
    """Base for boundary data: immutable and strict about unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Narration(Frozen):
    """One narrated action with its time span in seconds (within its video, when the file says)."""

    id: str
    start: float = Field(ge=0)
    end: float = Field(ge=0)
    text: str = Field(min_length=1)
    video: str = ""

    @model_validator(mode="after")
    def _ends_after_start(self) -> Narration:
        if self.end < self.start:
            raise ValueError(f"end {self.end} is before start {self.start}")
        return self


class Interaction(Frozen):
    """One entry of a food's (or zone's) history, citing the narration it comes from."""

    narration_id: str = ""
    start: float
    end: float
    action: str
    narration: str
    location_context: str = ""
    outcome: OutcomeKind
    confidence: Confidence = "normal"
    note: str = ""


class FoodView(Frozen):
    """A food (or other object) node as the prompt, the validator and the queries see it.

    `location_id` is the node it is in or on: a zone, or another object ("on the plate"); `zone_id`
    is the zone it is at, through the objects it is in (the plate's zone), when that is known.
    """

    food_id: str
    name: str
    said: str = Field("", description="the narration's own noun for it (name is its class)")
    state: str = "unknown"
    quantity: str = "unknown"
    location_id: str | None = None
    location_name: str | None = None
    zone_id: str | None = None
    zone_name: str | None = None
    hand: HandSlot | None = None
    first_seen: float = 0.0
    last_seen: float = 0.0
    interaction_count: int = 0
    recent: tuple[Interaction, ...] = ()
    match: MatchKind = ""
    place_certainty: PlaceCertainty = "sure"

    @property
    def title(self) -> str:
        """The name shown to a user: the narration's own noun, with its class when that differs
        ("saucepan [pot]")."""
        said = self.said or self.name
        return said if said == self.name else f"{said} [{self.name}]"

    @property
    def location_text(self) -> str:
        """Where the food is: "in left hand", "at fridge (zone_fridge_1)", "in plate (food_plate_1) at
        table (zone_table_1)", "location unknown"; a place inferred from the context says "likely"."""
        if self.hand:
            return f"in {self.hand} hand"
        if self.location_id is None:
            return "location unknown"
        likely = "likely " if self.place_certainty == "likely" else ""
        if self.location_id == self.zone_id:
            return f"{likely}at {self.zone_name} ({self.zone_id})"
        zone = f" at {self.zone_name} ({self.zone_id})" if self.zone_id else ""
        return f"{likely}in {self.location_name} ({self.location_id}){zone}"

    @property
    def place_name(self) -> str:
        """Where the food is in a word or two: "left hand", "fridge", "plate", "unknown"."""
        if self.hand:
            return f"{self.hand} hand"
        return self.location_name or "unknown"


class ZoneView(Frozen):
    """A zone node: a place foods can be (fridge, counter, lower shelf)."""

    zone_id: str
    name: str
    zone_type: str
    state: str = "unknown"


LocationRole = Literal["source", "destination", "place"]
#: What a narration is about: an object (food), a zone, nothing that is an object ("wash hands"),
#: or something the rules could not read.
TargetKind = Literal["food", "zone", "none", "unknown"]


class Extraction(Frozen):
    """What one narration is about, read by rules or an LLM extractor.

    `food` is the object's canonical name: a food of the vocabulary (`known`), or a noun the
    vocabulary does not list, named as the narration names it (the open vocabulary). `not_object`
    says why a narration is about no object ("wash hands"). `carries` says the verb takes the object
    where the narration says ("tear lettuce into bowl"); `pours`, that it does so when the object is
    inside another one ("pour eggs into pan": out of the bowl). `also` names the further objects a
    conjunction adds ("take spoon and fork": the fork), which the verb moves the same way.
    `general` says the object is a general noun ("food", "ingredients") that names a food known by
    its own name, not a new thing; `made_of`, for a dish ("omelette"), the foods it is made from
    (the eggs): the dish is that food, cooked, not a new thing; `pack_of`, for a pack named by its food
    ("oats package"), that food: the oats taken earlier were the pack, when no node has its name;
    `group`, for a group noun ("cutlery"), the things it covers (spoon, knife, fork): a put of it
    with such things in hand puts those things.
    """

    verb: str | None = None
    verb_type: UpdateType | None = None
    state_after: str | None = None
    carries: bool = False
    pours: bool = False
    food: str | None = None
    food_phrase: str | None = None
    known: bool = False
    not_object: str | None = None
    location: str | None = None
    location_role: LocationRole | None = None
    hand: HandSlot | None = None
    quantity: str | None = None
    new_instance: bool = False
    target_kind: TargetKind = "unknown"
    also: tuple[str, ...] = ()
    general: bool = False
    made_of: tuple[str, ...] = ()
    pack_of: str | None = None
    group: frozenset[str] = frozenset()


class Destination(Frozen):
    """Where an update moves a food: into a hand, to a place (a zone or object, by name or id), back
    where it was taken from ("put back"), or to an unknown place."""

    kind: Literal["hand", "zone", "back", "unknown"]
    zone: str | None = None
    hand: HandSlot | None = None


class NewFood(Frozen):
    """What a CREATE_NEW knows about the food it creates."""

    name: str = Field(min_length=1)
    said: str | None = Field(None, description="the narration's own noun, when name is its class")
    state: str = "unknown"
    quantity: str = "unknown"


class KgUpdate(Frozen):
    """A validated change to the graph, from the LLM or from the rule-based fallback."""

    update_type: UpdateType
    target_food_id: str | None = None
    new_food: NewFood | None = None
    destination: Destination | None = None
    state: str | None = None
    quantity: str | None = None
    action: str
    narration_text: str
    location_context: str = ""
    source: Literal["llm", "rules"] = "llm"
    confidence: Confidence = "normal"
    notes: tuple[str, ...] = ()
    also: tuple[str, ...] = Field(default=(), description="further objects moved the same way")


class ExecutionReport(Frozen):
    """What applying one narration did: the outcome, the food touched, the nodes created, who
    decided (the rules, the LLM, or nobody: an unattributed event) and any repairs made."""

    narration_id: str
    outcome: OutcomeKind
    food_id: str | None = None
    zone_id: str | None = None
    created: tuple[str, ...] = ()
    source: Literal["llm", "rules"] | None = None
    confidence: Confidence = "normal"
    warnings: tuple[str, ...] = ()


class ChatMessage(Frozen):
    """One message of a chat prompt."""

    role: Literal["user", "assistant"]
    content: str


class LlmPrompt(Frozen):
    """Everything an LLM leaf needs for one call: system text, messages and the answer's JSON Schema."""

    system: str
    messages: tuple[ChatMessage, ...]
    json_schema: dict[str, Any]
