"""``treebrain kg ingest`` as a user meets it: from any folder, in time order, one video at a time,
resuming instead of doubling, saying what it appends to, timing each narration; and the questions
the graph then answers with the narrations they come from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from treebrain.cli import main
from treebrain.kg.persistence import load_graph

VIDEOS = """narration_id,participant_id,video_id,start_timestamp,stop_timestamp,narration
P90_01_0,P90,P90_01,00:00:01.00,00:00:02.00,open fridge
P90_01_1,P90,P90_01,00:00:02.50,00:00:03.50,take garlic paste
P90_01_10,P90,P90_01,00:00:30.00,00:00:31.00,put garlic paste in fridge
P90_01_2,P90,P90_01,00:00:04.00,00:00:05.00,grab baking tray
P90_01_3,P90,P90_01,00:00:06.00,00:00:07.00,put baking tray in oven
P90_01_4,P90,P90_01,00:00:08.00,00:00:09.00,wash hands
P90_01_5,P90,P90_01,00:00:10.00,00:00:11.00,get fork
P90_01_6,P90,P90_01,00:00:12.00,00:00:13.00,place fork on plate
P90_01_7,P90,P90_01,00:00:14.00,00:00:15.00,stir it
P90_01_8,P90,P90_01,00:00:16.00,00:00:17.00,take sponge
P90_01_9,P90,P90_01,00:00:18.00,00:00:19.00,rinse sponge
P90_02_0,P90,P90_02,00:00:01.00,00:00:02.00,close fridge
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(arg) for arg in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def narrations(tmp_path: Path) -> Path:
    path = tmp_path / "P90.csv"
    path.write_text(VIDEOS)
    return path


