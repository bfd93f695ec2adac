"""The ``treebrain kg`` commands and ``treebrain eval kg`` on the shipped robot file (scripted answers,
or the rules alone)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from treebrain.cli import main
from treebrain.kg.config import KitchenConfig
from treebrain.kg.eval_set import load_eval_set, load_scripted_answers
from treebrain.kg.evaluation import evaluate, run_scenario, seed_graph
from treebrain.kg.persistence import load_graph, save_graph

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(arg) for arg in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def cereal_kitchen(tmp_path: Path, files: Any, kitchen_config: KitchenConfig) -> Path:
    """A saved graph holding the breakfast scenario's kitchen before its first narration."""
    scenario = next(s for s in load_eval_set(files.scenarios) if s.id == "breakfast_cereal")
    path = tmp_path / "kg.json"
    save_graph(seed_graph(scenario, kitchen_config), path)
    return path


@pytest.fixture
def ingested(capsys: pytest.CaptureFixture[str], files: Any, cereal_kitchen: Path) -> Path:
    code, out, _ = run(
        capsys,
        "kg",
        "ingest",
        files.sample_csv,
        "--robot",
        files.robot,
        "--provider",
        "scripted",
        "--kg",
        cereal_kitchen,
        "-q",
    )
    assert code == 0, out
    return cereal_kitchen


def test_ingest_runs_the_tree_per_narration_and_saves_the_expected_kitchen(
    capsys: pytest.CaptureFixture[str], files: Any, cereal_kitchen: Path
) -> None:
    code, out, _ = run(
        capsys,
        "kg",
        "ingest",
        files.sample_csv,
        "--robot",
        files.robot,
        "--provider",
        "none",
        "--kg",
        cereal_kitchen,
        "--save-every",
        "5",
        "-q",
    )
    assert code == 0
    lines = out.splitlines()
    assert [line for line in lines if not line.startswith("time: ")] == [
        "22 narration(s): CREATE_NEW 5, MODIFY_STATE 4, PLACE 6, TAKE 3, ZONE_EVENT 4",  # as labelled
        "decided by the rules: 22; by the LLM: 0 (0 retries); low-confidence rule-based: 0",
        f"saved {cereal_kitchen}",
    ]
    assert re.fullmatch(
        r"time: [0-9.]+ s, [0-9.]+ narrations/s; per narration median [0-9.]+ ms, max [0-9.]+ m?s", lines[2]
    )
    graph = load_graph(cereal_kitchen).kg
    assert sorted(graph.food_ids()) == [
        "food_banana_1",
        "food_bowl_1",
        "food_cereal_1",
        "food_cereal_2",
        "food_knife_1",
        "food_milk_1",
        "food_milk_2",
        "food_spoon_1",
    ]
    assert graph.view("food_milk_1").zone_name == "fridge"
    assert graph.location_of("food_milk_2") == "food_bowl_1"  # the milk poured, a portion of its own
    assert graph.location_of("food_cereal_2") == "food_bowl_1"  # and the cereal poured from its box
    assert not list(cereal_kitchen.parent.glob(".kg.json.*.tmp"))


def test_ingest_reports_each_bad_row_on_its_line_and_ingests_the_rest(
    capsys: pytest.CaptureFixture[str], files: Any, tmp_path: Path
) -> None:
    narrations = tmp_path / "bad.csv"
    narrations.write_text(
        "narration_id,start_timestamp,stop_timestamp,narration\n"
        "a,00:00:05,00:00:01,take milk\n"
        "b,00:00:06,00:00:07,\n"
        "a,00:00:08,00:00:09,put milk in fridge\n"
    )
    graph = tmp_path / "kg.json"
    code, _, err = run(capsys, "kg", "ingest", narrations, "--robot", files.robot, "--kg", graph)
    assert code == 0
    assert f"{narrations}:2: stop_timestamp: the narration ends (1 s) before it starts (5 s)" in err
    assert f"{narrations}:3: narration: expected the narration text, got ''; skipped" in err
    assert f"{narrations}:4: narration_id: 'a' is already used on line 2; kept as 'a#4'" in err
    assert '"a#4"' in graph.read_text()


