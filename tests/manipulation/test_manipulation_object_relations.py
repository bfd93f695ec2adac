"""Objects alike in name told apart by where they stand: the positions a scene gets from BDDL's
initial state or a world state (the development sentences are in
``test_manipulation_development_sentences.py``)."""

from __future__ import annotations

import pytest

from treebrain.manipulation.bddl import parse_bddl
from treebrain.manipulation.goal_parser import parse_goal_text
from treebrain.manipulation.symbolic import Scene
from treebrain.manipulation.world import ObjectState, WorldState

BDDL = """
(define (problem p)
  (:regions
    (bowl_left_region (:target main_table) (:ranges ((-0.01 -0.21 0.01 -0.19))))
    (bowl_right_region (:target main_table) (:ranges ((-0.01 0.19 0.01 0.21))))
    (cabinet_region (:target main_table) (:ranges ((-0.21 -0.01 -0.19 0.01))))
    (top_side (:target wooden_cabinet_1))
  )
  (:fixtures main_table - table wooden_cabinet_1 - wooden_cabinet)
  (:objects akita_black_bowl_1 akita_black_bowl_2 akita_black_bowl_3 - akita_black_bowl plate_1 - plate)
  (:init
    (On akita_black_bowl_1 main_table_bowl_left_region)
    (On plate_1 main_table_bowl_right_region)
    (On akita_black_bowl_2 plate_1)
    (On wooden_cabinet_1 main_table_cabinet_region)
    (On akita_black_bowl_3 wooden_cabinet_1_top_side))
  (:goal (And (On akita_black_bowl_1 plate_1)))
)
"""


def test_what_a_thing_stands_on_gives_its_position_and_tells_it_apart() -> None:
    scene = parse_bddl(BDDL).scene()
    assert scene.positions["akita_black_bowl_2"] == scene.positions["plate_1"]
    assert scene.positions["akita_black_bowl_3"] == scene.positions["wooden_cabinet_1"]
    goal = parse_goal_text("put the black bowl on the wooden cabinet on the plate", scene).goal
    assert goal == ["On(akita_black_bowl_3, plate_1)"]
    picked = parse_goal_text("pick up the black bowl on the plate and put it on top of the cabinet", scene)
    assert picked.goal == ["On(akita_black_bowl_2, wooden_cabinet_1_top_side)"]
    on_table = parse_goal_text("put the black bowl on the table on the plate", scene).goal
    assert on_table == ["On(akita_black_bowl_1, plate_1)"]
    refused = parse_goal_text("put the black bowl in the basket on the plate", scene)
    assert refused.refusal and not refused.goal


def _thing(name: str, x: float, y: float) -> ObjectState:
    return ObjectState(
        name=name,
        raw_name=name,
        position=(x, y, 0.78),
        quaternion=(0.0, 0.0, 0.0, 1.0),
        center=(x, y, 0.8),
        half_extents=(0.02, 0.02, 0.02),
        last_seen_step=0,
    )


def test_a_world_states_objects_stand_where_perception_saw_them() -> None:
    world = WorldState(
        step=0,
        objects={"cubeA": _thing("cubeA", 0.0, 0.1), "cubeB": _thing("cubeB", 0.0, -0.1)},
        gripper_open=True,
        gripper_width=0.08,
        gripper_position=(0.0, 0.0, 1.0),
    )
    scene = Scene.from_world(world, {"table": ""})
    assert scene.positions["cubeA"].x == pytest.approx((-0.02, 0.02))
    assert scene.positions["cubeB"].y == pytest.approx((-0.12, -0.08))