def test_from_any_folder_in_time_order_one_video_resumed_not_doubled(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, narrations: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # no --robot: the default works from any folder
    graph = tmp_path / "kg.json"
    ingest = ("kg", "ingest", narrations, "--kg", graph, "--provider", "none", "-q")
    code, out, err = run(capsys, *ingest, "--video", "P90_01")
    assert code == 0
    assert (
        out.splitlines()[0]
        == "11 narration(s): CREATE_NEW 4, MODIFY_STATE 1, PLACE 3, UNATTRIBUTED 2, ZONE_EVENT 1"
    )
    assert err.splitlines()[:2] == [
        f"new graph: {graph}",
        "note: the file is not in time order (P90_01_2 at 4 s comes after P90_01_10 at 30 s); "
        "9 narration(s) sorted by start time",
    ]
    kg = load_graph(graph).kg
    assert kg.narration_count() == 11 and not kg.has_narration("P90_02_0")
    paste = kg.view("food_garlic_paste_1")
    assert (paste.location_name, paste.state) == ("fridge", "unknown"), "put away last, as the times say"
    code, out, err = run(capsys, *ingest)
    assert code == 0
    assert err.splitlines() == [
        f"appending to the graph in {graph} (5 object(s), 11 narration(s) already applied); pass --new to "
        "start an empty one, or --kg FILE",
        "note: the file is not in time order (P90_01_2 at 4 s comes after P90_01_10 at 30 s); "
        "9 narration(s) sorted by start time",
        "note: 2 videos (P90_01, P90_02) go into one graph, one after the other; pass --video ID for one",
        "note: resuming: 11 of 12 narration(s) are already in the graph, skipped",
    ]
    assert out.splitlines()[0] == "1 narration(s): ZONE_EVENT 1"
    code, out, _ = run(capsys, *ingest)
    assert out.splitlines()[0] == "nothing to do: every narration is already in the graph"
    assert load_graph(graph).kg.narration_count() == 12, "nothing applied twice"
    code, _, err = run(capsys, *ingest, "--new", "--video", "P90_02")
    assert err.splitlines()[0] == f"starting an empty graph; {graph} is replaced at the first save"
    assert load_graph(graph).kg.narration_count() == 1
    code, _, err = run(capsys, *ingest, "--video", "P99_01")
    assert code == 2 and "no narration of video 'P99_01' (the file has P90_01, P90_02)" in err


def test_verbose_times_every_narration_and_says_who_decided(
    capsys: pytest.CaptureFixture[str], files: Any, narrations: Path, tmp_path: Path
) -> None:
    argv = (
        "kg",
        "ingest",
        narrations,
        "--robot",
        files.robot,
        "--kg",
        tmp_path / "kg.json",
        "--provider",
        "none",
    )
    code, _, err = run(capsys, *argv, "--video", "P90_01", "-q", "-v")
    assert code == 0
    lines = [" ".join(line.split()) for line in err.splitlines() if line.startswith("P90_01_")]  # columns
    assert len(lines) == 11
    assert lines[1].startswith("P90_01_1 ") and lines[1].endswith(
        "ms rules CREATE_NEW food_garlic_paste_1 take garlic paste"
    )
    assert lines[4].endswith("ms unattributed UNATTRIBUTED - wash hands")


def test_rules_only_cannot_go_with_the_llm_extractor(
    capsys: pytest.CaptureFixture[str], files: Any, narrations: Path
) -> None:
    code, _, err = run(
        capsys, "kg", "ingest", narrations, "--robot", files.robot, "--provider", "none", "--llm-extractor"
    )
    assert code == 2
    assert "--llm-extractor needs an LLM: it cannot go with --provider none" in err


def test_the_questions_cite_their_narrations(
    capsys: pytest.CaptureFixture[str], files: Any, narrations: Path, tmp_path: Path
) -> None:
    graph = tmp_path / "kg.json"
    base = ("--robot", files.robot, "--kg", graph)
    assert (
        run(capsys, "kg", "ingest", narrations, *base, "--provider", "none", "--video", "P90_01", "-q")[0]
        == 0
    )
    code, out, _ = run(capsys, "kg", "where", "fork", *base)
    assert (code, out) == (
        0,
        "food_fork_1 (fork): in plate (food_plate_1); state unknown; last seen 13 s\n"
        '  from P90_01_6 (12-13 s) "place fork on plate"\n',
    )
    code, out, _ = run(capsys, "kg", "where", "tray", *base)
    assert out.splitlines() == [
        "no object is called 'tray'; matched by head noun:",
        "food_baking_tray_1 (baking tray): oven (zone_oven_1); state unknown; last seen 7 s",
        '  from P90_01_3 (6-7 s) "put baking tray in oven"',
    ]
    code, out, _ = run(capsys, "kg", "last", "sponge", *base)
    assert out == 'food_sponge_1: rinse (MODIFY_STATE) by P90_01_9 (18-19 s) "rinse sponge"\n'
    code, out, _ = run(capsys, "kg", "open", *base)
    assert out == 'zone_fridge_1 (fridge): open since P90_01_0 (1-2 s) "open fridge"\n'
    code, out, _ = run(capsys, "kg", "unattributed", *base)
    assert out.splitlines() == [
        "2 narration(s) not attributed to any object",
        "P90_01_4 (8-9 s) \"wash hands\": 'hands': the person's own hands, not a kitchen object",
        "P90_01_7 (14-15 s) \"stir it\": 'it': a pronoun; the narration does not say which object",
    ]
    code, out, _ = run(capsys, "kg", "last", "kettle", *base)
    assert (code, out) == (1, "no object matches 'kettle'\n")


def test_eval_scores_the_story_suite_through_the_tree(
    capsys: pytest.CaptureFixture[str], files: Any, tmp_path: Path
) -> None:
    result = tmp_path / "stories.json"
    argv = ("eval", "kg", "--robot", files.robot, "--stories", "--provider", "none", "--hz", "2000")
    code, out, _ = run(capsys, *argv, "--json", result, "--workers", "1")
    assert code == 0
    lines = out[out.index("**story suite") :].splitlines()
    assert lines[0] == "**story suite, provider none**"
    stories = lines[2].split(" | ")[1:-1]
    assert stories == ["P91_01", "P91_02", "P92_05", "P93_03"]
    for metric in ("invented nodes", "duplicate entities", "misattributed events", "lost narrations"):
        assert f"| {metric} | 0 | 0 | 0 | 0 | 0 |" in lines
    assert "| location accuracy | 100.0% | 100.0% | 100.0% | 100.0% | 100.0% |" in lines
    written = json.loads(result.read_text())
    assert [(case["id"], case["category"], case["status"]) for case in written["cases"]] == [
        (story, "story", "pass") for story in stories
    ]
    summary = written["summary"]["suite"]
    assert (summary["narrations"], summary["location_accuracy"], summary["lost"]) == (502, 1.0, 0)
    outcomes = [outcome for case in written["cases"] for outcome in case["detail"]["outcomes"]]
    assert len(outcomes) == 502
    assert {outcome["source"] for outcome in outcomes} == {"rules", None}
    assert set(written["measured"]["suite"]["seconds"]) == set(stories)


def test_eval_scores_a_labelled_video_through_the_tree(
    capsys: pytest.CaptureFixture[str], files: Any, tmp_path: Path
) -> None:
    narrations = tmp_path / "train.csv"
    texts = ["open fridge", "take butter", "put butter", "close fridge", "take knife", "wash hands"]
    rows = [f"P90_01_{i},P90_01,{2 * i}.0,{2 * i + 1}.0,{text}" for i, text in enumerate(texts)]
    narrations.write_text(
        "narration_id,video_id,start_timestamp,stop_timestamp,narration\n" + "\n".join(rows) + "\n"
    )
    truth = tmp_path / "truth"
    truth.mkdir()
    objects = [
        {
            "id": "butter",
            "names": ["butter"],
            "narrations": ["P90_01_1", "P90_01_2"],
            "place": "fridge",
            "certainty": "likely",
        },
        {"id": "knife", "names": ["knife"], "narrations": ["P90_01_4"], "place": "hand", "certainty": "sure"},
    ]
    (truth / "P90_01.json").write_text(json.dumps({"video": "P90_01", "split": "train", "objects": objects}))
    argv = (
        "eval",
        "kg",
        "--robot",
        files.robot,
        "--truth",
        truth,
        "--narrations",
        narrations,
        "--provider",
        "none",
    )
    code, out, _ = run(capsys, *argv, "--json", tmp_path / "videos.json", "--workers", "1", "--hz", "2000")
    assert code == 0
    assert "| P90_01 | 6 | 100.0% (2/2) | 100.0% (2/2) | 100.0% (1/1) | 100.0% (1/1) | 0 | 0 | 0 | - |" in out
    code, _, err = run(capsys, "eval", "kg", "--robot", files.robot, "--truth", truth, "--provider", "none")
    assert code == 2
    assert "--truth DIR and --narrations FILE go together" in err
