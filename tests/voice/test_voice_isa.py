from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from treebrain.errors import InputError
from treebrain.voice.isa_loader import load_instruction_set

SHIPPED = Path(__file__).parents[2] / "config" / "voice" / "instruction_set.json"


def shipped_data() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SHIPPED.read_text())
    return data


def problems_of(tmp_path: Path, data: dict[str, Any]) -> list[str]:
    path = tmp_path / "instruction_set.json"
    path.write_text(json.dumps(data, indent=2))
    with pytest.raises(InputError) as caught:
        load_instruction_set(path)
    return [str(problem).removeprefix(f"{path}:") for problem in caught.value.problems]


def test_shipped_instruction_set_derives_the_valid_names() -> None:
    iset = load_instruction_set(SHIPPED)
    assert iset.valid_composites() == [
        "move_over", "pick_up", "add_layer", "place_at", "transfer", "return_to_stack",
        "clear_assembly", "go_home", "set_active_zone", "nudge", "change_speed", "pause",
    ]  # fmt: skip
    assert iset.valid_items() == ["bread", "meat", "cheese", "lettuce", "tomato"]
    assert iset.valid_zones() == ["assembly_left", "assembly_fixture", "assembly_right"]
    assert iset.valid_locations() == ["home", "serving_plate", "side_table"]
    assert list(iset.primitives) == ["move_to", "move_relative", "gripper_set", "wait", "set_speed"]
    assert iset.item_names_by_alias()["ham"] == "meat"
    assert iset.zone_names_by_alias()["over there"] == "assembly_fixture"


def test_learned_composites_join_the_valid_names(tmp_path: Path) -> None:
    data = shipped_data()
    data["learned_composites"] = {
        "the_usual": {
            "sequence": [{"instruction": "add_layer", "params": {"item": "bread"}}],
            "confidence": 0.9,
        }
    }
    path = tmp_path / "instruction_set.json"
    path.write_text(json.dumps(data))
    iset = load_instruction_set(path)
    assert iset.valid_composites()[-1] == "the_usual"
    assert iset.signature("the_usual") == {}


def test_unknown_and_missing_primitives(tmp_path: Path) -> None:
    data = shipped_data()
    data["primitives"]["teleport"] = data["primitives"].pop("wait")
    data["primitives"]["move_relative"]["args"] = {"direction": "d"}
    assert problems_of(tmp_path, data) == [
        "26:17: primitives: primitive 'wait' is missing",
        "38:15: primitives.move_relative.args: arguments must be exactly direction, distance_mm",
        "54:17: primitives.teleport: the arm has no primitive 'teleport' "
        "(move_to, move_relative, gripper_set, wait, set_speed)",
    ]


def test_expansion_problems_are_located(tmp_path: Path) -> None:
    data = shipped_data()
    pick_up = data["composites"]["pick_up"]["expansion"]
    pick_up[0]["params"]["place"] = "{itme}"
    pick_up[1]["args"]["force"] = 3
    data["composites"]["go_home"]["expansion"] = [{"call": "fly", "params": {}}]
    data["composites"]["nudge"]["expansion"][0]["args"]["distance_mm"] = "{direction.x_mm}"
    messages = [problem.split(": ", 1)[1] for problem in problems_of(tmp_path, data)]
    assert messages == [
        "composites.pick_up.expansion[0].params.place: {itme}: no parameter or context value named 'itme' here",
        "composites.pick_up.expansion[1].args.force: gripper_set has no argument 'force'",
        "composites.go_home.expansion[0].call: 'fly' is not a tier-1 composite",
        "composites.nudge.expansion[0].args.distance_mm: {direction.x_mm}: a direction has no attribute 'x_mm'",
    ]


def test_an_expansion_step_needs_exactly_one_action(tmp_path: Path) -> None:
    data = shipped_data()
    data["composites"]["pause"]["expansion"] = [{"call": "go_home", "primitive": "wait"}]
    messages = [problem.split(": ", 1)[1] for problem in problems_of(tmp_path, data)]
    assert messages == [
        "composites.pause.expansion[0]: Value error, an expansion step needs exactly one of primitive, call, "
        "set_active_zone, for_each_layer (found primitive, call)"
    ]


def test_cycles_and_name_clashes(tmp_path: Path) -> None:
    data = shipped_data()
    data["composites"]["go_home"]["expansion"] = [{"call": "pause", "params": {}}]
    data["composites"]["pause"]["expansion"] = [{"call": "go_home", "params": {}}]
    data["locations"]["bread"] = {"x_mm": 1, "y_mm": 1, "z_mm": 1}
    data["default_zone"] = "kitchen"
    data["learned_composites"] = {
        "pick_up": {"sequence": [], "confidence": 1},
        "loop_a": {"sequence": [{"instruction": "loop_b"}], "confidence": 1},
        "loop_b": {
            "sequence": [
                {"instruction": "loop_a"},
                {"instruction": "add_layer", "params": {"item": "avocado"}},
            ],
            "confidence": 1,
        },
    }
    messages = sorted(problem.split(": ", 1)[1] for problem in problems_of(tmp_path, data))
    assert messages == [
        "composites.go_home: calls itself: go_home -> pause -> go_home",
        "composites.pause: calls itself: pause -> go_home -> pause",
        "default_zone: 'kitchen' is not an assembly zone",
        "learned_composites.loop_a: calls itself: loop_a -> loop_b -> loop_a",
        "learned_composites.loop_b.sequence[1]: add_layer.item: 'avocado' is not a valid item "
        "(valid: bread, meat, cheese, lettuce, tomato)",
        "learned_composites.loop_b: calls itself: loop_b -> loop_a -> loop_b",
        "learned_composites.pick_up: 'pick_up' would overwrite a built-in instruction",
        "locations.bread: 'bread' is already a name in items",
    ]


def test_context_names_cannot_be_parameters(tmp_path: Path) -> None:
    data = shipped_data()
    data["composites"]["go_home"]["params"] = {
        "held": {"kind": "item", "default": "bread"},
        "layer": {"kind": "item", "default": "meat"},
    }
    messages = [problem.split(": ", 1)[1] for problem in problems_of(tmp_path, data)]
    assert messages == [
        "composites.go_home.params.held: 'held' is a context name and cannot be a parameter",
        "composites.go_home.params.layer: 'layer' is a context name and cannot be a parameter",
    ]
