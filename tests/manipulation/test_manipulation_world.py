"""The symbolic world state rebuilt from hand-made observations: holding, on, lifted, in, near,
the gripper, missing objects, and the facts and prompt it shows."""

from __future__ import annotations

import math
from collections.abc import Iterable

import pytest

from tests.manipulation.conftest import (
    CUBE,
    TABLE_Z,
    box,
    box_region,
    gripper,
    holding_contacts,
    observe,
    on_table,
    yaw_quaternion,
)
from treebrain.manipulation.regions import OnObjectRegion, Region
from treebrain.manipulation.world import (
    NEAR_M,
    ON_TOLERANCE_M,
    OPEN_WIDTH,
    WorldState,
    surface_name,
    update_world,
)
from treebrain.robots.manipulator.observation import (
    GripperObservation,
    ManipulatorObservation,
    ObjectObservation,
)

CLOSED_ON = gripper(command=1.0, width=0.04)
"""Commanded closed, the fingers stopped on a 4 cm cube."""


def world_of(
    objects: Iterable[ObjectObservation],
    contacts: Iterable[tuple[str, str]] = (),
    regions: dict[str, Region] | None = None,
    previous: WorldState | None = None,
    grip: GripperObservation | None = None,
) -> WorldState:
    return update_world(observe(objects, grip=grip, contacts=contacts), regions or {}, previous)


def stacked(gap: float) -> list[ObjectObservation]:
    """cubeA over cubeB, cubeA's bottom `gap` above cubeB's top (negative: sunk into it)."""
    lower = on_table("cubeB", 0.0, 0.0)
    upper = box("cubeA", (0.0, 0.0, TABLE_Z + 2 * CUBE[2] + gap + CUBE[2]))
    return [upper, lower]


# -- holding --------------------------------------------------------------------------------------


def test_holding_needs_both_fingers_and_a_closed_command() -> None:
    world = world_of([on_table("cube", 0.0, 0.0)], holding_contacts("cube"), grip=CLOSED_ON)
    assert world.holding == "cube"
    assert "holding(cube)" in world.facts()


@pytest.mark.parametrize("finger", ["left_finger", "right_finger"])
def test_one_finger_is_not_holding(finger: str) -> None:
    world = world_of([on_table("cube", 0.0, 0.0)], [("cube", finger)], grip=CLOSED_ON)
    assert world.holding is None


@pytest.mark.parametrize("command", [0.0, -0.5, -1.0])
def test_no_holding_while_the_gripper_is_not_commanded_closed(command: float) -> None:
    world = world_of(
        [on_table("cube", 0.0, 0.0)], holding_contacts("cube"), grip=gripper(command=command, width=0.04)
    )
    assert world.holding is None
    assert not any(fact.startswith("holding") for fact in world.facts())


def test_the_hand_is_not_a_finger() -> None:
    world = world_of(
        [on_table("cube", 0.0, 0.0)], [("cube", "left_finger"), ("cube", "hand")], grip=CLOSED_ON
    )
    assert world.holding is None


# -- on -------------------------------------------------------------------------------------------


def test_on_the_table_from_a_table_contact() -> None:
    assert world_of([on_table("cube", 0.0, 0.0)], [("cube", "table")]).on == {"cube": "table"}


def test_on_a_bin_from_a_fixture_contact() -> None:
    assert world_of([on_table("Can", 0.0, 0.0)], [("fixture:bin1", "Can")]).on == {"Can": "bin1"}


@pytest.mark.parametrize("label", ["fixture:wall", "floor", "robot", "hand"])
def test_other_contacts_are_no_support(label: str) -> None:
    world = world_of([on_table("cube", 0.0, 0.0)], [("cube", label)])
    assert world.on == {}
    assert world.lifted == []


def test_surface_name_strips_the_fixture_prefix() -> None:
    assert surface_name("fixture:bin2") == "bin2"
    assert surface_name("table") == "table"


@pytest.mark.parametrize("gap", [0.0, 0.002, -0.01, -ON_TOLERANCE_M + 1e-6])
def test_on_another_object_within_the_tolerance(gap: float) -> None:
    world = world_of(stacked(gap), [("cubeA", "cubeB"), ("cubeB", "table")])
    assert world.on == {"cubeA": "cubeB", "cubeB": "table"}


@pytest.mark.parametrize("gap", [-ON_TOLERANCE_M - 1e-4, -0.03])
def test_not_on_an_object_it_sinks_into(gap: float) -> None:
    world = world_of(stacked(gap), [("cubeA", "cubeB"), ("cubeB", "table")])
    assert "cubeA" not in world.on


