"""The kitchen knowledge graph: food and zone nodes on networkx, with indexes for fast retrieval.

Food nodes (``food_<name>_<n>``: foods and every other object a narration handles) carry name,
state, quantity, hand slot (when held), first/last seen and their interaction history. A food that
is somewhere has one ``located_in`` edge: to a zone node (``zone_<name>_<n>``), or to another object
it is in or on (the plate, the pan), which is at a zone in turn. That edge is the only record of a
food's location, so location cannot disagree with itself, and one thing is one node: a plate
something is put on is the plate object, never a zone of that name. Indexes by canonical name and
by head noun (each bucket kept sorted by last-seen time), by zone name and by hand slot mean
retrieval and updates never scan the graph or even a whole bucket: finding the newest foods of a
name costs microseconds with 10,000 foods. The ids of the narrations applied are kept too, so
ingesting a file again skips what is already in the graph.

The class keeps its invariants (one food per hand slot, a held food has no location, no object is
inside itself); deciding what to do when a narration would break one is the executor's job
(`execution.py`).
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Collection, Iterator
from typing import Any, TypeVar

import networkx as nx

from treebrain.kg.models import FoodView, HandSlot, Interaction, MatchKind, PlaceCertainty, ZoneView
from treebrain.kg.names import NameResolver, SynonymResolver, normalise_phrase, singular_phrase, slug

LOCATED_IN = "located_in"


class KitchenGraph:
    """Foods, zones and histories, with name/synonym, zone and hand indexes kept in step."""

    def __init__(self, names: NameResolver | None = None) -> None:
        self.names: NameResolver = names or SynonymResolver()
        self.graph: Any = nx.DiGraph(events=[])
        self._by_name: dict[str, list[tuple[float, str]]] = {}
        self._by_head: dict[str, list[tuple[float, str]]] = {}
        self._keys: dict[str, tuple[str, str]] = {}
        self._zones_by_name: dict[str, str] = {}
        self._zone_ids: list[str] = []
        self._hands: dict[HandSlot, str] = {}
        self._next_number: dict[str, int] = {}
        self._narrations: set[str] = set()
        self._last_handled: str | None = None
        self._work_zone: str | None = None

    # ----- creating nodes -------------------------------------------------------------------------
    def add_food(
        self,
        name: str,
        *,
        said: str | None = None,
        state: str = "unknown",
        quantity: str = "unknown",
        seen_at: float = 0.0,
    ) -> str:
        """Create a food node and return its new id ``food_<name>_<n>``: `name` is its class (the
        index key, synonyms folded), `said` the noun the narration used for it ("saucepan": a pot)."""
        food_id = self._new_id("food", name)
        self._insert_food(
            food_id,
            name=name,
            said=said,
            state=state,
            quantity=quantity,
            first_seen=seen_at,
            last_seen=seen_at,
            hand=None,
            last_zone=None,
            history=[],
        )
        return food_id

    def restore_food(self, food_id: str, attributes: dict[str, Any]) -> None:
        """Insert a food read from a saved graph (already validated), keeping its id; its location is
        set afterwards (`put_at`), once every node it may be in exists."""
        self._insert_food(food_id, **attributes)
        self._count_existing_id(food_id)

    def _insert_food(
        self,
        food_id: str,
        *,
        name: str,
        state: str,
        quantity: str,
        first_seen: float,
        last_seen: float,
        hand: HandSlot | None,
        last_zone: str | None,
        history: list[Interaction],
        place_certainty: PlaceCertainty = "sure",
        said: str | None = None,
    ) -> None:
        self.graph.add_node(
            food_id,
            kind="food",
            name=name,
            said=said if said and said != name else None,
            state=state,
            quantity=quantity,
            hand=None,
            last_zone=last_zone,
            first_seen=first_seen,
            last_seen=last_seen,
            history=history,
        )
        keys = (self.names.canonical(name), self.names.head(name))
        self._keys[food_id] = keys
        for bucket in self._buckets(food_id):
            bisect.insort(bucket, (last_seen, food_id))
        self._remember(history)
        self._set_certainty(food_id, place_certainty)
        if hand is not None:
            self.hold(food_id, hand)

    def add_zone(
        self, name: str, zone_type: str, state: str = "unknown", history: list[Interaction] | None = None
    ) -> str:
        """Create a zone node and return its id ``zone_<name>_<n>``."""
        zone_id = self._new_id("zone", name)
        self.restore_zone(zone_id, name, zone_type, state, history or [])
        return zone_id

    def restore_zone(
        self, zone_id: str, name: str, zone_type: str, state: str, history: list[Interaction]
    ) -> None:
        """Insert a zone read from a saved graph, keeping its id."""
        self.graph.add_node(
            zone_id, kind="zone", name=name, zone_type=zone_type, state=state, history=history
        )
        self._zones_by_name.setdefault(normalise_phrase(name), zone_id)
        self._zone_ids.append(zone_id)
        self._count_existing_id(zone_id)
        self._remember(history)

    def ensure_zone(self, name: str, zone_type: str) -> tuple[str, bool]:
        """The zone called `name`, created if missing; the flag says whether it was created."""
        existing = self.zone_named(name)
        if existing is not None:
            return existing, False
        return self.add_zone(name, zone_type), True

    def _new_id(self, kind: str, name: str) -> str:
        prefix = f"{kind}_{slug(name)}"
        number = self._next_number.get(prefix, 1)
        self._next_number[prefix] = number + 1
        return f"{prefix}_{number}"

    def _count_existing_id(self, node_id: str) -> None:
        prefix, _, number = node_id.rpartition("_")
        self._next_number[prefix] = max(self._next_number.get(prefix, 1), int(number) + 1)

    # ----- lookups --------------------------------------------------------------------------------
    def has_food(self, food_id: str) -> bool:
        return bool(self.graph.nodes.get(food_id, {}).get("kind") == "food")

    def has_zone(self, zone_id: str) -> bool:
        return bool(self.graph.nodes.get(zone_id, {}).get("kind") == "zone")

    def zone_named(self, name: str) -> str | None:
        """The id of the zone whose name normalises like `name`, if any."""
        return self._zones_by_name.get(normalise_phrase(name))

    def foods_named(self, name: str, limit: int | None = None, exclude: Collection[str] = ()) -> list[str]:
        """Foods whose canonical name is that of `name` (synonyms folded), most recently seen first."""
        return _newest(self._by_name.get(self.names.canonical(name), []), limit, exclude)

    def foods_named_any(self, names: Collection[str], limit: int, exclude: Collection[str] = ()) -> list[str]:
        """Foods named by any of `names` (a dish's ingredients), most recently seen first."""
        found = {food_id for name in names for food_id in self.foods_named(name, limit, exclude)}
        return sorted(found, key=self.last_seen, reverse=True)[:limit]

    def foods_similar(
        self, name: str, limit: int | None = None, exclude: Collection[str] = (), said: str | None = None
    ) -> list[str]:
        """Foods sharing the head noun of `name` (a looser match), most recently seen first; not one
        whose other words differ ("tray" finds the baking tray; "cheese package" is no bread package),
        by the name's key or by the words said for it (`said`: "oil", whose key is olive oil, finds a
        sesame oil)."""
        words = set(self.names.canonical(name).split())
        said_words = set(singular_phrase(normalise_phrase(said)).split()) if said else words
        fits = [
            food_id
            for food_id in _newest(self._by_head.get(self.names.head(name), []), None, exclude)
            if _nested(words, keys := set(self._keys[food_id][0].split())) or _nested(said_words, keys)
        ]
        return fits[:limit] if limit is not None else fits

    def name_keys(self, food_id: str) -> tuple[str, str]:
        """The food's canonical name and head noun, as indexed."""
        return self._keys[food_id]

    def food_names(self) -> list[str]:
        """Every canonical food name in the graph."""
        return [name for name, bucket in self._by_name.items() if bucket]

    def same_food_name(self, first: str, second: str) -> bool:
        """Whether two names denote the same kind of food (synonyms folded)."""
        return self.names.canonical(first) == self.names.canonical(second)

    def hands(self) -> dict[HandSlot, str]:
        """Which food each occupied hand slot holds."""
        return dict(self._hands)

    def hand_of(self, food_id: str) -> HandSlot | None:
        hand: HandSlot | None = self.graph.nodes[food_id]["hand"]
        return hand

    def location_of(self, food_id: str) -> str | None:
        """The node the food is in or on: a zone, another object, or None (held, or unknown)."""
        return next(iter(self.graph.succ[food_id]), None)

    def zone_of(self, food_id: str) -> str | None:
        """The zone the food is at, through the objects it is in ("on the plate" -> the plate's zone)."""
        return self._zone_through(self.location_of(food_id))

    def _zone_through(self, node: str | None) -> str | None:
        """The zone `node` is, or is at through the objects it is in."""
        while node is not None and not self.has_zone(node):
            node = self.location_of(node)
        return node

    def contains(self, outer: str, inner: str) -> bool:
        """Whether `inner` is `outer` or is (through other objects) in or on it."""
        node: str | None = inner
        while node is not None:
            if node == outer:
                return True
            node = self.location_of(node) if self.has_food(node) else None
        return False

    def last_zone_of(self, food_id: str) -> str | None:
        """Where the food was (a zone or an object) before it was last picked up, for putting it back."""
        zone: str | None = self.graph.nodes[food_id]["last_zone"]
        return zone

    def place_certainty(self, food_id: str) -> PlaceCertainty:
        """Whether the food's place was said ("sure") or inferred from what was open or in use ("likely")."""
        certainty: PlaceCertainty = self.graph.nodes[food_id].get("place_certainty", "sure")
        return certainty

    def last_seen(self, food_id: str) -> float:
        seen: float = self.graph.nodes[food_id]["last_seen"]
        return seen

    def newest_foods(self, limit: int) -> list[str]:
        """The `limit` foods seen last, newest first (a scan: only for the rare general noun)."""
        return heapq.nlargest(limit, self.food_ids(), key=self.last_seen)

    def last_handled(self) -> str | None:
        """The food the latest narration was about (after a reload: the one seen last)."""
        if self._last_handled is None or not self.has_food(self._last_handled):
            self._last_handled = max(self.food_ids(), key=self.last_seen, default=None)
        return self._last_handled

    def name_work_zone(self, zone_id: str) -> None:
        """Remember the place a narration named where the person works (the hob, the sink)."""
        self._work_zone = zone_id

    def work_zone(self) -> str | None:
        """The place the person works at, named last; None before any is named."""
        return self._work_zone

    def food_ids(self) -> Iterator[str]:
        return (node for node, kind in self.graph.nodes(data="kind") if kind == "food")

    def zone_ids(self) -> Iterator[str]:
        """Every zone, in the order they were added (an index: a kitchen has few zones, many foods)."""
        return iter(self._zone_ids)

    def zones_in_state(self, state: str) -> list[str]:
        """The zones whose state is `state` ("open"), without building a view of every zone."""
        nodes = self.graph.nodes
        return [zone_id for zone_id in self._zone_ids if nodes[zone_id]["state"] == state]

    def food_count(self) -> int:
        return len(self._keys)

    def view(self, food_id: str, recent: int = 3, match: MatchKind = "") -> FoodView:
        """A read-only view of one food with its `recent` latest interactions.

        Built without re-validation (:func:`_trusted`): the graph's own data is already valid, and
        this runs several times per narration.
        """
        node = self.graph.nodes[food_id]
        location_id = self.location_of(food_id)
        zone_id = self._zone_through(location_id)
        history: list[Interaction] = node["history"]
        return _trusted(
            FoodView,
            food_id=food_id,
            name=node["name"],
            said=node["said"] or node["name"],
            state=node["state"],
            quantity=node["quantity"],
            location_id=location_id,
            location_name=self.graph.nodes[location_id]["name"] if location_id else None,
            zone_id=zone_id,
            zone_name=self.graph.nodes[zone_id]["name"] if zone_id else None,
            hand=node["hand"],
            first_seen=node["first_seen"],
            last_seen=node["last_seen"],
            interaction_count=len(history),
            recent=tuple(history[-recent:]) if recent > 0 else (),
            match=match,
            place_certainty=self.place_certainty(food_id),
        )

    def zone_view(self, zone_id: str) -> ZoneView:
        """A read-only view of one zone, built without re-validation like :meth:`view`."""
        node = self.graph.nodes[zone_id]
        return _trusted(
            ZoneView, zone_id=zone_id, name=node["name"], zone_type=node["zone_type"], state=node["state"]
        )

    def history(self, node_id: str) -> list[Interaction]:
        """The full interaction history of a food or zone, oldest first."""
        return list(self.graph.nodes[node_id]["history"])

    def last_narrated(self, node_id: str) -> float:
        """When a narration last touched the food or zone (for an open zone: when it was opened)."""
        history = self.graph.nodes[node_id]["history"]
        return history[-1].start if history else float("-inf")

    def events(self) -> list[Interaction]:
        """Narrations that touched neither a known food nor a zone (kept so none is lost)."""
        return list(self.graph.graph["events"])

    def has_narration(self, narration_id: str) -> bool:
        """Whether a narration with this id was already applied (ingesting again skips it)."""
        return narration_id in self._narrations

    def narration_count(self) -> int:
        return len(self._narrations)

    def _remember(self, history: list[Interaction]) -> None:
        self._narrations.update(entry.narration_id for entry in history if entry.narration_id)

    # ----- changes --------------------------------------------------------------------------------
    def hold(self, food_id: str, hand: HandSlot) -> None:
        """Put a food into a free hand slot (it leaves its zone, which is remembered)."""
        holder = self._hands.get(hand)
        if holder is not None and holder != food_id:
            raise ValueError(f"the {hand} hand already holds {holder}")
        self._release_hand(food_id)
        self._leave_location(food_id)
        self.graph.nodes[food_id]["hand"] = hand
        self._hands[hand] = food_id

    def put_at(self, food_id: str, place_id: str, certainty: PlaceCertainty = "sure") -> None:
        """Move a food to a zone or into/onto another object (out of any hand); `certainty` says
        whether a narration named the place or the context implied it."""
        if self.has_food(place_id) and self.contains(food_id, place_id):
            raise ValueError(f"{food_id} cannot be put in {place_id}, which is in it")
        self.forget_location(food_id)
        self.graph.add_edge(food_id, place_id, relation=LOCATED_IN)
        self._set_certainty(food_id, certainty)

    def _set_certainty(self, food_id: str, certainty: PlaceCertainty) -> None:
        """Only a likely place is marked on the node (and in the saved file); sure is the default."""
        node = self.graph.nodes[food_id]
        if certainty == "likely":
            node["place_certainty"] = certainty
        else:
            node.pop("place_certainty", None)

    def forget_location(self, food_id: str) -> None:
        """The food is neither held nor at a known place any more."""
        self._release_hand(food_id)
        self._leave_location(food_id)

    def _leave_location(self, food_id: str) -> None:
        place_id = self.location_of(food_id)
        if place_id is not None:
            self.graph.nodes[food_id]["last_zone"] = place_id
            self.graph.remove_edge(food_id, place_id)

    def _release_hand(self, food_id: str) -> None:
        node = self.graph.nodes[food_id]
        if node["hand"] is not None:
            del self._hands[node["hand"]]
            node["hand"] = None

    def set_properties(self, food_id: str, state: str | None = None, quantity: str | None = None) -> None:
        node = self.graph.nodes[food_id]
        if state is not None:
            node["state"] = state
        if quantity is not None:
            node["quantity"] = quantity

    def record(self, food_id: str, interaction: Interaction) -> None:
        """Append to a food's history and move its last-seen time forward (re-sorting its buckets)."""
        node = self.graph.nodes[food_id]
        node["history"].append(interaction)
        self._remember([interaction])
        self._last_handled = food_id
        seen = node["last_seen"]
        if interaction.end > seen:
            for bucket in self._buckets(food_id):
                del bucket[bisect.bisect_left(bucket, (seen, food_id))]
                bisect.insort(bucket, (interaction.end, food_id))
            node["last_seen"] = interaction.end

    def _buckets(self, food_id: str) -> tuple[list[tuple[float, str]], list[tuple[float, str]]]:
        canonical, head = self._keys[food_id]
        return self._by_name.setdefault(canonical, []), self._by_head.setdefault(head, [])

    def record_zone(self, zone_id: str, interaction: Interaction, state: str | None = None) -> None:
        node = self.graph.nodes[zone_id]
        node["history"].append(interaction)
        self._remember([interaction])
        if state is not None:
            node["state"] = state

    def record_event(self, interaction: Interaction) -> None:
        self.graph.graph["events"].append(interaction)
        self._remember([interaction])


_View = TypeVar("_View", FoodView, ZoneView)


def _trusted(model: type[_View], **values: Any) -> _View:
    """What ``model.model_construct(**values)`` builds when `values` holds every field (the views
    do), without its per-field alias and default lookups: those took a sixteenth of a rules-only
    ingest. tests/kg/test_kg_graph.py checks both give the same model."""
    built = model.__new__(model)
    object.__setattr__(built, "__dict__", values)
    object.__setattr__(built, "__pydantic_fields_set__", set(values))
    object.__setattr__(built, "__pydantic_extra__", None)
    object.__setattr__(built, "__pydantic_private__", None)
    return built


def _nested(first: set[str], second: set[str]) -> bool:
    """Whether one name's words are all among the other's ("tray" and "baking tray")."""
    return first <= second or second <= first


def _newest(bucket: list[tuple[float, str]], limit: int | None, exclude: Collection[str]) -> list[str]:
    """Ids from a bucket sorted by last-seen time, newest first, skipping `exclude`, at most `limit`."""
    found: list[str] = []
    for _, food_id in reversed(bucket):
        if food_id not in exclude:
            found.append(food_id)
            if limit is not None and len(found) >= limit:
                break
    return found
