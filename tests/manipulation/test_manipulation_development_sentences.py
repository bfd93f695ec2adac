"""The goal parser's development sentences over LIBERO-90 scenes (issue 32), each file written before
the code it drove: objects alike in name told apart by where they stand
(``object_relations_dev.yaml``) and kitchen fixtures that open, close and switch
(``kitchen_goals_dev.yaml``). The unseen suites' wording was not read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from treebrain.manipulation.bddl import bddl_root, load_suite
from treebrain.manipulation.goal_parser import parse_goal_text
from treebrain.manipulation.symbolic import Scene

DATA = Path(__file__).parent / "data"
DEV = [
    case
    for name in ("object_relations_dev.yaml", "kitchen_goals_dev.yaml")
    for case in yaml.safe_load((DATA / name).read_text(encoding="utf-8"))
]
ROOT = bddl_root()


@pytest.fixture(scope="module")
def scenes() -> dict[str, Scene]:
    assert ROOT is not None
    wanted = {case["scene"] for case in DEV}
    return {task.name: task.scene() for task in load_suite("90", ROOT) if task.name in wanted}


@pytest.mark.skipif(ROOT is None, reason="LIBERO's task files need the sim extra")
@pytest.mark.parametrize("case", DEV, ids=[case["text"] for case in DEV])
def test_development_sentences(case: dict[str, Any], scenes: dict[str, Scene]) -> None:
    parse = parse_goal_text(case["text"], scenes[case["scene"]])
    if "goal" in case:
        assert (parse.goal, parse.question, parse.refusal) == (case["goal"], "", "")
    elif "ask" in case:
        assert case["ask"] in parse.question and not parse.goal
    else:
        assert case["refuse"] in parse.refusal and not parse.goal
