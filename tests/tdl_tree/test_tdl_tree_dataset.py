"""The tree decides exactly what ``validate_program`` decides, on the whole generated dataset and on
random text: every run finishes with a report, PASS or FAIL."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from treebrain.clock import FakeClock
from treebrain.tdl.dataset import DatasetExample, build_dataset
from treebrain.tdl.pipeline import load_tdl_config, validate_program
from treebrain.tdl.report import ValidationLevel, VVReport
from treebrain.tdl.robots import RobotSpec, load_robot_spec, robot_names
from treebrain.testing import TreeHarness

VV = Any  # the `vv` fixture (tests/tdl_tree/conftest.py)
Verify = Callable[[str, str, str], VVReport]
PIECES = st.sampled_from(
    [
        "DEFINE P1 = PosX(300, 200, 50, 0, 0, 0);",
        "DEFINE P2 = PosJ(0, 0, 90, 0, 90, 0);",
        "DEFINE P3 = PosX(5000, 0, -10, 0, 0, 0);",
        "GOAL Execute_Process() {",
        "GOAL Initialize_Process() {",
        "}",
        "SPAWN MoveLinear(target_pose=P1, velocity=100, acceleration=50, tool=0, blending_radius=0) WITH WAIT;",
        "SPAWN MoveJoint(target_pose=P2, velocity=2000, acceleration=50, tool=0, blending_radius=0) WITH WAIT;",
        "SPAWN MoveLinear(target_pose=Nowhere, velocity=100) WITH WAIT;",
        "SPAWN SetDigitalOutput(port=1, value=1) WITH WAIT;",
        "SPAWN Delay(duration_sec=0.5) WITH NOWAIT;",
        "SPAWN Assign(P4, PosX(1, 2, 3, 0, 0, 0)) WITH WAIT;",
        "SPAWN End() WITH WAIT;",
        "// 주석 comment",
        "/* open comment",
        '"unterminated',
        "((((((((((",
        "1e400",
        "\ufffd",
    ]
)


@pytest.fixture(scope="module")
def robots() -> dict[str, RobotSpec]:
    return {name: load_robot_spec(name) for name in robot_names()}


@pytest.fixture(scope="module")
def dataset(robots: dict[str, RobotSpec]) -> list[DatasetExample]:
    return build_dataset(7, robots, load_tdl_config().commands)


@pytest.fixture(scope="module")
def verify(vv: VV) -> Iterator[Verify]:
    """One verifier tree, run once per program (as `treebrain eval tdl` does): (source, robot, level) -> report."""
    harness = TreeHarness.from_file(vv.verifier)

    def run(source: str, robot: str, level: str) -> VVReport:
        for key, value in {"/vv/source": source, "/vv/robot_name": robot, "/vv/level": level}.items():
            harness.blackboard.set(key, value, "test")
        assert harness.tick().name == "SUCCESS"  # every rule level runs within one tick
        report: VVReport = harness.value("/vv/report")
        return report

    yield run
    harness.close()


@pytest.mark.parametrize(("level", "passed"), [("BASIC", 400), ("STANDARD", 350)])
def test_the_tree_matches_validate_program_on_the_whole_dataset(
    level: str, passed: int, dataset: list[DatasetExample], robots: dict[str, RobotSpec], verify: Verify
) -> None:
    config = load_tdl_config()
    mismatched = []
    verdicts = {"PASS": 0, "FAIL": 0}
    for example in dataset:
        expected = validate_program(
            example.tdl_code, robots[example.robot], ValidationLevel(level), config=config, clock=FakeClock()
        )
        actual = verify(example.tdl_code, example.robot, level)
        verdicts[actual.verdict] += 1
        if actual != expected:
            mismatched.append(example.id)
    assert mismatched == []
    # STANDARD passes exactly the 200 correct programs and the 150 whose error only an LLM can see
    assert verdicts == {"PASS": passed, "FAIL": 600 - passed}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    program=st.one_of(
        st.text(max_size=400),
        st.lists(PIECES, max_size=30).map("\n".join),
        st.binary(max_size=200).map(lambda data: data.decode("utf-8", errors="surrogateescape")),
    ),
    robot=st.sampled_from(["ur10e", "m1013", "gofa"]),
)
def test_random_programs_always_get_a_pass_or_fail_from_the_tree(
    program: str, robot: str, verify: Verify
) -> None:
    report = verify(program, robot, "STANDARD")
    assert report.verdict in ("PASS", "FAIL")
    assert report.model_dump_json()  # JSON-safe, whatever the text held


def test_the_shipped_robot_files_validate_and_share_their_llm_profiles(vv: VV) -> None:
    from treebrain.trees import validate_file
    from treebrain.yaml_source import load_yaml_or_raise

    assert validate_file(vv.verifier) == [] and validate_file(vv.evaluator) == []
    verifier, evaluator = load_yaml_or_raise(Path(vv.verifier)), load_yaml_or_raise(Path(vv.evaluator))
    assert verifier["llm"] == evaluator["llm"]
    assert verifier["llm"]["default"] == "local" and "scripted" in verifier["llm"]["profiles"]
