"""What the viewer's API returns: the py_trees_js snapshot, node details with LLM calls, the
timeline and the layout."""

from __future__ import annotations

import json

from treebrain.recording import NodeInfo, Recording, TreeDefinition
from treebrain.trees.render import NODE_HEIGHT, NODE_WIDTH, X_GAP, Y_GAP
from treebrain.viewer import definition_payload, node_payload, timeline_payload, tree_snapshot
from treebrain.viewer.layout import layout

LEG = "root/patrol_rounds/charge_or_patrol/leg/leg"

LLM_ROBOT = """
robot: planner_bot
tree: tree.yaml
llm:
  default: quick
  profiles:
    quick:
      provider: scripted
      price_in_per_mtok: 1.0
      price_out_per_mtok: 2.0
      responses: ['{"route": ["hall", "kitchen"]}']
"""

LLM_TREE = """
version: 1
blackboard:
  /goal: {type: str, initial: "the kitchen"}
  /plan: any
root:
  type: sequence
  name: root
  memory: true
  children:
    - type: llm.generate
      name: plan
      params:
        system_text: "You plan routes."
        prompt_text: "Plan a route to {{ goal }}."
        schema: {type: object, properties: {route: {type: array}}, required: [route]}
      inputs: {goal: /goal}
      outputs: {result: /plan}
    - {type: running, name: follow}
"""


def test_tree_snapshot_follows_the_py_trees_js_format(recorded_demo):
    with Recording(recorded_demo) as recording:
        snapshot = tree_snapshot(recording, 1)
        assert set(snapshot) == {
            "timestamp",
            "changed",
            "behaviours",
            "visited_path",
            "blackboard",
            "activity",
            "treebrain",
        }
        assert snapshot["changed"] == "true"
        assert isinstance(snapshot["timestamp"], float)
        root = snapshot["behaviours"]["root"]
        assert root == {
            "id": "root",
            "name": "root",
            "status": "RUNNING",
            "colour": "#FFA500",
            "details": "",
            "children": ["root/patrol_rounds", "root/report"],
            "data": {"Type": "sequence", "Class": "treebrain.trees.composites.Sequence", "Feedback": ""},
        }
        assert set(snapshot["behaviours"]) == set(recording.definition.paths())
        assert snapshot["behaviours"]["root/report"]["status"] == "INVALID"
        assert snapshot["visited_path"][-1] == "root"
        assert f"{LEG}/drive/drive_leg" in snapshot["visited_path"]
        assert snapshot["blackboard"]["data"] == {
            "/battery/drain_per_leg": "-0.15",
            "/battery/level": "0.5",
            "/patrol/legs_done": "0",
            "/status/message": "patrolling",
        }
        guard = "root/patrol_rounds/charge_or_patrol/low_battery"
        assert snapshot["blackboard"]["behaviours"] == {
            guard: {"/battery/level": "r"},
            f"{LEG}/announce": {"/status/message": "w"},
        }
        assert snapshot["activity"] == [
            f"READ /battery/level by {guard}",
            f"WRITE /status/message by {LEG}/announce",
        ]
        assert snapshot["treebrain"]["tick"] == 1
        assert snapshot["treebrain"]["written"] == ["/status/message"]
        assert snapshot["treebrain"]["writers"]["/status/message"] == f"{LEG}/announce"


def test_changed_is_false_when_the_visited_statuses_repeat(tree_file, recorder, tmp_path):
    source = tree_file("""
        version: 1
        root: {type: running, name: root}
    """)
    with Recording(recorder(source, tmp_path / "run.sqlite", max_ticks=3)) as recording:
        assert [tree_snapshot(recording, tick)["changed"] for tick in (1, 2, 3)] == ["true", "false", "false"]


def test_node_details_show_type_params_ports_and_values(recorded_demo):
    with Recording(recorded_demo) as recording:
        details = node_payload(recording, f"{LEG}/spend", 10)
        assert details is not None
        assert details["node"]["type"] == "add"
        assert details["node"]["params"] == {"amount": 0.0, "minimum": 0.0, "maximum": None}
        assert details["ports"][0] == {
            "direction": "in",
            "port": "value",
            "key": "/battery/level",
            "has_value": True,
            "value": recording.frame(10).values["/battery/level"],
            "writer": recording.frame(10).writers["/battery/level"],
        }
        assert [(port["direction"], port["port"]) for port in details["ports"]] == [
            ("in", "value"),
            ("in", "amount"),
            ("out", "result"),
        ]
        assert details["llm_calls"] == [] and details["events"] == []
        assert node_payload(recording, "root/nothing", 1) is None


