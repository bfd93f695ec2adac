"""Regions (where to lower an object, whether a point is in one) and the task catalogue."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from tests.conftest import WriteFile
from tests.manipulation.conftest import BASE, box, box_region, on_table
from treebrain.errors import InputError
from treebrain.manipulation.facts import parse_fact
from treebrain.manipulation.regions import (
    BoxRegion,
    OnObjectRegion,
    Target,
    region_contains,
    region_target,
)
from treebrain.manipulation.tasks import DEFAULT_TASKS_FILE, SURFACES, TaskSpec, load_tasks
from treebrain.robots.manipulator.observation import ObjectObservation, Vec3

BIN = box_region((0.1, 0.3), (0.1, 0.3), surface_z=0.82)


def scene(*things: ObjectObservation) -> dict[str, ObjectObservation]:
    return {thing.name: thing for thing in things}


# -- region_target --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("base", "margin", "point"),
    [
        (BASE, 0.05, (0.15, 0.15)),
        (BASE, 0.0, (0.1, 0.1)),
        ((0.2, 0.22, 0.9), 0.05, (0.2, 0.22)),
        ((1.0, -1.0, 0.9), 0.05, (0.25, 0.15)),
        ((0.2, 0.9, 0.9), 0.02, (0.2, 0.28)),
    ],
    ids=["base-behind", "no-margin", "base-inside", "base-beyond", "base-left"],
)
def test_box_target_is_the_reachable_point_nearest_the_base(
    base: Vec3, margin: float, point: tuple[float, float]
) -> None:
    target = region_target(BIN, {}, base, margin)
    assert isinstance(target, Target)
    assert target.point == pytest.approx(point)
    assert target.surface_z == 0.82


@pytest.mark.parametrize("margin", [0.101, 0.2])
def test_a_box_too_small_for_the_object_says_so(margin: float) -> None:
    assert region_target(BIN, {}, BASE, margin) == f"an object {2 * margin:.3f} m across does not fit in it"


def test_a_box_just_big_enough_gives_its_centre() -> None:
    target = region_target(BIN, {}, BASE, 0.0999)
    assert isinstance(target, Target)
    assert target.point == pytest.approx((0.2, 0.2), abs=2e-4)


def test_on_object_target_is_the_support_s_top() -> None:
    support = on_table("cubeB", 0.1, -0.2, (0.025, 0.025, 0.025))
    target = region_target(OnObjectRegion(object="cubeB"), scene(support), BASE, margin=0.05)
    assert isinstance(target, Target)
    assert target.point == pytest.approx((0.1, -0.2))
    assert target.surface_z == pytest.approx(0.85)


def test_on_object_target_uses_the_box_not_the_origin() -> None:
    """An object whose origin sits at its base: its top is origin + box_center + half height."""
    can = box("Can", (0.0, 0.1, 0.8), (0.03, 0.03, 0.06), box_center=(0.0, 0.0, 0.06))
    target = region_target(OnObjectRegion(object="Can"), scene(can), BASE)
    assert isinstance(target, Target)
    assert target.surface_z == pytest.approx(0.92)


def test_on_object_target_without_its_support() -> None:
    target = region_target(OnObjectRegion(object="cubeB"), scene(on_table("cubeA", 0.0, 0.0)), BASE)
    assert target == "the region is on cubeB, which is not in the scene"


# -- region_contains ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("point", "inside"),
    [
        ((0.2, 0.2, 0.85), True),
        ((0.1, 0.3, 0.79), True),
        ((0.09, 0.2, 0.85), False),
        ((0.2, 0.31, 0.85), False),
        ((0.2, 0.2, 1.25), False),
        ((0.2, 0.2, 0.7), False),
    ],
    ids=["middle", "corner-inclusive", "x-outside", "y-outside", "above", "below"],
)
def test_box_contains(point: Vec3, inside: bool) -> None:
    assert region_contains(BIN, point, {}) is inside


@pytest.mark.parametrize(
    ("point", "inside"),
    [
        ((0.1, -0.2, 0.87), True),
        ((0.12, -0.18, 0.87), True),
        ((0.13, -0.2, 0.87), False),
        ((0.1, -0.2, 0.84), False),
    ],
    ids=["on-top", "near-the-edge", "beside", "below-the-top"],
)
def test_on_object_contains_points_above_the_support_s_footprint(point: Vec3, inside: bool) -> None:
    support = on_table("cubeB", 0.1, -0.2, (0.025, 0.025, 0.025))
    assert region_contains(OnObjectRegion(object="cubeB"), point, scene(support)) is inside


def test_on_object_without_its_support_contains_nothing() -> None:
    assert not region_contains(OnObjectRegion(object="cubeB"), (0.0, 0.0, 1.0), {})


# -- region models --------------------------------------------------------------------------------


def test_a_box_s_surface_must_be_inside_its_z_range() -> None:
    with pytest.raises(ValidationError, match=r"surface_z 0.5 is outside z \[0.79, 1.2\]"):
        box_region((0.1, 0.3), (0.1, 0.3), surface_z=0.5)


def test_a_box_s_walls_must_stand_above_its_floor() -> None:
    with pytest.raises(ValidationError, match=r"wall_top_z 0.8 is not above surface_z 0.82"):
        BoxRegion.model_validate({**BIN.model_dump(), "wall_top_z": 0.8})


@pytest.mark.parametrize(("point", "inside_by"), [((0.2, 0.12, 0.9), 0.02), ((0.35, 0.2, 0.9), -0.05)])
def test_how_far_inside_a_box_s_sides_a_point_is(point: Vec3, inside_by: float) -> None:
    assert BIN.inside_by(point) == pytest.approx(inside_by)


def test_a_box_needs_ordered_ranges() -> None:
    with pytest.raises(ValidationError, match=r"min \(0.3\) must be below max \(0.1\)"):
        box_region((0.3, 0.1), (0.1, 0.3))


def test_regions_are_read_by_their_kind() -> None:
    spec = TaskSpec.model_validate(
        {
            "description": "d",
            "objects": ["a", "b"],
            "regions": {
                "top": {"kind": "on_object", "object": "b"},
                "bin": {
                    "kind": "box",
                    "x": {"min": 0, "max": 1},
                    "y": {"min": 0, "max": 1},
                    "z": {"min": 0, "max": 1},
                    "surface_z": 0,
                },
            },
            "home": [0, 0, 1],
            "goal": ["on(a, b)"],
        }
    )
    assert isinstance(spec.regions["top"], OnObjectRegion)
    assert isinstance(spec.regions["bin"], BoxRegion)
    assert spec.known_names() == {"a", "b", "top", "bin", *SURFACES, "nothing"}


# -- the real catalogue ---------------------------------------------------------------------------


def test_the_catalogue_has_the_simulator_tasks() -> None:
    catalogue = load_tasks()
    assert {"Lift", "Stack", "PickPlace", "PickPlaceCan"} <= set(catalogue.tasks)
    assert catalogue.task("Lift").objects == ["cube"]
    assert catalogue.task("Lift").goal == ["lifted(cube)"]
    assert catalogue.task("PickPlace").objects == ["Milk", "Bread", "Cereal", "Can"]


def test_the_default_file_is_the_repo_config() -> None:
    assert (
        Path(__file__).resolve().parents[2] / "config" / "manipulation" / "tasks.yaml" == DEFAULT_TASKS_FILE
    )


def test_stack_places_on_the_green_cube() -> None:
    stack = load_tasks().task("Stack")
    assert stack.regions["on_cubeB"] == OnObjectRegion(
        object="cubeB", description="the top of the green cube"
    )
    assert list(stack.regions) == ["on_cubeB", "on_cubeA", "table"]
    assert stack.goal == ["on(cubeA, cubeB)", "not holding(cubeA)"]


def test_pickplace_can_has_the_bins_in_order() -> None:
    can = load_tasks().task("PickPlaceCan")
    assert list(can.regions) == ["bin_milk", "bin_bread", "bin_cereal", "bin_can", "source_bin"]
    bin_can = can.regions["bin_can"]
    assert isinstance(bin_can, BoxRegion)
    assert (bin_can.x.min, bin_can.x.max, bin_can.y.min, bin_can.y.max) == (0.1, 0.295, 0.28, 0.525)
    assert can.goal == ["in(Can, bin_can)"]


def test_every_goal_of_the_catalogue_reads_and_names_known_things() -> None:
    for name, task in load_tasks().tasks.items():
        for text in task.goal:
            assert set(parse_fact(text).args) <= task.known_names(), (name, text)


def test_every_box_region_of_the_catalogue_has_room_for_a_can() -> None:
    """An object 6.6 cm across plus the skills' 3 cm wall clearance fits in every box region."""
    for task in load_tasks().tasks.values():
        for region in task.regions.values():
            if isinstance(region, BoxRegion):
                assert isinstance(region_target(region, {}, BASE, 0.033 + 0.03), Target)


