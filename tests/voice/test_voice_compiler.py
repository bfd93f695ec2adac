from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treebrain.robots.arm.commands import (
    PRIMITIVE_MODELS,
    GripperSet,
    MoveRelative,
    MoveTo,
    SetSpeed,
    describe,
)
from treebrain.robots.arm.limits import ArmLimits, Pose
from treebrain.robots.arm.workcell import ArmScene
from treebrain.voice.compiler import CompiledProgram, CompileError, compile_sequence
from treebrain.voice.isa import InstructionSet
from treebrain.voice.isa_loader import load_instruction_set

SHIPPED = Path(__file__).parents[2] / "config" / "voice" / "instruction_set.json"
ISET = load_instruction_set(SHIPPED)


def step(instruction: str, **params: Any) -> dict[str, Any]:
    return {"instruction": instruction, "params": params}


def scene(**changes: Any) -> ArmScene:
    base = ArmScene(
        source="sim_arm",
        pose=Pose(x_mm=350, y_mm=0, z_mm=450),
        speed_mm_s=250,
        stacks={"bread": 2, "meat": 0, "cheese": 1, "lettuce": 1, "tomato": 1},
        zones={"assembly_left": [], "assembly_fixture": [], "assembly_right": []},
        locations={"home": [], "serving_plate": [], "side_table": []},
    )
    return base.model_copy(update=changes)


def test_add_layer_expands_to_a_pick_and_a_place_in_the_active_zone() -> None:
    program = compile_sequence(
        [step("set_active_zone", zone="assembly_left"), step("add_layer", item="cheese")], ISET
    )
    assert [describe(command) for command in program.commands] == [
        "move_to(x_mm=450, y_mm=400, z_mm=160, place=cheese)",
        "gripper_set(state=open)",
        "move_to(x_mm=450, y_mm=400, z_mm=40, place=cheese)",
        "gripper_set(state=closed)",
        "move_to(x_mm=450, y_mm=400, z_mm=160, place=cheese)",
        "move_to(x_mm=520, y_mm=-120, z_mm=150, place=assembly_left)",
        "move_to(x_mm=520, y_mm=-120, z_mm=30, place=assembly_left)",
        "gripper_set(state=open)",
        "move_to(x_mm=520, y_mm=-120, z_mm=150, place=assembly_left)",
    ]
    assert program.step_of_command == [1] * 9
    assert program.active_zone == "assembly_left"
    assert program.final_scene.zones["assembly_left"] == ["cheese"]
    assert CompiledProgram.model_validate(program.model_dump(mode="json")) == program


def test_parameters_are_substituted_from_profiles_and_aliases() -> None:
    program = compile_sequence(
        [
            step("change_speed", speed="slow"),
            step("nudge", direction="left"),
            step("nudge", direction="up", distance="5 cm"),
            step("nudge", direction="down", distance=12.5),
        ],
        ISET,
    )
    assert program.commands == [
        SetSpeed(mm_s=120),
        MoveRelative(direction="left", distance_mm=20),
        MoveRelative(direction="up", distance_mm=50),
        MoveRelative(direction="down", distance_mm=12.5),
    ]


def test_learned_composites_expand_through_their_sequence(tmp_path: Path) -> None:
    data = json.loads(SHIPPED.read_text())
    data["learned_composites"] = {
        "bread_base": {"sequence": [step("add_layer", item="bread")], "confidence": 0.9},
        "the_usual": {
            "sequence": [step("bread_base"), step("add_layer", item="cheese"), step("bread_base")],
            "confidence": 0.9,
        },
    }
    path = tmp_path / "instruction_set.json"
    path.write_text(json.dumps(data))
    iset = load_instruction_set(path)
    program = compile_sequence([step("the_usual"), step("go_home")], iset)
    assert program.final_scene.zones["assembly_fixture"] == ["bread", "cheese", "bread"]
    assert program.commands[-1] == MoveTo(x_mm=350, y_mm=0, z_mm=450, place="home")
    assert program.step_of_command == [0] * 27 + [1]