def test_side_by_side_cubes_are_not_on_each_other() -> None:
    cubes = [on_table("cubeA", 0.0, 0.0), on_table("cubeB", 0.04, 0.0)]
    world = world_of(cubes, [("cubeA", "cubeB"), ("cubeA", "table"), ("cubeB", "table")])
    assert world.on == {"cubeA": "table", "cubeB": "table"}


def test_an_object_support_wins_over_a_surface() -> None:
    world = world_of(stacked(0.0), [("cubeA", "cubeB"), ("cubeA", "table"), ("cubeB", "table")])
    assert world.on["cubeA"] == "cubeB"


# -- lifted ---------------------------------------------------------------------------------------


def test_lifted_when_held_and_touching_only_fingers() -> None:
    cube = box("cube", (0.0, 0.0, 0.95))
    world = world_of([cube], holding_contacts("cube"), grip=CLOSED_ON)
    assert world.lifted == ["cube"]
    assert "lifted(cube)" in world.facts()


def test_held_but_on_the_table_is_not_lifted() -> None:
    world = world_of(
        [on_table("cube", 0.0, 0.0)], [*holding_contacts("cube"), ("cube", "table")], grip=CLOSED_ON
    )
    assert world.holding == "cube"
    assert world.lifted == []
    assert world.on == {"cube": "table"}


def test_not_held_and_touching_nothing_is_not_lifted() -> None:
    assert world_of([box("cube", (0.0, 0.0, 0.95))]).lifted == []


def test_held_and_touching_a_neighbour_s_side_is_not_lifted() -> None:
    held = box("cubeA", (0.0, 0.0, TABLE_Z + 0.03))
    beside = on_table("cubeB", 0.04, 0.0)
    contacts = [*holding_contacts("cubeA"), ("cubeA", "cubeB"), ("cubeB", "table")]
    world = world_of([held, beside], contacts, grip=CLOSED_ON)
    assert world.holding == "cubeA"
    assert world.lifted == []


# -- in -------------------------------------------------------------------------------------------


def test_inside_the_first_region_that_holds_the_centre() -> None:
    regions: dict[str, Region] = {
        "left_bin": box_region((0.0, 0.2), (0.0, 0.2)),
        "table": box_region((-0.4, 0.4), (-0.4, 0.4)),
    }
    world = world_of(
        [on_table("a", 0.1, 0.1), on_table("b", -0.2, 0.1), on_table("c", 1.0, 0.0)], regions=regions
    )
    assert world.inside == {"a": "left_bin", "b": "table"}


def test_region_order_decides_between_overlapping_regions() -> None:
    regions: dict[str, Region] = {
        "table": box_region((-0.4, 0.4), (-0.4, 0.4)),
        "left_bin": box_region((0.0, 0.2), (0.0, 0.2)),
    }
    assert world_of([on_table("a", 0.1, 0.1)], regions=regions).inside == {"a": "table"}


def test_inside_the_region_on_top_of_another_object() -> None:
    regions: dict[str, Region] = {"on_cubeB": OnObjectRegion(object="cubeB")}
    world = world_of(stacked(0.0), [("cubeA", "cubeB")], regions=regions)
    assert world.inside == {"cubeA": "on_cubeB"}
    assert "in(cubeA, on_cubeB)" in world.facts()


def test_inside_uses_the_box_centre_not_the_origin() -> None:
    """A tall object whose origin is at its base: the centre is what must be in the region."""
    regions: dict[str, Region] = {"shelf": box_region((0.0, 0.2), (0.0, 0.2), z=(0.85, 1.0), surface_z=0.85)}
    can = box("Can", (0.1, 0.1, TABLE_Z), (0.03, 0.03, 0.06), box_center=(0.0, 0.0, 0.06))
    assert world_of([can], regions=regions).inside == {"Can": "shelf"}


# -- near -----------------------------------------------------------------------------------------


def test_near_pairs_are_sorted_and_horizontal() -> None:
    things = [
        on_table("c", 0.0, 0.0),
        box("a", (0.05, 0.0, 1.1)),
        on_table("b", 0.0, NEAR_M + 0.01),
    ]
    world = world_of(things)
    assert world.near == [("a", "c")]
    assert "near(a, c)" in world.facts()


def test_near_is_strict() -> None:
    assert world_of([on_table("a", 0.0, 0.0), on_table("b", 0.0, NEAR_M)]).near == []
    assert world_of([on_table("a", 0.0, 0.0), on_table("b", 0.0, NEAR_M - 1e-6)]).near == [("a", "b")]