def test_llm_leaves_show_prompt_response_tokens_latency_and_cost(tmp_path, recorder):
    (tmp_path / "tree.yaml").write_text(LLM_TREE, encoding="utf-8")
    robot = tmp_path / "robot.yaml"
    robot.write_text(LLM_ROBOT, encoding="utf-8")
    with Recording(recorder(robot, tmp_path / "run.sqlite", max_ticks=20)) as recording:
        last = recording.last_tick
        assert last is not None
        details = node_payload(recording, "root/plan", last)
        assert details is not None
        (call,) = details["llm_calls"]
        assert call["system"] == "You plan routes."
        assert call["messages"] == [{"role": "user", "content": "Plan a route to the kitchen."}]
        assert call["response"] == '{"route": ["hall", "kitchen"]}'
        assert call["parsed"] == {"route": ["hall", "kitchen"]}
        assert (call["provider"], call["model"], call["profile"]) == ("scripted", "scripted", "quick")
        assert call["input_tokens"] > 0 and call["output_tokens"] > 0
        expected_cost = (call["input_tokens"] * 1.0 + call["output_tokens"] * 2.0) / 1_000_000
        assert call["cost_usd"] == expected_cost
        assert call["latency_s"] == 0.0
        assert call["error"] is None
        before = node_payload(recording, "root/plan", 1)
        assert before is not None and before["llm_calls"] == []
        assert timeline_payload(recording)["marks"] == [[call["tick"], "llm_call"]]


def test_definition_has_every_node_placed_and_the_run(recorded_demo):
    with Recording(recorded_demo) as recording:
        payload = definition_payload(recording)
        assert [node["path"] for node in payload["nodes"]] == recording.definition.paths()
        assert payload["run"]["robot"] == "demo_bot"
        assert payload["run"]["finished"] is True and payload["run"]["final_status"] == "SUCCESS"
        root = payload["nodes"][0]
        assert (root["x"], root["y"]) == (
            (payload["nodes"][root["children"][0]]["x"] + payload["nodes"][root["children"][-1]]["x"]) / 2,
            X_GAP,
        )
        timeline = timeline_payload(recording)
        assert (timeline["first"], timeline["last"]) == (1, recording.last_tick)
        json.dumps(payload)


def test_layout_puts_leaves_in_a_row_and_parents_over_their_children():
    nodes = (
        NodeInfo(0, "root", "root", "sequence", "composite", "", None, (1, 3)),
        NodeInfo(1, "root/a", "a", "inverter", "decorator", "", 0, (2,)),
        NodeInfo(2, "root/a/x", "x", "succeed", "leaf", "", 1, ()),
        NodeInfo(3, "root/b", "b", "fail", "leaf", "", 0, ()),
    )
    placed = layout(TreeDefinition(nodes, {}))
    first_x = NODE_WIDTH / 2 + X_GAP
    second_x = first_x + NODE_WIDTH + X_GAP
    level = NODE_HEIGHT + Y_GAP
    assert placed.positions[2].x == first_x and placed.positions[3].x == second_x
    assert placed.positions[1].x == first_x
    assert placed.positions[0].x == (first_x + second_x) / 2
    assert [placed.positions[i].y for i in range(4)] == [
        X_GAP,
        X_GAP + level,
        X_GAP + 2 * level,
        X_GAP + level,
    ]
    assert placed.height == X_GAP * 2 + 3 * level - Y_GAP
    assert placed.width == second_x + NODE_WIDTH / 2 + X_GAP


def test_layout_handles_very_deep_trees():
    depth = 3000
    nodes = tuple(
        NodeInfo(
            i,
            "/".join(["n"] * (i + 1)),
            "n",
            "inverter",
            "decorator",
            "",
            i - 1 if i else None,
            (i + 1,) if i < depth - 1 else (),
        )
        for i in range(depth)
    )
    placed = layout(TreeDefinition(nodes, {}))
    assert len(placed.positions) == depth
    assert placed.positions[0].x == placed.positions[depth - 1].x
