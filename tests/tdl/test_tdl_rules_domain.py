from __future__ import annotations

import random
from collections.abc import Callable

from hypothesis import given
from hypothesis import strategies as st

from treebrain.tdl.findings import Level
from treebrain.tdl.rules.domain import common_subsequence_length

Run = Callable[..., list[tuple[str, str, int, str]]]

SLOPPY = """\
DEFINE Home = PosJ(0, 0, 90, 0, 90, 0);
DEFINE A_Safe_Pose = PosX(400, 0, 80, 180, 0, 180);
DEFINE 안전_B = PosX(400, 300, 90, 180, 0, 180);
DEFINE A = PosX(400, 0, 40, 180, 0, 180);
DEFINE B = PosX(400, 300, 40, 180, 0, 180);
GOAL Execute_Process() {
  SPAWN MoveLinear(A, 60, 50, 0, 0) WITH WAIT;
  SPAWN SetDigitalOutput(1, 1) WITH WAIT;
  SPAWN MoveLinear(B, 60, 50, 0, 0) WITH WAIT;
  SPAWN SetDigitalOutput(1, 0) WITH WAIT;
  SPAWN Delay(duration_sec=5) WITH WAIT;
  SPAWN End() WITH WAIT;
}
"""

STANDARD = """\
DEFINE Home = PosJ(0, 0, 90, 0, 90, 0);
DEFINE A_Safe = PosX(400, 0, 250, 180, 0, 180);
DEFINE A = PosX(400, 0, 60, 180, 0, 180);
DEFINE B_Safe = PosX(400, 300, 250, 180, 0, 180);
DEFINE B = PosX(400, 300, 60, 180, 0, 180);
GOAL Execute_Process() {
  SPAWN MoveJoint(Home, 30, 40, 0, 0) WITH WAIT;
  SPAWN SetDigitalOutput(1, 0) WITH WAIT;
  SPAWN Delay(0.5) WITH WAIT;
  SPAWN MoveLinear(A_Safe, 150, 100, 0, 0) WITH WAIT;
  SPAWN MoveLinear(A, 60, 50, 0, 0) WITH WAIT;
  SPAWN SetDigitalOutput(1, 1) WITH WAIT;
  SPAWN Delay(0.5) WITH WAIT;
  SPAWN MoveLinear(A_Safe, 60, 50, 0, 0) WITH WAIT;
  SPAWN MoveLinear(B_Safe, 150, 100, 0, 0) WITH WAIT;
  SPAWN MoveLinear(B, 60, 50, 0, 0) WITH WAIT;
  SPAWN SetDigitalOutput(1, 0) WITH WAIT;
  SPAWN Delay(0.5) WITH WAIT;
  SPAWN MoveLinear(B_Safe, 60, 50, 0, 0) WITH WAIT;
  SPAWN MoveJoint(Home, 30, 40, 0, 0) WITH WAIT;
  SPAWN End() WITH WAIT;
}
"""


def test_pattern_safe_heights_and_delays(findings: Run) -> None:
    assert findings(SLOPPY, Level.DOMAIN) == [
        ("R-DOM-002", "WARNING", 2, "Safe height 80mm of A_Safe_Pose may be too low (recommend >= 100mm)"),
        ("R-DOM-002", "WARNING", 3, "Safe height 90mm of 안전_B may be too low (recommend >= 100mm)"),
        ("R-DOM-001", "INFO", 8, "Non-standard pick-and-place pattern detected (36.36% match, 80% expected)"),
        ("R-DOM-003", "WARNING", 8, "Missing delay after gripper action at line 8"),
        ("R-DOM-003", "WARNING", 11, "Delay of 5 s after gripper action is outside 0.3-2 s"),
    ]


def test_the_standard_pick_and_place_matches(findings: Run) -> None:
    assert findings(STANDARD, Level.DOMAIN) == []
    assert findings(STANDARD, Level.SAFETY) == []
    assert findings(STANDARD, Level.CONSISTENCY) == []


def _table_lcs(left: list[str], right: list[str]) -> int:
    row = [0] * (len(right) + 1)
    for item in left:
        diagonal = 0
        for index, other in enumerate(right, start=1):
            above = row[index]
            row[index] = diagonal + 1 if item == other else max(row[index], row[index - 1])
            diagonal = above
    return row[-1]


@given(st.lists(st.sampled_from("abcd"), max_size=40), st.lists(st.sampled_from("abcde"), max_size=40))
def test_bit_parallel_subsequence_matches_the_table_algorithm(left: list[str], right: list[str]) -> None:
    assert common_subsequence_length(left, right) == _table_lcs(left, right)


def test_subsequence_of_long_sequences() -> None:
    rng = random.Random(1)
    pattern = [rng.choice("abcdefg") for _ in range(200)]
    observed = [rng.choice("abcdefg") for _ in range(1000)]
    assert common_subsequence_length(pattern, observed) == _table_lcs(pattern, observed)