# -- the gripper ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("width", "is_open", "fact"),
    [
        (OPEN_WIDTH, True, "gripper_open"),
        (0.08, True, "gripper_open"),
        (0.069, False, "gripper_closed"),
        (0.0, False, "gripper_closed"),
    ],
)
def test_gripper_open_from_the_width(width: float, is_open: bool, fact: str) -> None:
    world = world_of([on_table("cube", 0.0, 0.0)], grip=gripper(width=width))
    assert world.gripper_open is is_open
    assert world.gripper_width == width
    assert fact in world.facts()
    assert ({"gripper_open", "gripper_closed"} - {fact}).isdisjoint(world.facts())


def test_the_gripper_position_step_and_success_are_carried_over() -> None:
    observation = observe(
        [on_table("cube", 0.0, 0.0)], grip=gripper((0.1, 0.2, 1.1)), step=7, task_success=True
    )
    world = update_world(observation, {})
    assert (world.gripper_position, world.step, world.task_success) == ((0.1, 0.2, 1.1), 7, True)


# -- objects and missing ones ---------------------------------------------------------------------


def test_object_state_has_the_world_box() -> None:
    turned = box("bar", (0.1, 0.0, 0.83), (0.1, 0.02, 0.03), quaternion=yaw_quaternion(math.pi / 2))
    observation = observe([turned], step=4)
    state = update_world(observation, {}).objects["bar"]
    assert state.raw_name == "bar_main"
    assert state.half_extents == pytest.approx((0.02, 0.1, 0.03))
    assert (state.top, state.bottom) == pytest.approx((0.86, 0.8))
    assert state.last_seen_step == 4


def see(names: Iterable[str], previous: WorldState | None = None) -> WorldState:
    observation: ManipulatorObservation = observe(
        [on_table(name, 0.2 * index, 0.0) for index, name in enumerate(names)],
        contacts=[(name, "table") for name in names],
    )
    return update_world(observation, {}, previous)


def test_objects_no_longer_seen_are_missing_and_lose_their_relations() -> None:
    first = see(["a", "b"])
    second = see(["a"], first)
    assert second.missing == ["b"]
    assert set(second.objects) == {"a"}
    assert second.facts() == ["gripper_open", "on(a, table)"]
    assert first.facts() == ["gripper_open", "on(a, table)", "on(b, table)"]


def test_missing_objects_stay_missing_until_seen_again() -> None:
    first = see(["a", "b", "c"])
    second = see(["a"], first)
    third = see(["a", "c"], second)
    fourth = see(["a", "b", "c"], third)
    assert (second.missing, third.missing, fourth.missing) == (["b", "c"], ["b"], [])


def test_nothing_is_missing_without_a_previous_state() -> None:
    assert see(["a"]).missing == []


# -- facts and the prompt -------------------------------------------------------------------------


def full_scene() -> WorldState:
    """cubeA held above cubeB (in the region on it), the can in a bin, the gripper closed."""
    cubes = stacked(0.05)
    can = on_table("Can", 0.3, 0.3, (0.03, 0.03, 0.06))
    contacts = [*holding_contacts("cubeA"), ("cubeB", "table"), ("Can", "fixture:bin1")]
    regions: dict[str, Region] = {
        "on_cubeB": OnObjectRegion(object="cubeB"),
        "bin": box_region((0.2, 0.4), (0.2, 0.4)),
    }
    return world_of([*cubes, can], contacts, regions, grip=CLOSED_ON)


def test_facts_are_sorted_and_complete() -> None:
    assert full_scene().facts() == [
        "gripper_closed",
        "holding(cubeA)",
        "in(Can, bin)",
        "in(cubeA, on_cubeB)",
        "lifted(cubeA)",
        "near(cubeA, cubeB)",
        "on(Can, bin1)",
        "on(cubeB, table)",
    ]


def test_the_prompt_has_names_and_relations_but_no_coordinates() -> None:
    prompt = full_scene().to_prompt()
    assert prompt == {
        "objects": ["Can", "cubeA", "cubeB"],
        "holding": "cubeA",
        "on": {"Can": "bin1", "cubeB": "table"},
        "in": {"Can": "bin", "cubeA": "on_cubeB"},
        "gripper": "closed",
    }

    def numbers(value: object) -> list[object]:
        if isinstance(value, dict):
            return [found for item in value.values() for found in numbers(item)]
        if isinstance(value, list | tuple):
            return [found for item in value for found in numbers(item)]
        return [value] if isinstance(value, int | float) else []

    assert numbers(prompt) == []
