"""The kitchen robot and tree files: valid as shipped, consistent with the domain, and clear when wrong."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import yaml

from treebrain.kg.config import KitchenConfig
from treebrain.kg.llm_extraction import extraction_schema
from treebrain.kg.prompting import update_answer_schema
from treebrain.trees import shared_registry, validate_file

RobotMaker = Callable[..., Path]


def _nodes(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield node
    for child in [*node.get("children", []), *([node["child"]] if "child" in node else [])]:
        yield from _nodes(child)


def test_the_shipped_robot_file_is_valid(files: Any) -> None:
    assert validate_file(files.robot) == []


def test_the_kitchen_leaves_are_registered() -> None:
    names = [name for name in shared_registry().names() if name.startswith("kg.")]
    assert names == [
        "kg.apply_update",
        "kg.apply_zone_event",
        "kg.extract",
        "kg.extraction_prompt",
        "kg.fallback",
        "kg.judge_answer",
        "kg.outcome",
        "kg.read_extraction",
        "kg.retrieve",
        "kg.rule_update",
        "kg.update_prompt",
    ]


def test_the_tree_retries_as_often_as_the_plain_loop(files: Any, kitchen_config: KitchenConfig) -> None:
    root = yaml.safe_load(files.retries.read_text())["root"]
    retries = [node["attempts"] for node in _nodes(root) if node["type"] == "retry"]
    assert retries == [kitchen_config.max_attempts]


def test_the_schema_files_are_the_domain_schemas(files: Any) -> None:
    assert json.loads((files.schemas / "update_answer.json").read_text()) == update_answer_schema(None)
    assert json.loads((files.schemas / "extraction_answer.json").read_text()) == extraction_schema()


def test_a_robot_without_the_kitchen_driver_is_reported(make_robot: RobotMaker, files: Any) -> None:
    robot = make_robot()
    data = yaml.safe_load(robot.read_text())
    data["driver"] = {"type": "sim_arm", "params": {}}
    robot.write_text(yaml.safe_dump(data))
    messages = {problem.message for problem in validate_file(robot)}
    assert (
        "driver.type is 'sim_arm'; the kitchen tree needs driver: {type: kitchen_graph, params: "
        "{kitchen: <kitchen.yaml>, kg: <graph file>}}"
    ) in messages


def test_bad_driver_params_and_a_missing_kitchen_config_are_reported(
    make_robot: RobotMaker, tmp_path: Path
) -> None:
    robot = make_robot()
    data = yaml.safe_load(robot.read_text())
    data["driver"]["params"] = {"kitchen": "nowhere/kitchen.yaml", "graph": "kg.json"}
    robot.write_text(yaml.safe_dump(data))
    problems = validate_file(robot)
    assert {problem.message.split(" (")[0] for problem in problems} == {"driver.params.graph: unknown param"}
    data["driver"]["params"] = {"kitchen": "nowhere/kitchen.yaml"}
    robot.write_text(yaml.safe_dump(data))
    problems = validate_file(robot)
    assert [(problem.node_path, problem.message) for problem in problems] == [
        (
            "narration/extract/with_rules",
            f"kitchen config: {tmp_path / 'nowhere' / 'kitchen.yaml'}: file not found (expected KitchenFile data)",
        )
    ]