def test_an_unknown_task_lists_the_known_ones() -> None:
    with pytest.raises(KeyError, match=r"no task 'Juggle' in the catalogue \(known: Lift, PickPlace"):
        load_tasks().task("Juggle")


# -- bad catalogues -------------------------------------------------------------------------------

GOOD_STACK = """
tasks:
  Stack:
    description: stack
    objects: [cubeA, cubeB]
    regions:
      on_top: {kind: on_object, object: cubeB}
    home: [-0.1, 0.0, 1.0]
    goal:
      - "on(cubeA, cubeB)"
      - "not holding(cubeA)"
"""


def line_of(text: str, needle: str) -> int:
    """The 1-based line of `needle` in `text` as the `write` fixture stores it (leading newline dropped)."""
    lines = text.lstrip("\n").splitlines()
    return next(number for number, line in enumerate(lines, start=1) if needle in line)


@pytest.mark.parametrize(
    ("good", "bad", "message"),
    [
        (
            "object: cubeB}",
            "object: cubeC}",
            "tasks.Stack.regions.on_top.object: 'cubeC' is not one of the task's objects (cubeA, cubeB)",
        ),
        (
            '"on(cubeA, cubeB)"',
            '"on(cubeA, cubeB"',
            "tasks.Stack.goal[0]: cannot read fact 'on(cubeA, cubeB'",
        ),
        (
            '"on(cubeA, cubeB)"',
            '"stacked(cubeA, cubeB)"',
            "tasks.Stack.goal[0]: unknown relation 'stacked'",
        ),
        (
            '"not holding(cubeA)"',
            '"not holding(cubeA, cubeB)"',
            "tasks.Stack.goal[1]: holding takes 1 argument(s)",
        ),
        (
            '"on(cubeA, cubeB)"',
            '"on(cubeA, cubeZ)"',
            "tasks.Stack.goal[0]: cubeZ is not an object or region of Stack",
        ),
    ],
    ids=["on-object-unknown", "goal-unreadable", "goal-relation", "goal-arity", "goal-unknown-object"],
)
def test_a_bad_catalogue_is_a_located_error(write: WriteFile, good: str, bad: str, message: str) -> None:
    text = GOOD_STACK.replace(good, bad)
    path = write("tasks.yaml", text)
    with pytest.raises(InputError) as raised:
        load_tasks(path)
    [problem] = raised.value.problems
    assert problem.location.file == str(path)
    assert problem.location.line == line_of(text, bad)
    assert f"{path}:{line_of(text, bad)}:" in str(raised.value)
    assert message in str(raised.value)


