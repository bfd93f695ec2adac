from __future__ import annotations

import json

import pytest

from treebrain.robots.arm.commands import ArmCommand, GripperSet, MoveRelative, MoveTo, SetSpeed, Wait
from treebrain.robots.arm.limits import ArmLimits, Pose, motion_seconds
from treebrain.robots.arm.workcell import ArmScene, apply_command
from treebrain.robots.errors import ActionRefusedError

LIMITS = ArmLimits(reach_mm=950, z_min_mm=-100, z_max_mm=1000, max_speed_mm_s=800, max_wait_s=10)


def scene(**changes: object) -> ArmScene:
    base = ArmScene(
        source="test",
        pose=Pose(x_mm=350, y_mm=0, z_mm=450),
        speed_mm_s=250,
        stacks={"bread": 1, "cheese": 0},
        zones={"assembly_fixture": []},
        locations={"home": []},
    )
    return base.model_copy(update=changes)


def run(start: ArmScene, *commands: object) -> ArmScene:
    current = start
    for command in commands:
        current = apply_command(current, command, LIMITS)  # type: ignore[arg-type]
    return current


def test_pick_from_a_stack_and_stack_it_in_a_zone() -> None:
    end = run(
        scene(),
        MoveTo(x_mm=300, y_mm=-200, z_mm=200, place="bread"),
        MoveRelative(direction="down", distance_mm=100),
        GripperSet(state="closed"),
        MoveRelative(direction="up", distance_mm=100),
        MoveTo(x_mm=400, y_mm=0, z_mm=200, place="assembly_fixture"),
        GripperSet(state="open"),
    )
    assert end.stacks == {"bread": 0, "cheese": 0}
    assert end.zones == {"assembly_fixture": ["bread"]}
    assert end.held is None
    assert end.gripper == "open"
    assert end.pose == Pose(x_mm=400, y_mm=0, z_mm=200)


def test_the_scene_as_json_is_the_whole_scene() -> None:
    """What ``treebrain voice --json`` prints as "scene", so no program has to read the picture."""
    holding = run(
        scene(locations={"home": [], "side_table": ["cheese"]}),
        SetSpeed(mm_s=120),
        MoveTo(x_mm=300, y_mm=-200, z_mm=200, place="bread"),
        GripperSet(state="closed"),
    )
    data = json.loads(json.dumps(holding.model_dump(mode="json")))
    assert data == {
        "source": "test",
        "objects_known": True,
        "pose": {"x_mm": 300.0, "y_mm": -200.0, "z_mm": 200.0},
        "speed_mm_s": 120.0,
        "gripper": "closed",
        "held": "bread",
        "place": "bread",
        "stacks": {"bread": 0, "cheese": 0},
        "zones": {"assembly_fixture": []},
        "locations": {"home": [], "side_table": ["cheese"]},
    }
    assert ArmScene.model_validate(data) == holding


def test_picking_from_an_empty_stack_is_refused() -> None:
    with pytest.raises(ActionRefusedError, match="cannot pick cheese: the cheese stack is empty"):
        run(scene(), MoveTo(x_mm=300, y_mm=0, z_mm=200, place="cheese"), GripperSet(state="closed"))


def test_picking_from_an_empty_zone_is_refused() -> None:
    with pytest.raises(ActionRefusedError, match="cannot pick from assembly_fixture: nothing is there"):
        run(scene(), MoveTo(x_mm=300, y_mm=0, z_mm=200, place="assembly_fixture"), GripperSet(state="closed"))


def test_a_sideways_move_leaves_the_place_and_a_drop_there_is_refused() -> None:
    holding = scene(gripper="closed", held="bread", place="bread")
    moved = run(holding, MoveRelative(direction="left", distance_mm=50))
    assert moved.place is None
    with pytest.raises(ActionRefusedError, match="refusing to drop the bread in free space"):
        run(moved, GripperSet(state="open"))


def test_a_vertical_move_stays_over_the_place() -> None:
    assert run(scene(place="bread"), MoveRelative(direction="down", distance_mm=50)).place == "bread"


def test_an_item_cannot_go_on_another_ingredients_stack() -> None:
    with pytest.raises(ActionRefusedError, match="cannot put the bread on the cheese stack"):
        run(scene(gripper="closed", held="bread", place="cheese"), GripperSet(state="open"))


def test_returning_an_item_to_its_stack_and_placing_at_a_location() -> None:
    back = run(scene(gripper="closed", held="bread", place="bread"), GripperSet(state="open"))
    assert back.stacks["bread"] == 2
    placed = run(scene(gripper="closed", held="cheese", place="home"), GripperSet(state="open"))
    assert placed.locations == {"home": ["cheese"]}


def test_closing_in_free_space_holds_nothing() -> None:
    end = run(scene(), GripperSet(state="closed"))
    assert (end.gripper, end.held) == ("closed", None)


def test_limits_refuse_reach_height_speed_and_wait() -> None:
    with pytest.raises(
        ActionRefusedError, match=r"\(900, 400, 0\) is 985 mm from the base, beyond the reach of 950 mm"
    ):
        run(scene(), MoveTo(x_mm=900, y_mm=400, z_mm=0))
    with pytest.raises(ActionRefusedError, match=r"height -150 mm is outside -100\.\.1000 mm"):
        run(scene(), MoveTo(x_mm=300, y_mm=0, z_mm=-150))
    with pytest.raises(ActionRefusedError, match="speed 900 mm/s is above the arm's maximum of 800 mm/s"):
        run(scene(), SetSpeed(mm_s=900))
    with pytest.raises(ActionRefusedError, match="wait of 11 s is longer than the allowed 10 s"):
        run(scene(), Wait(seconds=11))


def test_unknown_place_is_refused() -> None:
    with pytest.raises(ActionRefusedError, match="move_to names an unknown place 'moon'"):
        run(scene(), MoveTo(x_mm=300, y_mm=0, z_mm=200, place="moon"))


def test_a_blind_scene_tracks_pose_and_gripper_only() -> None:
    blind = ArmScene(
        source="bridge", objects_known=False, pose=Pose(x_mm=350, y_mm=0, z_mm=450), speed_mm_s=100
    )
    end = run(blind, MoveTo(x_mm=300, y_mm=0, z_mm=200, place="anything"), GripperSet(state="closed"))
    assert (end.place, end.gripper, end.held, end.stacks) == ("anything", "closed", None, {})


def test_motion_seconds_counts_motions_at_the_speeds_set_and_waits() -> None:
    home = Pose(x_mm=300, y_mm=0, z_mm=300)
    program: list[ArmCommand] = [
        MoveRelative(direction="up", distance_mm=100),  # 0.5 s at 200 mm/s
        SetSpeed(mm_s=50),
        MoveTo(x_mm=300, y_mm=0, z_mm=300),  # back down 100 mm at 50 mm/s: 2 s
        Wait(seconds=1.5),
        GripperSet(state="closed"),  # the driver's time, not counted
    ]
    assert motion_seconds(home, 200, program) == pytest.approx(4.0)