def test_unknown_composites_and_bad_params_produce_nothing() -> None:
    with pytest.raises(CompileError) as caught:
        compile_sequence(
            [
                step("go_home"),
                step("move_to", x_mm=9999, y_mm=0, z_mm=0),
                step("add_layer", item="avocado"),
                {"oops": 1},
            ],
            ISET,
        )
    assert str(caught.value).splitlines() == [
        "sequence:2: move_to(x_mm=9999, y_mm=0, z_mm=0): move_to is not a valid instruction",
        "sequence:3: add_layer(item=avocado): add_layer.item: 'avocado' is not a valid item "
        "(valid: bread, meat, cheese, lettuce, tomato)",
        "sequence:4: not a step {instruction, params}: {'oops': 1}",
    ]


def test_an_empty_stack_in_the_drivers_scene_is_a_compile_error() -> None:
    with pytest.raises(CompileError) as caught:
        compile_sequence(
            [step("add_layer", item="bread"), step("add_layer", item="meat")], ISET, scene=scene()
        )
    assert str(caught.value) == "sequence:2: add_layer(item=meat): cannot pick meat: the meat stack is empty"


def test_holding_conditions() -> None:
    with pytest.raises(CompileError, match=r"place_at needs an item in the gripper; pick one up first"):
        compile_sequence([step("place_at", location="serving_plate")], ISET)
    with pytest.raises(CompileError, match=r"pick_up needs an empty gripper but it holds the cheese"):
        compile_sequence([step("pick_up", item="cheese"), step("pick_up", item="bread")], ISET)
    assert compile_sequence([step("return_to_stack")], ISET).commands == []
    held = compile_sequence([step("pick_up", item="tomato"), step("return_to_stack")], ISET, scene=scene())
    assert held.final_scene.stacks["tomato"] == 1
    assert held.final_scene.held is None


def test_clear_assembly_returns_layers_top_first() -> None:
    built = scene(zones={"assembly_left": [], "assembly_fixture": ["bread", "cheese"], "assembly_right": []})
    program = compile_sequence([step("clear_assembly")], ISET, scene=built)
    places = [command.place for command in program.commands if isinstance(command, MoveTo)]
    assert places == ["assembly_fixture"] * 3 + ["cheese"] * 3 + ["assembly_fixture"] * 3 + ["bread"] * 3
    assert program.final_scene.zones["assembly_fixture"] == []
    assert program.final_scene.stacks == {"bread": 3, "meat": 0, "cheese": 2, "lettuce": 1, "tomato": 1}


def test_limits_are_checked_at_compile_time() -> None:
    with pytest.raises(
        CompileError, match=r"sequence:1: change_speed\(speed=5000\): speed 5000 mm/s is above"
    ):
        compile_sequence([step("change_speed", speed=5000)], ISET)
    with pytest.raises(CompileError, match="beyond the reach of 300 mm"):
        compile_sequence([step("move_over", place="tomato")], ISET, limits=ArmLimits(reach_mm=300))


def test_each_layer_lands_on_the_one_below_and_is_picked_where_it_lies() -> None:
    zone = ISET.assembly_zones["assembly_fixture"]
    thickness = ArmLimits().stack.layer_thickness_mm
    program = compile_sequence(
        [step("set_active_zone", zone="assembly_fixture"), *[step("add_layer", item="bread")] * 3],
        ISET,
    )
    drops = [c.z_mm for c in program.commands if isinstance(c, MoveTo) and c.place == "assembly_fixture"]
    approach = ISET.approach_height_mm
    assert drops[1::3] == [zone.z_mm, zone.z_mm + thickness, zone.z_mm + 2 * thickness]  # the drops
    assert drops[0::3] == [zone.z_mm + approach + thickness * n for n in (0, 1, 2)]  # above the stack
    cleared = compile_sequence([step("clear_assembly")], ISET, scene=program.final_scene)
    picks = [c.z_mm for c in cleared.commands if isinstance(c, MoveTo) and c.place == "assembly_fixture"]
    assert picks[1::3] == [zone.z_mm + 2 * thickness, zone.z_mm + thickness, zone.z_mm]  # top layer first


