from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import networkx as nx
import pytest

from tests.kg.conftest import entry
from treebrain.errors import InputError
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import Interaction, OutcomeKind
from treebrain.kg.persistence import export_graphml, load_graph, save_graph, to_node_link
from treebrain.kg.vocabulary import Vocabulary


def _kitchen(kg: KitchenGraph) -> KitchenGraph:
    fridge = kg.add_zone("fridge", "appliance")
    milk = kg.add_food("milk", state="opened", quantity="1 bottle", seen_at=1.0)
    kg.put_at(milk, fridge)
    kg.hold(milk, "right")
    kg.record(
        milk,
        Interaction(start=1.0, end=2.0, action="pick up", narration="take milk", outcome=OutcomeKind.TAKE),
    )
    mug = kg.add_food("mug", seen_at=3.0)
    kg.put_at(mug, kg.add_zone("counter", "surface"))
    kg.record_zone(
        fridge, Interaction(start=0.0, end=0.5, action="open", narration="open", outcome="ZONE_EVENT")
    )
    kg.record_event(Interaction(start=4.0, end=5.0, action="unknown", narration="hm", outcome="UNATTRIBUTED"))
    return kg


def _sorted(data: dict[str, Any]) -> dict[str, Any]:
    """Node-link data with nodes in id order (the order of nodes carries no meaning)."""
    return {**data, "nodes": sorted(data["nodes"], key=lambda node: node["id"])}


def test_round_trip_keeps_everything(kg: KitchenGraph, vocabulary: Vocabulary, tmp_path: Path) -> None:
    _kitchen(kg)
    path = tmp_path / "kg.json"
    save_graph(kg, path)
    loaded = load_graph(path, vocabulary.names)
    assert loaded.warnings == []
    assert _sorted(to_node_link(loaded.kg)) == _sorted(to_node_link(kg))
    again = loaded.kg
    assert again.hands() == {"right": "food_milk_1"}
    assert again.last_zone_of("food_milk_1") == "zone_fridge_1"
    assert again.foods_named("milk carton") == ["food_milk_1"]
    assert again.add_food("milk") == "food_milk_2"
    assert json.loads(path.read_text())["format"] == "treebrain.kitchen-kg"


def test_save_sweeps_stale_temporary_files(kg: KitchenGraph, tmp_path: Path) -> None:
    stale = tmp_path / ".kg.json.abc123.tmp"
    stale.write_text("{half")
    save_graph(kg, tmp_path / "kg.json")
    assert not stale.exists()


def test_graphml_export_is_readable(kg: KitchenGraph, tmp_path: Path) -> None:
    _kitchen(kg)
    export_graphml(kg, tmp_path / "kg.graphml")
    graph = nx.read_graphml(tmp_path / "kg.graphml")
    assert graph.nodes["food_milk_1"]["hand"] == "right"
    assert json.loads(graph.nodes["food_milk_1"]["history"])[0]["action"] == "pick up"
    assert list(graph.edges(data="relation")) == [("food_mug_1", "zone_counter_1", "located_in")]


def _saved_lines(kg: KitchenGraph, path: Path) -> list[str]:
    save_graph(_kitchen(kg), path)
    return path.read_text().split("\n")


def _line_of(lines: list[str], text: str, after: int = 0) -> int:
    return next(number for number, line in enumerate(lines, start=1) if number > after and text in line)


def test_load_reports_every_problem_at_its_line(kg: KitchenGraph, tmp_path: Path) -> None:
    path = tmp_path / "kg.json"
    lines = _saved_lines(kg, path)
    state_line = _line_of(lines, '"state": "opened"')
    lines[state_line - 1] = lines[state_line - 1].replace('"opened"', "5")
    target_line = _line_of(lines, '"target": "zone_counter_1"')
    lines[target_line - 1] = lines[target_line - 1].replace("zone_counter_1", "zone_attic_1")
    path.write_text("\n".join(lines))
    with pytest.raises(InputError) as raised:
        load_graph(path)
    state_column = lines[state_line - 1].index("5") + 1
    target_column = lines[target_line - 1].index('"zone_attic_1"') + 1
    assert [str(problem) for problem in raised.value.problems] == [
        f"{path}:{state_line}:{state_column}: nodes[1].state: Input should be a valid string (got 5)",
        f"{path}:{target_line}:{target_column}: links[0].target: 'zone_attic_1' is not a zone or food node",
    ]


