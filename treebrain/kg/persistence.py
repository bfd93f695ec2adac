"""Saving and loading the kitchen graph: node-link JSON written atomically, GraphML export.

Saving holds the file's lock and replaces the file atomically, so a crash mid-save leaves the
previous complete graph; stale temporary files left by such crashes are swept under the lock.
Loading validates everything (types, ids, references, no object inside itself) and reports all
problems located as file:line:column; states a kitchen cannot have (two foods in one hand, a held
food that is also somewhere) are repaired with a warning instead, as the executor does. Version 1
files (before objects could be in other objects and history entries cited narration ids) load as
they are.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import msgspec
import networkx as nx
from pydantic import Field, ValidationError

from treebrain.documents import Document, load_located
from treebrain.errors import InputError, Problem
from treebrain.files import atomic_write_bytes, atomic_write_text, file_lock
from treebrain.kg.consistency import put_back
from treebrain.kg.graph import LOCATED_IN, KitchenGraph
from treebrain.kg.models import Frozen, HandSlot, Interaction, PlaceCertainty
from treebrain.kg.names import NameResolver

GRAPH_FORMAT = "treebrain.kitchen-kg"
GRAPH_VERSION = 2
_RESTORED_FIELDS = {
    "name",
    "said",
    "state",
    "quantity",
    "first_seen",
    "last_seen",
    "last_zone",
    "place_certainty",
}


class FoodRecord(Frozen):
    """A food node as stored in the file."""

    id: str = Field(pattern=r"^food_[a-z0-9_]+_[0-9]+$")
    kind: Literal["food"]
    name: str = Field(min_length=1)
    said: str | None = Field(None, description="the narration's own noun; name is its class")
    state: str
    quantity: str
    hand: HandSlot | None = None
    last_zone: str | None = None
    place_certainty: PlaceCertainty = "sure"
    first_seen: float
    last_seen: float
    history: list[Interaction] = []


class ZoneRecord(Frozen):
    """A zone node as stored in the file."""

    id: str = Field(pattern=r"^zone_[a-z0-9_]+_[0-9]+$")
    kind: Literal["zone"]
    name: str = Field(min_length=1)
    zone_type: str
    state: str = "unknown"
    history: list[Interaction] = []


class LinkRecord(Frozen):
    source: str
    target: str
    relation: Literal["located_in"]


class GraphAttributes(Frozen):
    events: list[Interaction] = []
    work_zone: str | None = Field(None, description="the place the person works at, named last")


class GraphFile(Frozen):
    """The file's outer shape; nodes are checked one by one so each problem names its node."""

    format: Literal["treebrain.kitchen-kg"]
    version: Literal[1, 2]
    directed: Literal[True]
    multigraph: Literal[False]
    graph: GraphAttributes
    nodes: list[dict[str, Any]]
    links: list[LinkRecord]


@dataclass
class LoadedGraph:
    """A loaded graph and the repairs made while loading it."""

    kg: KitchenGraph
    warnings: list[str] = field(default_factory=list)


def to_node_link(kg: KitchenGraph) -> dict[str, Any]:
    """The graph as JSON-safe node-link data (networkx's format plus a format tag and version)."""
    data: dict[str, Any] = nx.node_link_data(kg.graph, edges="links")
    for node in data["nodes"]:
        node["history"] = [entry.model_dump(mode="json") for entry in node["history"]]
    data["graph"] = {
        "events": [entry.model_dump(mode="json") for entry in kg.events()],
        "work_zone": kg.work_zone(),
    }
    return {"format": GRAPH_FORMAT, "version": GRAPH_VERSION, **data}


def save_graph(kg: KitchenGraph, path: str | Path) -> None:
    """Write the graph atomically under the file's lock (a crash never leaves a torn file)."""
    target = Path(path)
    with file_lock(target):
        for stale in target.parent.glob(f".{target.name}.*.tmp"):
            with contextlib.suppress(FileNotFoundError):
                stale.unlink()
        atomic_write_bytes(target, _indented_json(to_node_link(kg)))


def _indented_json(data: dict[str, Any]) -> bytes:
    """What ``json.dumps(data, indent=1, ensure_ascii=False)`` writes (byte for byte but the exponent
    of very large or small numbers: 1e16, not 1e+16), by msgspec's C encoder: the standard library
    indents in pure Python, which took most of a save. Times are finite (narrations.parse_timestamp)."""
    return msgspec.json.format(msgspec.json.encode(data), indent=1) + b"\n"


def load_graph(path: str | Path, names: NameResolver | None = None) -> LoadedGraph:
    """Read and validate a saved graph; InputError lists every problem with its location."""
    document, source = load_located(path, GraphFile, as_json=True, written_here=True)
    return _build(document, source, names)


def _build(document: GraphFile, source: Document, names: NameResolver | None) -> LoadedGraph:
    problems: list[Problem] = []
    foods: dict[str, tuple[int, FoodRecord]] = {}
    zones: dict[str, tuple[int, ZoneRecord]] = {}
    for index, raw in enumerate(document.nodes):
        record = _node_record(raw, index, source, problems)
        if record is None:
            continue
        if record.id in foods or record.id in zones:
            problems.append(source.problem_at(("nodes", index, "id"), f"duplicate node id {record.id!r}"))
        elif isinstance(record, FoodRecord):
            foods[record.id] = (index, record)
        else:
            zones[record.id] = (index, record)
    for food_id, (index, food) in foods.items():
        if food.last_zone is not None and food.last_zone not in zones and food.last_zone not in foods:
            message = f"no zone or object {food.last_zone!r} in the file"
            problems.append(source.problem_at(("nodes", index, "last_zone"), message))
        if food.last_seen < food.first_seen:
            message = f"{food_id} is last seen before it is first seen"
            problems.append(source.problem_at(("nodes", index, "last_seen"), message))
    food_zone = _locations(document.links, foods, zones, source, problems)
    if problems:
        raise InputError(problems)
    loaded = _assemble(foods, zones, food_zone, document.graph.events, names)
    if document.graph.work_zone is not None and loaded.kg.has_zone(document.graph.work_zone):
        loaded.kg.name_work_zone(document.graph.work_zone)
    return loaded


