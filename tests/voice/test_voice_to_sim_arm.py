"""A compiled program runs on the simulated arm and leaves exactly the scene the compiler planned."""

from __future__ import annotations

from pathlib import Path

import pytest

from treebrain.clock import FakeClock
from treebrain.robots.arm.scene_text import render_scene
from treebrain.robots.arm.sim_arm import SimArmParams
from treebrain.robots.registry import build_driver
from treebrain.voice.compiler import CompileError, compile_sequence
from treebrain.voice.kit import load_voice_kit
from treebrain.voice.steps import Step

KIT = load_voice_kit(Path(__file__).parents[2] / "config" / "voice" / "voice.yaml")


def sandwich(zone: str, *items: str) -> list[Step]:
    return [
        Step(instruction="set_active_zone", params={"zone": zone}),
        *(Step(instruction="add_layer", params={"item": item}) for item in items),
        Step(instruction="go_home"),
    ]


def test_the_sim_arm_defaults_know_every_place_of_the_instruction_set() -> None:
    params = SimArmParams()
    assert set(params.stacks) == set(KIT.iset.items)
    assert set(params.zones) == set(KIT.iset.assembly_zones)
    assert set(params.locations) == set(KIT.iset.locations)


def test_a_compiled_sandwich_runs_tick_by_tick_on_the_sim_arm(tmp_path: Path) -> None:
    clock = FakeClock()
    arm = build_driver("sim_arm", {}, clock=clock, limits={}, base_dir=tmp_path)
    program = compile_sequence(
        sandwich("assembly_right", "bread", "meat", "bread"), KIT.iset, scene=arm.observe()
    )
    ticks = 0
    for command in program.commands:
        arm.act(command)
        while not arm.poll().finished:
            clock.advance(0.05)
            ticks += 1
        assert arm.poll().state == "done"
    scene = arm.observe()
    assert scene.zones == program.final_scene.zones
    assert (
        scene.stacks
        == program.final_scene.stacks
        == {"bread": 6, "meat": 3, "cheese": 4, "lettuce": 4, "tomato": 4}
    )
    assert ticks > 100
    picture = render_scene(scene).splitlines()
    assert picture[2:6] == [
        "assembly_left   assembly_fixture   assembly_right",
        "                                       bread",
        "                                        meat",
        "                                       bread",
    ]


def test_the_drivers_scene_makes_the_compiler_refuse_what_the_arm_would(tmp_path: Path) -> None:
    arm = build_driver(
        "sim_arm",
        {"stacks": {"bread": 1, "meat": 4, "cheese": 4, "lettuce": 4, "tomato": 4}},
        clock=FakeClock(),
        limits={},
        base_dir=tmp_path,
    )
    with pytest.raises(
        CompileError,
        match="sequence:4: add_layer\\(item=bread\\): cannot pick bread: the bread stack is empty",
    ):
        compile_sequence(sandwich("assembly_left", "bread", "cheese", "bread"), KIT.iset, scene=arm.observe())