def test_load_reports_json_syntax_errors_and_structure(kg: KitchenGraph, tmp_path: Path) -> None:
    path = tmp_path / "kg.json"
    path.write_text('{"format": "treebrain.kitchen-kg",\n "version": 1,,}')
    with pytest.raises(InputError, match=r"kg\.json:2:15: JSON syntax error: Expecting property name"):
        load_graph(path)
    path.write_text(
        '{"format": "other", "version": 1, "directed": true, "multigraph": false,\n'
        ' "graph": {}, "nodes": [{"id": "x", "kind": "pot"}], "links": []}'
    )
    with pytest.raises(InputError) as raised:
        load_graph(path)
    assert [str(problem) for problem in raised.value.problems] == [
        f"{path}:1:12: format: Input should be 'treebrain.kitchen-kg' (got 'other')"
    ]
    path.write_text(
        '{"format": "treebrain.kitchen-kg", "version": 1, "directed": true, "multigraph": false,\n'
        ' "graph": {}, "nodes": [{"id": "x", "kind": "pot"}], "links": []}'
    )
    with pytest.raises(InputError, match=r"kg\.json:2:45: nodes\[0\]\.kind: kind must be 'food' or 'zone'"):
        load_graph(path)
    with pytest.raises(InputError, match="file not found"):
        load_graph(tmp_path / "missing.json")


def test_duplicate_ids_and_dangling_last_zone_are_errors(kg: KitchenGraph, tmp_path: Path) -> None:
    path = tmp_path / "kg.json"
    save_graph(_kitchen(kg), path)
    data = json.loads(path.read_text())
    data["nodes"].append(dict(data["nodes"][0]))
    milk = next(node for node in data["nodes"] if node["id"] == "food_milk_1")
    milk["last_zone"] = "zone_cellar_1"
    path.write_text(json.dumps(data, indent=1))
    with pytest.raises(InputError) as raised:
        load_graph(path)
    messages = [problem.message for problem in raised.value.problems]
    assert messages == [
        "nodes[4].id: duplicate node id 'zone_fridge_1'",
        "nodes[1].last_zone: no zone or object 'zone_cellar_1' in the file",
    ]
    assert all(problem.location.line > 0 for problem in raised.value.problems)


def test_impossible_hand_states_are_repaired_with_warnings(kg: KitchenGraph, tmp_path: Path) -> None:
    path = tmp_path / "kg.json"
    save_graph(_kitchen(kg), path)
    data = json.loads(path.read_text())
    mug = next(node for node in data["nodes"] if node["id"] == "food_mug_1")
    mug["hand"] = "right"
    path.write_text(json.dumps(data))
    loaded = load_graph(path)
    assert loaded.warnings == [
        "food_mug_1 was both in the right hand and at zone_counter_1; kept it in hand",
        "food_milk_1 and food_mug_1 both claimed the right hand; kept food_mug_1 (seen last), "
        "food_milk_1 was put back at zone_fridge_1",
    ]
    assert loaded.kg.hands() == {"right": "food_mug_1"}
    assert loaded.kg.zone_of("food_milk_1") == "zone_fridge_1"
    assert loaded.kg.zone_of("food_mug_1") is None


def test_objects_in_objects_and_narration_ids_survive_a_round_trip(kg: KitchenGraph, tmp_path: Path) -> None:
    table = kg.add_zone("table", "surface")
    plate = kg.add_food("plate")
    bread = kg.add_food("bread")
    kg.put_at(bread, plate)  # the plate is put on the table after the bread is on it
    kg.put_at(plate, table)
    kg.record(bread, entry("P01_01_7", 7.0, "put bread on plate", OutcomeKind.PLACE))
    path = tmp_path / "kg.json"
    save_graph(kg, path)
    again = load_graph(path).kg
    assert (again.location_of(bread), again.zone_of(bread)) == (plate, table)
    assert again.has_narration("P01_01_7") and again.narration_count() == 1
    data = json.loads(path.read_text())
    assert data["version"] == 2
    data["links"].append({"source": plate, "target": bread, "relation": "located_in"})
    data["links"] = [link for link in data["links"] if link["source"] != plate] + [data["links"][-1]]
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match=r"links\[1\]: food_plate_1 would be inside itself"):
        load_graph(path)


def test_a_version_1_file_loads_as_it_is(kg: KitchenGraph, tmp_path: Path) -> None:
    path = tmp_path / "kg.json"
    save_graph(_kitchen(kg), path)
    data = json.loads(path.read_text())
    data["version"] = 1
    for node in data["nodes"]:
        for record in node["history"]:
            del record["narration_id"]
    path.write_text(json.dumps(data))
    loaded = load_graph(path).kg
    assert loaded.view("food_milk_1").hand == "right" and loaded.narration_count() == 0