def _node_record(
    raw: dict[str, Any], index: int, source: Document, problems: list[Problem]
) -> FoodRecord | ZoneRecord | None:
    models: dict[object, type[FoodRecord] | type[ZoneRecord]] = {"food": FoodRecord, "zone": ZoneRecord}
    model = models.get(raw.get("kind"))
    if model is None:
        problems.append(source.problem_at(("nodes", index, "kind"), "kind must be 'food' or 'zone'"))
        return None
    try:
        return model.model_validate(raw)
    except ValidationError as error:
        problems.extend(source.problems_from(error, ("nodes", index)))
        return None


def _locations(
    links: list[LinkRecord],
    foods: dict[str, tuple[int, FoodRecord]],
    zones: dict[str, tuple[int, ZoneRecord]],
    source: Document,
    problems: list[Problem],
) -> dict[str, str]:
    food_zone: dict[str, str] = {}
    for index, link in enumerate(links):
        if link.source not in foods:
            problems.append(
                source.problem_at(("links", index, "source"), f"{link.source!r} is not a food node")
            )
        elif link.target not in zones and link.target not in foods:
            problems.append(
                source.problem_at(("links", index, "target"), f"{link.target!r} is not a zone or food node")
            )
        elif link.source in food_zone:
            problems.append(source.problem_at(("links", index), f"{link.source} is located in two places"))
        elif _inside(link.target, link.source, food_zone):
            problems.append(source.problem_at(("links", index), f"{link.source} would be inside itself"))
        else:
            food_zone[link.source] = link.target
    return food_zone


def _inside(place: str, food: str, food_zone: dict[str, str]) -> bool:
    """Whether putting `food` at `place` closes a loop of objects inside each other."""
    seen: set[str] = set()
    node: str | None = place
    while node is not None and node not in seen:
        if node == food:
            return True
        seen.add(node)
        node = food_zone.get(node)
    return False


def _assemble(
    foods: dict[str, tuple[int, FoodRecord]],
    zones: dict[str, tuple[int, ZoneRecord]],
    food_zone: dict[str, str],
    events: list[Interaction],
    names: NameResolver | None,
) -> LoadedGraph:
    kg = KitchenGraph(names)
    loaded = LoadedGraph(kg)
    for zone_id, (_, zone) in zones.items():
        kg.restore_zone(zone_id, zone.name, zone.zone_type, zone.state, list(zone.history))
    keeper = _hand_keepers(foods)
    displaced: list[tuple[str, HandSlot]] = []
    placed: list[tuple[str, str, PlaceCertainty]] = []
    for food_id, (_, food) in foods.items():
        hand: HandSlot | None = food.hand
        at_zone = food_zone.get(food_id)
        if hand is not None and keeper[hand] != food_id:
            displaced.append((food_id, hand))
            hand = None
        elif hand is not None and at_zone is not None:
            loaded.warnings.append(f"{food_id} was both in the {hand} hand and at {at_zone}; kept it in hand")
            at_zone = None
        attributes = food.model_dump(include=_RESTORED_FIELDS)
        kg.restore_food(food_id, {**attributes, "hand": hand, "history": list(food.history)})
        if at_zone is not None:
            placed.append((food_id, at_zone, food.place_certainty))
    for food_id, place_id, certainty in placed:
        kg.put_at(food_id, place_id, certainty)
    for food_id, hand in displaced:
        zone_now = kg.zone_of(food_id)
        where = f"left at {zone_now}" if zone_now else put_back(kg, food_id)
        kept = keeper[hand]
        loaded.warnings.append(
            f"{food_id} and {kept} both claimed the {hand} hand; kept {kept} (seen last), {food_id} was {where}"
        )
    for event in events:
        kg.record_event(event)
    return loaded


def _hand_keepers(foods: dict[str, tuple[int, FoodRecord]]) -> dict[HandSlot, str]:
    """For each claimed hand slot, the food that keeps it: the one seen most recently."""
    keeper: dict[HandSlot, str] = {}
    for food_id, (_, food) in foods.items():
        if food.hand is not None:
            current = keeper.get(food.hand)
            if current is None or food.last_seen > foods[current][1].last_seen:
                keeper[food.hand] = food_id
    return keeper


def export_graphml(kg: KitchenGraph, path: str | Path) -> None:
    """Write the graph as GraphML (histories as JSON text, since GraphML has no lists)."""
    flat: Any = nx.DiGraph()
    for node_id, attributes in kg.graph.nodes(data=True):
        flat.add_node(node_id, **{key: _graphml_value(value) for key, value in attributes.items()})
    for food_id, zone_id in kg.graph.edges():
        flat.add_edge(food_id, zone_id, relation=LOCATED_IN)
    atomic_write_text(path, "\n".join(nx.generate_graphml(flat)) + "\n")


def _graphml_value(value: object) -> str | float:
    if isinstance(value, list):
        return json.dumps([entry.model_dump(mode="json") for entry in value], ensure_ascii=False)
    if isinstance(value, float | int):
        return float(value)
    return "" if value is None else str(value)
