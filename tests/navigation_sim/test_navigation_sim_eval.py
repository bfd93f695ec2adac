"""``treebrain eval navigation``: the A/B protocol as an evaluation suite -- its options and cases,
one mission per case with the mode as category, the verdict, the picture of a failed mission, the
protocol's scores in the summary, and the same result whatever the worker count."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from treebrain.cli import build_parser, main
from treebrain.errors import InputError
from treebrain.evaluation.cases import Case, CaseResult
from treebrain.evaluation.suites import SUITES
from treebrain.evaluation.suites.navigation import NavigationSuite
from treebrain.navigation.evaluation import MissionRecord, report

REPO = Path(__file__).resolve().parents[2]
ROBOT = REPO / "config" / "robots" / "turtlebot.yaml"
MAPS = REPO.parent / "shared" / "maps"
TB3 = MAPS / "turtlebot3_world.yaml"
DEMO = REPO / "config" / "navigation" / "maps" / "demo_house.yaml"
Output = pytest.CaptureFixture[str]


def parsed(*arguments: str) -> argparse.Namespace:
    return build_parser().parse_args(["eval", "navigation", *arguments])


def suite(*arguments: str) -> NavigationSuite:
    return NavigationSuite.from_arguments(parsed("--robot", str(ROBOT), *arguments))


def record(mode: str = "llm", **fields: Any) -> MissionRecord:
    values = {"mode": mode, "map": "house.yaml", "seed": 0, "duration_s": 60.0, "coverage": 0.95}
    return MissionRecord.model_validate({**values, **fields})


def result(index: int, mission: MissionRecord, status: str = "pass") -> CaseResult:
    detail = mission.model_dump(mode="json", exclude={"wall_s"})
    return CaseResult(
        index,
        f"{mission.mode}-{index}",
        mission.mode,
        status,  # type: ignore[arg-type]
        detail=detail if status != "error" else {},
        measured={"wall_s": mission.wall_s},
    )


# options and cases ----------------------------------------------------------------------------


def test_the_suite_is_registered_and_answers_with_the_stand_in_by_default() -> None:
    assert SUITES["navigation"].load() is NavigationSuite
    made = suite()
    assert made.settings() == {
        "robot": "config/robots/turtlebot.yaml",
        "modes": ["frontier", "llm", "hybrid"],
        "maps": "the robot's",
        "seeds": 1,
        "duration_s": 300.0,
        "provider": "standin",
        "min_coverage": 0.9,
    }
    assert made.files() == [Path("config")]
    assert suite("--provider", "scripted").provider == "scripted"


def test_one_case_per_mode_map_and_seed_with_the_mode_as_category() -> None:
    made = suite(
        "--modes", "hybrid,frontier,hybrid", "--maps", f"{TB3},{DEMO}", "--seeds", "2", "--duration", "30"
    )
    cases = made.cases()
    assert [case.id for case in cases] == [
        "hybrid-turtlebot3_world-0",
        "hybrid-turtlebot3_world-1",
        "hybrid-demo_house-0",
        "hybrid-demo_house-1",
        "frontier-turtlebot3_world-0",
        "frontier-turtlebot3_world-1",
        "frontier-demo_house-0",
        "frontier-demo_house-1",
    ]
    assert [case.category for case in cases] == ["hybrid"] * 4 + ["frontier"] * 4
    assert [case.seed for case in cases] == [0, 1] * 4
    assert cases[2].data == {
        "mode": "hybrid",
        "map": "config/navigation/maps/demo_house.yaml",
        "duration_s": 30.0,
    }
    assert made.files() == [Path("config"), TB3.parent, Path("config/navigation/maps")]


def test_without_maps_a_case_drives_on_the_robot_files_own_map() -> None:
    cases = suite("--modes", "llm").cases()
    assert [(case.id, case.data["map"]) for case in cases] == [("llm-demo_house-0", None)]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--modes", "frontier,warp"], "--modes: unknown warp (valid: frontier, llm, hybrid)"),
        (["--modes", ","], "--modes: name at least one mode"),
        (["--maps", "missing.yaml"], "--maps: no such file missing.yaml"),
        (["--seeds", "0"], "--seeds must be at least 1 and --duration positive"),
        (["--duration", "nan"], "--seeds must be at least 1 and --duration positive"),
    ],
)
def test_bad_options_are_refused_before_any_mission(arguments: list[str], message: str) -> None:
    with pytest.raises(InputError) as caught:
        suite(*arguments)
    assert message in caught.value.render()


def test_an_unknown_profile_and_maps_of_the_same_name_are_refused_when_listing_the_cases(
    tmp_path: Path,
) -> None:
    with pytest.raises(InputError) as caught:
        suite("--modes", "llm", "--provider", "nonesuch").cases()
    assert "--provider: no LLM profile 'nonesuch'" in caught.value.render()
    assert suite("--modes", "frontier", "--provider", "nonesuch").cases()  # the frontier asks no model
    twin = tmp_path / "demo_house.yaml"
    twin.write_text(DEMO.read_text().replace("image: ", f"image: {DEMO.parent}/"))
    with pytest.raises(InputError) as caught:
        suite("--modes", "frontier", "--maps", f"{DEMO},{twin}").cases()
    assert "--maps: two maps have the same file name" in caught.value.render()


def test_the_minimum_coverage_is_a_fraction(capsys: Output) -> None:
    assert suite("--min-coverage", "0").min_coverage == 0.0
    with pytest.raises(SystemExit):
        parsed("--min-coverage", "1.5")
    assert "expected a fraction from 0 to 1, got 1.5" in capsys.readouterr().err


def test_an_unknown_mode_is_one_line_and_exit_2(capsys: Output) -> None:
    assert main(["eval", "navigation", "--modes", "frontier,warp"]) == 2
    assert "--modes: unknown warp (valid: frontier, llm, hybrid)" in capsys.readouterr().err


# one case -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mission", "passed", "reason"),
    [
        (record(coverage=0.95), True, ""),
        (record(coverage=0.5), False, "coverage 50.00% < 90%"),
        (record(coverage=0.95, collisions=1), False, "1 collision(s)"),
    ],
)
def test_a_case_passes_without_collision_and_with_enough_coverage_and_pictures_a_failure(
    mission: MissionRecord, passed: bool, reason: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[tuple[Any, ...]] = []

    def fly(*arguments: Any) -> tuple[MissionRecord, bytes]:
        asked.append(arguments)
        return mission.model_copy(update={"tokens": 120, "cost_usd": 0.001, "wall_s": 1.25}), b"PNG"

    monkeypatch.setattr("treebrain.evaluation.suites.navigation.fly_mission", fly)
    made = suite("--maps", str(DEMO))
    case = Case("llm-demo_house-3", "llm", 3, {"mode": "llm", "map": str(DEMO), "duration_s": 60.0})
    outcome = made.run(None, case)
    assert asked == [(made.robot, "llm", DEMO, 3, 60.0, "standin")]
    assert (outcome.passed, outcome.reason, outcome.tokens, outcome.cost_usd) == (passed, reason, 120, 0.001)
    assert outcome.media == ({} if passed else {"mission.png": b"PNG"})
    assert "wall_s" not in outcome.detail and outcome.measured == {"wall_s": 1.25}
    assert MissionRecord.model_validate(outcome.detail).coverage == mission.coverage
    made.run(
        None, Case("frontier-house-0", "frontier", 0, {"mode": "frontier", "map": None, "duration_s": 9.0})
    )
    assert asked[-1] == (made.robot, "frontier", None, 0, 9.0, None)  # the frontier asks no model


def test_the_summary_is_the_protocols_report_of_the_flown_missions() -> None:
    missions = [
        record("frontier", coverage=1.0, coverage_over_time=[(10.0, 0.5), (60.0, 1.0)], wall_s=2.0),
        record("llm", coverage=0.5, coverage_over_time=[(10.0, 0.2), (40.0, 0.5)], decisions=4, wall_s=2.0),
        record("llm", coverage=0.7, wall_s=9.0),
    ]
    results = [result(0, missions[0]), result(1, missions[1], "fail"), result(2, missions[2], "error")]
    summary = suite().summary(results)
    assert summary["modes"] == report(missions[:2])["modes"]
    assert summary["measured"] == {"simulated_s": 100.0, "wall_s": 4.0, "x_real_time": 25.0}
    markdown = NavigationSuite.markdown(summary)
    assert "no collision and coverage >= 90%" in markdown
    assert "| llm | house.yaml | 1 | 50.0% | 0 | 0 | 0.0 | 4 | 0 | 0.0000 |" in markdown
    assert "100 simulated seconds in 4.0 s of missions (25.0 x real time)" in markdown


# real missions --------------------------------------------------------------------------------


@pytest.mark.slow
def test_eval_runs_the_missions_reports_the_ab_scores_and_pictures_the_failures(
    tmp_path: Path, capsys: Output
) -> None:
    out, pages = tmp_path / "ab.json", tmp_path / "report"
    arguments = [
        "eval",
        "navigation",
        "--robot",
        str(ROBOT),
        "--modes",
        "frontier,hybrid",
        "--maps",
        str(TB3),
    ]
    arguments += ["--duration", "60", "--min-coverage", "1", "--workers", "1", "--json", str(out)]
    assert main([*arguments, "--report", str(pages)]) == 0  # failed missions are no errors
    assert "| frontier | turtlebot3_world.yaml | 1 |" in capsys.readouterr().out
    document = json.loads(out.read_text())
    assert document["settings"]["provider"] == "standin"
    cases = {case["id"]: case for case in document["cases"]}
    assert list(cases) == ["frontier-turtlebot3_world-0", "hybrid-turtlebot3_world-0"]
    for mode in ("frontier", "hybrid"):
        case = cases[f"{mode}-turtlebot3_world-0"]
        assert case["category"] == mode and case["status"] == "fail"
        assert case["reason"] == f"coverage {case['detail']['coverage']:.2%} < 100%"
        assert case["detail"]["collisions"] == 0 and 0.5 < case["detail"]["coverage"] < 1
        picture = out.parent / case["media"][0]
        assert picture.name == f"{mode}-turtlebot3_world-0-mission.png" and picture.stat().st_size < 20_000
        assert Image.open(io.BytesIO(picture.read_bytes())).format == "PNG"
        assert case["media"][0] in (pages / "report.md").read_text()
    summary = document["summary"]
    assert summary["by_category"]["frontier"]["failed"] == 1 and summary["errors"] == 0
    modes = summary["suite"]["modes"]
    for mode in ("frontier", "hybrid"):
        score = modes[mode]
        assert score["coverage"] == cases[f"{mode}-turtlebot3_world-0"]["detail"]["coverage"]
        assert score["collisions"] == 0 and list(score["maps"]) == ["turtlebot3_world.yaml"]
        assert score["coverage_over_time"][0][1] < score["coverage_over_time"][-1][1]
    assert modes["frontier"]["decisions"] == 0 and modes["hybrid"]["decisions"] > 0
    assert (
        modes["frontier"]["tokens"] == 0
        and modes["hybrid"]["tokens"] == cases["hybrid-turtlebot3_world-0"]["tokens"] > 0
    )
    assert document["measured"]["suite"]["x_real_time"] > 1


@pytest.mark.slow
def test_two_workers_give_the_same_cases_and_summary_as_one(tmp_path: Path) -> None:
    documents = []
    for workers in ("1", "2"):
        out = tmp_path / workers / "navigation.json"  # media paths name the file
        arguments = [
            "eval",
            "navigation",
            "--robot",
            str(ROBOT),
            "--modes",
            "frontier,llm",
            "--maps",
            str(TB3),
        ]
        arguments += ["--seeds", "2", "--duration", "30", "--workers", workers, "--json", str(out), "-q"]
        assert main(arguments) == 0
        documents.append(json.loads(out.read_text()))
    one, two = documents
    assert len(one["cases"]) == 4
    assert one["cases"] == two["cases"]
    assert one["summary"] == two["summary"]