def test_an_unknown_provider_lists_the_profiles(
    capsys: pytest.CaptureFixture[str], files: Any, tmp_path: Path
) -> None:
    code, _, err = run(capsys, "kg", "ingest", files.sample_csv, "--robot", files.robot, "--provider", "gpt9")
    assert code == 2
    assert "--provider: no LLM profile 'gpt9' (profiles: haiku, local, scripted)" in err


def test_where_history_and_show_read_the_saved_graph(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, files: Any, ingested: Path
) -> None:
    monkeypatch.setenv("COLUMNS", "160")
    code, out, _ = run(capsys, "kg", "where", "milk", "--robot", files.robot, "--kg", ingested)
    assert (code, out) == (
        0,
        "food_milk_1 (milk): fridge (zone_fridge_1); state opened; last seen 32.8 s\n"
        '  from cereal-13 (30.8-32.8 s) "put the milk back in the fridge"\n'
        "food_milk_2 (milk): in bowl (food_bowl_1) at table (zone_table_1); state poured; last seen 30.4 s\n"
        '  from cereal-12 (28.76-30.4 s) "pour milk into the bowl"\n',
    )
    code, out, _ = run(capsys, "kg", "where", "bananna", "--robot", files.robot, "--kg", ingested)
    assert (code, out.splitlines()[0]) == (0, "no object is called 'bananna'; matched by close spelling:")
    code, out, _ = run(capsys, "kg", "where", "mushroom", "--robot", files.robot, "--kg", ingested)
    assert (code, out) == (1, "no object matches 'mushroom'\n")
    code, out, _ = run(capsys, "kg", "history", "banana", "--robot", files.robot, "--kg", ingested)
    assert code == 0
    assert "food_banana_1 (banana): in bowl (food_bowl_1) at table (zone_table_1), sliced" in out
    assert [word for word in ("TAKE", "peel", "slice", "PLACE") if word in out] == [
        "TAKE",
        "peel",
        "slice",
        "PLACE",
    ]
    code, out, _ = run(capsys, "kg", "show", "--robot", files.robot, "--kg", ingested)
    assert code == 0
    assert out.startswith("8 object(s), 5 zone(s), 0 unattributed event(s), 22 narration(s)")
    rows = [line.split("│")[1:-1] for line in out.splitlines() if "food_cereal_1" in line]
    assert [cell.strip() for cell in rows[0]] == [
        "food_cereal_1",
        "cereal",
        "cupboard (zone_cupboard_1)",
        "closed",
        "unknown",
        "23.32",
        "4",
    ]


def test_draw_writes_a_png(
    capsys: pytest.CaptureFixture[str], files: Any, ingested: Path, tmp_path: Path
) -> None:
    picture = tmp_path / "kitchen.png"
    code, out, _ = run(capsys, "kg", "draw", "--out", picture, "--robot", files.robot, "--kg", ingested)
    assert (code, out) == (0, f"wrote {picture}\n")
    assert picture.read_bytes().startswith(PNG_SIGNATURE)


def test_a_missing_or_broken_graph_file_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], files: Any, tmp_path: Path
) -> None:
    missing = tmp_path / "none.json"
    code, _, err = run(capsys, "kg", "show", "--robot", files.robot, "--kg", missing)
    assert code == 2
    assert err.splitlines()[0] == (
        f"{missing}: no knowledge graph file here; run `treebrain kg ingest` first or pass --kg"
    )
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "treebrain.kitchen-kg",\n "version": 3}\n')
    code, _, err = run(capsys, "kg", "where", "milk", "--robot", files.robot, "--kg", broken)
    assert code == 2
    assert f"{broken}:2:13: version: Input should be 1 or 2" in err