def test_the_good_catalogue_loads(write: WriteFile) -> None:
    assert load_tasks(write("tasks.yaml", GOOD_STACK)).task("Stack").objects == ["cubeA", "cubeB"]


def test_goals_may_name_regions_surfaces_and_nothing(write: WriteFile) -> None:
    extra = '"in(cubeA, on_top)"\n      - "on(cubeB, table)"\n      - "holding(nothing)"'
    text = GOOD_STACK.replace('"not holding(cubeA)"', extra)
    assert len(load_tasks(write("tasks.yaml", text)).task("Stack").goal) == 4


def test_every_problem_is_reported_at_once(write: WriteFile) -> None:
    text = GOOD_STACK.replace("object: cubeB}", "object: cubeC}").replace("cubeA, cubeB)", "cubeA, cubeQ)")
    with pytest.raises(InputError) as raised:
        load_tasks(write("tasks.yaml", text))
    messages = [problem.message for problem in raised.value.problems]
    assert len(messages) == 2
    assert "'cubeC' is not one of the task's objects" in messages[0]
    assert "cubeQ is not an object or region of Stack" in messages[1]


def test_a_schema_error_is_located_too(write: WriteFile) -> None:
    text = GOOD_STACK.replace("    home: [-0.1, 0.0, 1.0]\n", "    home: [-0.1, 0.0, 1.0]\n    colour: red\n")
    path = write("tasks.yaml", text)
    with pytest.raises(InputError) as raised:
        load_tasks(path)
    assert f"{path}:{line_of(text, 'colour')}" in str(raised.value)
    assert "colour" in str(raised.value)


def test_a_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="TaskCatalogue"):
        load_tasks(tmp_path / "nope.yaml")