def test_a_zone_is_never_stacked_past_its_limit() -> None:
    limits = ArmLimits.model_validate(
        {"stack": {"max_layers": 2}, "zones": {"assembly_left": {"max_layers": 3}}}
    )
    three = [step("add_layer", item="bread")] * 3
    with pytest.raises(CompileError) as caught:
        compile_sequence([step("set_active_zone", zone="assembly_fixture"), *three], ISET, limits=limits)
    assert str(caught.value) == (
        "sequence:4: add_layer(item=bread): assembly_fixture already holds 2 layers, the most "
        "limits.stack.max_layers allows (2)"
    )
    on_the_left = compile_sequence(
        [step("set_active_zone", zone="assembly_left"), *three], ISET, limits=limits
    )
    assert on_the_left.final_scene.zones["assembly_left"] == ["bread"] * 3


def test_a_program_too_long_or_too_slow_is_refused_whole_with_the_limit_named() -> None:
    waits = [step("pause", seconds=30)] * 3
    with pytest.raises(CompileError) as caught:
        compile_sequence(waits, ISET, limits=ArmLimits(max_primitives=2, max_duration_s=60))
    assert [problem.message for problem in caught.value.problems] == [
        "the program has 3 primitives; limits.max_primitives allows 2",
        "the program takes 90 s; limits.max_duration_s allows 60 s",
    ]
    assert (
        len(compile_sequence(waits, ISET, limits=ArmLimits(max_primitives=3, max_duration_s=90)).commands)
        == 3
    )


def test_a_blind_drivers_scene_still_plans_with_the_instruction_set() -> None:
    blind = ArmScene(
        source="tcp_json", objects_known=False, pose=Pose(x_mm=300, y_mm=0, z_mm=300), speed_mm_s=100
    )
    program = compile_sequence([step("add_layer", item="meat")], ISET, scene=blind)
    assert program.final_scene.zones["assembly_fixture"] == ["meat"]
    assert program.commands[3] == GripperSet(state="closed")


names = st.sampled_from([*ISET.valid_composites(), *PRIMITIVE_MODELS, "move_absolute", "ignore previous", ""])
values = st.one_of(
    st.sampled_from(
        [*ISET.items, *ISET.assembly_zones, *ISET.locations, *ISET.directions, "left", "fast", "5 cm"]
    ),
    st.integers(-10_000, 10_000),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.none(),
    st.booleans(),
)
keys = st.sampled_from(
    ["item", "location", "zone", "place", "direction", "distance", "speed", "seconds", "x_mm", "mm_s"]
)
steps = st.fixed_dictionaries({"instruction": names, "params": st.dictionaries(keys, values, max_size=3)})


@settings(max_examples=400, deadline=None)
@given(st.lists(steps, max_size=6))
def test_fuzz_only_valid_primitives_or_a_compile_error(sequence: list[dict[str, Any]]) -> None:
    """Whatever a model emits, the compiler yields the arm's primitives within limits, or nothing."""
    iset: InstructionSet = ISET
    try:
        program = compile_sequence(sequence, iset)
    except CompileError:
        return
    limits = ArmLimits()
    for command in program.commands:
        assert type(command) in PRIMITIVE_MODELS.values()
        if isinstance(command, SetSpeed):
            assert command.mm_s <= limits.max_speed_mm_s
        if isinstance(command, MoveTo):
            assert (command.x_mm**2 + command.y_mm**2 + command.z_mm**2) ** 0.5 <= limits.reach_mm