def test_eval_reports_markdown_and_json_like_the_plain_loop(
    capsys: pytest.CaptureFixture[str], files: Any, kitchen_config: KitchenConfig, tmp_path: Path
) -> None:
    result = tmp_path / "eval.json"
    code, out, _ = run(capsys, *eval_kg(files, result, "--provider", "scripted", "--no-rules-first"))
    assert code == 0
    table = out[out.index("| metric | value |") :].splitlines()
    assert table[:6] == [
        "| metric | value |",
        "|---|---|",
        "| profile | scripted |",
        "| scenarios | 6 |",
        "| narrations | 157 |",
        "| update-type accuracy | 100.0% |",
    ]
    assert "| duplicate-node rate | 0.0% |" in out and "| retries per narration | 0.083 |" in out
    scenarios = load_eval_set(files.scenarios)
    answers = load_scripted_answers(files.answers)
    plain = evaluate(
        scenarios,
        [run_scenario(s, kitchen_config, answers, rules_first=False) for s in scenarios],
        kitchen_config.vocabulary.names,
    )
    written = json.loads(result.read_text())
    assert written["summary"]["suite"] == {"profile": "scripted", **plain.model_dump(mode="json")}
    assert [(case["id"], case["status"]) for case in written["cases"]] == [(s.id, "pass") for s in scenarios]
    outcomes = [outcome for case in written["cases"] for outcome in case["detail"]["outcomes"]]
    assert len(outcomes) == 157
    assert sum(case["tokens"] for case in written["cases"]) == written["summary"]["tokens"] > 0
    fallback = [outcome for outcome in outcomes if outcome["confidence"] == "low"]
    assert fallback == [
        {
            "narration": "tea-24",
            "outcome": "PLACE",
            "food_id": "food_spoon_1",
            "source": "rules",
            "confidence": "low",
            "attempt_errors": [
                [
                    "the answer is not valid JSON (Expecting value at line 1 column 1); answer with one JSON object"
                ],
                [
                    "update_type 'DISCARD' is neither one of CREATE_NEW, TAKE, PLACE, MODIFY_STATE nor a known kitchen verb"
                ],
                [
                    "target_food_id 'food_spoon_9' is not in the graph; offered: food_spoon_1 (spoon, in left hand)"
                ],
            ],
            "warnings": [],
        }
    ]


def test_the_scenarios_pass_rules_only_and_two_workers_agree_with_one(
    capsys: pytest.CaptureFixture[str], files: Any, tmp_path: Path
) -> None:
    """Rules only: every scenario passes ("pour the pasta into the pot" pours a portion from the
    packet, as the labels read it since part 21). The same with two workers."""
    documents = []
    for workers in ("1", "2"):
        result = tmp_path / f"workers{workers}.json"
        code, _, _ = run(capsys, *eval_kg(files, result, "--provider", "none", "-q", workers=workers))
        assert code == 0
        documents.append(json.loads(result.read_text()))
    one, two = documents
    assert (one["cases"], one["summary"]) == (two["cases"], two["summary"])
    failed = [case for case in one["cases"] if case["status"] != "pass"]
    assert failed == []
    suite = one["summary"]["suite"]
    assert (suite["profile"], suite["narrations"], suite["low_confidence_rate"]) == ("none", 157, 1 / 157)
    assert one["summary"]["tokens"] == 0 and two["measured"]["workers"] == 2


def test_eval_with_a_missing_robot_file_is_bad_input(
    capsys: pytest.CaptureFixture[str], files: Any, tmp_path: Path
) -> None:
    result = tmp_path / "eval.json"
    code, _, err = run(capsys, "eval", "kg", "--robot", tmp_path / "none.yaml", "--json", result)
    assert code == 2 and "none.yaml" in err
    assert not result.exists()


def eval_kg(files: Any, result: Path, *more: str, workers: str = "1") -> list[str | Path]:
    """`treebrain eval kg` on the shipped robot file, ticking fast, with `workers` workers."""
    return [
        "eval",
        "kg",
        "--robot",
        files.robot,
        "--hz",
        "2000",
        "--json",
        result,
        "--workers",
        workers,
        *more,
    ]
