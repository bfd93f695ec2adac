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
    """One narrated action with its time span in seconds."""

    id: str
    start: float = Field(ge=0)
    end: float = Field(ge=0)
    text: str = Field(min_length=1)

    @model_validator(mode="after")
    def _ends_after_start(self) -> Narration:
        if self.end < self.start:
            raise ValueError(f"end {self.end} is before start {self.start}")
        return self


class Interaction(Frozen):
    """One entry of a food's (or zone's) history."""

    start: float
    end: float
    action: str
    narration: str
    location_context: str = ""
    outcome: OutcomeKind
    confidence: Confidence = "normal"
    note: str = ""


class FoodView(Frozen):
    """A food node as the prompt, the validator and the queries see it."""

    food_id: str
    name: str
    state: str = "unknown"
    quantity: str = "unknown"
    zone_id: str | None = None
    zone_name: str | None = None
    hand: HandSlot | None = None
    first_seen: float = 0.0
    last_seen: float = 0.0
    interaction_count: int = 0
    recent: tuple[Interaction, ...] = ()
    match: MatchKind = ""

    @property
    def location_text(self) -> str:
        """Human wording of where the food is: "in left hand", "at fridge (zone_fridge_1)", "unknown"."""
        if self.hand:
            return f"in {self.hand} hand"
        if self.zone_id:
            return f"at {self.zone_name} ({self.zone_id})"
        return "location unknown"


class ZoneView(Frozen):
    """A zone node: a place foods can be (fridge, counter, lower shelf)."""

    zone_id: str
    name: str
    zone_type: str
    state: str = "unknown"


LocationRole = Literal["source", "destination", "place"]
TargetKind = Literal["food", "zone", "unknown"]


class Extraction(Frozen):
    """What one narration is about, read by rules or an LLM extractor."""

    verb: str | None = None
    verb_type: UpdateType | None = None
    state_after: str | None = None
    food: str | None = None
    food_phrase: str | None = None
    location: str | None = None
    location_role: LocationRole | None = None
    hand: HandSlot | None = None
    quantity: str | None = None
    new_instance: bool = False
    target_kind: TargetKind = "unknown"


class Destination(Frozen):
    """Where an update moves a food: into a hand, to a zone (name or id), or to an unknown place."""

    kind: Literal["hand", "zone", "unknown"]
    zone: str | None = None
    hand: HandSlot | None = None


class NewFood(Frozen):
    """What a CREATE_NEW knows about the food it creates."""

    name: str = Field(min_length=1)
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


class ExecutionReport(Frozen):
    """What applying one narration did: the outcome, the food touched, and any repairs made."""

    narration_id: str
    outcome: OutcomeKind
    food_id: str | None = None
    zone_id: str | None = None
    created_food: bool = False
    created_zones: tuple[str, ...] = ()
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
