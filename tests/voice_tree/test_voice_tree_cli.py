"""``treebrain voice`` and ``treebrain eval voice``: what they print (text and ``--json``), their exit
codes, strict mode's question, scripted answers from ``--responses``, and the evaluation's result
file (the same with one worker or two)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from treebrain.cli import main
from treebrain.cli.voice import summary
from treebrain.evaluation.suites.voice import VoiceSuite
from treebrain.sessions.voice import CommandReport
from treebrain.voice.suite import SuiteCase, load_suite

if TYPE_CHECKING:
    from tests.voice_tree.conftest import VoiceTree

REPO = Path(__file__).resolve().parents[2]
SUITE = REPO / "config" / "voice" / "observation_suite.yaml"
RESPONSES = REPO / "config" / "voice" / "observation_responses.yaml"


def timeless(out: str) -> str:
    """`out` with the route lines' times, which vary from run to run, as N."""
    return re.sub(r"(interpreted in|·) \d+(?:\.\d)? m?s\b", r"\1 N", out)


def test_voice_prints_what_was_understood_the_route_the_plan_what_ran_and_the_final_scene(
    voice: VoiceTree, capsys: pytest.CaptureFixture[str]
) -> None:
    robot = voice.gofa_copy()
    code = main(scripted_voice(robot, "make a cheese sandwich", "make a tomato sandwich on the right"))
    out = capsys.readouterr().out
    assert code == 0
    blocks = timeless(out).split("── ")
    assert blocks[1] == (
        "'make a cheese sandwich'\n"
        "understood: Known phrase 'make a cheese sandwich' (match 100%)\n"
        "route: phrase_bank · interpreted in N · N in all\n"
        "plan: assembly_fixture: bread, cheese, bread · go_home()\n"
        "executed 28 of 28 primitive(s)\n"
    )
    assert blocks[2].startswith(
        "'make a tomato sandwich on the right'\n"
        "understood: A tomato sandwich in the right zone\n"
        "route: llm · interpreted in N · N in all\n"
        "plan: assembly_right: bread, tomato, bread · go_home()\n"
        "executed 28 of 28 primitive(s)\n\n"
    )
    assert (
        "assembly_left   assembly_fixture   assembly_right\n"
        "                     bread             bread\n"
        "                     cheese            tomato\n"
        "                     bread             bread\n"
    ) in out
    assert "ingredient stacks: bread 4 | meat 4 | cheese 3 | lettuce 4 | tomato 3" in out


def test_verbose_prints_every_primitive(voice: VoiceTree, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["voice", "go home", "put it back", "--robot", str(voice.gofa_copy()), "-v", "--hz", "1000"])
        == 0
    )
    out = capsys.readouterr().out
    assert "── 'go home'\n  arm 1/1: move_to(x_mm=350, y_mm=0, z_mm=450, place=home)\nunderstood: " in out
    assert "plan: go_home()\nexecuted 1 of 1 primitive(s)\n" in out
    # nothing held to put back
    assert "plan: return_to_stack()\nnothing to do: nothing was dispatched\n" in out


def low_confidence_robot(voice: VoiceTree) -> Path:
    answer = voice.generation(("add_layer", {"item": "cheese"}), confidence=0.4)
    entries = [
        {"match": "some cheese", "text": answer},
        {"match": "^You check a sequence", "text": voice.valid},
    ]
    script = voice.folder / "low.jsonl"
    script.write_text("".join(json.dumps(entry) + "\n" for entry in entries), encoding="utf-8")
    return voice.gofa_copy(responses_file=str(script))


def scripted_voice(robot: Path, *arguments: str) -> list[str]:
    """`treebrain voice` arguments for `robot` with its scripted profile, ticking fast."""
    return ["voice", *arguments, "--robot", str(robot), "--provider", "scripted", "--hz", "1000"]


def test_strict_mode_takes_its_answer_from_approve(
    voice: VoiceTree, capsys: pytest.CaptureFixture[str]
) -> None:
    robot = low_confidence_robot(voice)
    args = scripted_voice(robot, "add some cheese", "--strict")
    assert main([*args, "--approve", "no"]) == 3
    out = capsys.readouterr().out
    assert (
        "plan: assembly_fixture: cheese\n"
        "refused: nothing was dispatched: not approved: the operator said no\n"
        "nothing ran\n"
    ) in out
    assert main([*args, "--approve", "yes"]) == 0
    assert "plan: assembly_fixture: cheese\nexecuted 9 of 9 primitive(s)\n" in capsys.readouterr().out


def test_strict_mode_without_a_terminal_never_approves(
    voice: VoiceTree, capsys: pytest.CaptureFixture[str]
) -> None:
    robot = low_confidence_robot(voice)
    code = main(scripted_voice(robot, "add some cheese", "--strict"))
    captured = capsys.readouterr()
    assert code == 3
    assert (
        "Strict mode: confidence 0.40 — confirmation needed before executing: no terminal to ask"
        in captured.err
    )
    assert "nothing was dispatched: not approved: the operator said no" in captured.out


def test_a_refused_command_moves_nothing_and_says_why(
    voice: VoiceTree, capsys: pytest.CaptureFixture[str]
) -> None:
    answer = voice.generation(("go_home", {}), ("nudge", {"direction": "up", "distance": 9999}))
    script = voice.folder / "reach.jsonl"
    script.write_text(json.dumps({"match": "sky", "text": answer}) + "\n", encoding="utf-8")
    robot = voice.gofa_copy(responses_file=str(script))
    assert main(scripted_voice(robot, "go home and reach for the sky", "-v")) == 3
    out = capsys.readouterr().out
    assert "  arm " not in out
    assert (
        "plan: go_home() · nudge(direction=up, distance=9999)\n"
        "refused: nothing was dispatched: refused: sequence:2: nudge(direction=up, distance=9999)"
    ) in out


def test_an_unknown_provider_is_bad_input(voice: VoiceTree, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["voice", "go home", "--robot", str(voice.gofa_copy()), "--provider", "gpt9"])
    assert code == 2
    assert "--provider: no LLM profile 'gpt9' (profiles: haiku, local, scripted)" in capsys.readouterr().err


def scripted_eval(robot: Path, result: Path, *more: str) -> list[str]:
    """`treebrain eval voice` arguments playing the suite's scripted answers through `robot`'s tree
    (the cloud configuration: the parser off, so every command the script answers reaches it)."""
    return [
        *("eval", "voice", str(SUITE), "--robot", str(robot), "--provider", "scripted"),
        *("--responses", str(RESPONSES), "--json", str(result), "--hz", "1000", "--no-parser"),
        *("--workers", "1", *more),
    ]


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_eval_runs_the_suite_on_the_arm_and_nothing_executed_is_wrong(
    voice: VoiceTree, capsys: pytest.CaptureFixture[str]
) -> None:
    result = voice.folder / "voice.json"
    args = scripted_eval(voice.gofa_copy(), result)
    args[args.index("--workers") + 1] = "2"  # 176 cases, a tree loaded for each
    code = main(args)
    printed = capsys.readouterr().out
    assert code == 0
    document = json.loads(result.read_text(encoding="utf-8"))
    summary = document["summary"]["suite"]
    suite = load_suite(SUITE)
    assert summary["cases"] == document["summary"]["cases"] == len(suite.cases) >= 107
    assert [case["id"] for case in document["cases"] if case["status"] != "pass"] == []
    assert summary["executed_but_wrong"] == 0
    assert {c["category"] for c in summary["categories"]} >= {"negation", "limits", "llm_failure"}
    assert summary["pass3_fixes"] > 0 and summary["refused"] > 0
    ham = next(case for case in document["cases"] if case["id"] == "baseline_ham_and_cheese")
    assert ham["detail"]["input_tokens"] > 1000 and 0.0003 < ham["cost_usd"] < 0.003
    assert ham["tokens"] == ham["detail"]["input_tokens"] + ham["detail"]["output_tokens"]
    assert ham["detail"]["zones"]["assembly_fixture"] == ["bread", "meat", "cheese", "bread"]
    assert document["measured"]["suite"]["llm_timing"]["commands"] > 0
    assert (
        "| category | cases | passed | pass rate | refused | false refusals | executed but wrong |" in printed
    )
    assert f"**{summary['passed']}/{summary['cases']} passed (100%)** · refused" in printed
    assert "executed but wrong 0 ·" in printed


def test_eval_runs_chosen_cases_and_rejects_unknown_ones(
    voice: VoiceTree, capsys: pytest.CaptureFixture[str]
) -> None:
    result = voice.folder / "voice.json"
    args = scripted_eval(voice.gofa_copy(), result, "-q")
    assert main([*args, "--case", "edge_empty", "--case", "baseline_typo"]) == 0
    document = json.loads(result.read_text(encoding="utf-8"))
    assert [(case["id"], case["status"]) for case in document["cases"]] == [
        ("baseline_typo", "pass"),
        ("edge_empty", "pass"),
    ]
    assert document["cases"][0]["detail"]["route"] == "phrase_bank"
    assert document["summary"]["suite"]["passed"] == 2
    capsys.readouterr()
    assert main([*args, "--case", "nope"]) == 2
    assert "--case: no such case in the suite: nope" in capsys.readouterr().err


def test_an_unknown_provider_stops_the_eval_before_any_case(
    voice: VoiceTree, capsys: pytest.CaptureFixture[str]
) -> None:
    result = voice.folder / "voice.json"
    args = ["eval", "voice", str(SUITE), "--robot", str(voice.gofa_copy()), "--provider", "gpt9"]
    assert main([*args, "--case", "edge_empty", "--json", str(result), "--workers", "1", "-q"]) == 2
    assert "no LLM profile 'gpt9' (profiles: haiku, local, scripted)" in capsys.readouterr().err
    assert not result.exists()


def test_two_workers_give_the_results_of_one(voice: VoiceTree) -> None:
    """An LLM-answered case, one with before-commands on the same arm, one saving to memory and one
    with its own repair policy: each case is isolated from what its worker ran before."""
    robot = voice.gofa_copy()
    chosen = [
        "baseline_ham_and_cheese",
        "learning_call_it_after_a_sandwich",
        "repair_allowed_runs_with_changes_listed",
        "learning_save_that",
    ]
    documents = []
    for workers in ("1", "2"):
        result = voice.folder / f"workers{workers}.json"
        args = scripted_eval(robot, result, "-q", *(part for case in chosen for part in ("--case", case)))
        args[args.index("--workers") + 1] = workers
        assert main(args) == 0
        documents.append(json.loads(result.read_text(encoding="utf-8")))
    one, two = documents
    assert len(one["cases"]) == 4 and one["summary"]["passed"] == 4
    assert (one["cases"], one["summary"]) == (two["cases"], two["summary"])
    assert two["measured"]["workers"] == 2


def test_a_case_travels_to_its_worker_with_only_the_checks_it_sets() -> None:
    suite = load_suite(SUITE)
    originals = {case.id: case for case in suite.cases}
    cases = VoiceSuite(SUITE, REPO / "config" / "robots" / "gofa.yaml", None, split="train").cases()
    assert 0 < len(cases) < len(suite.cases)
    for case in cases:
        original = originals[case.id]
        travelled = SuiteCase.model_validate(json.loads(json.dumps(case.data["case"])))
        assert (travelled, case.category, case.seed, case.data["strict"]) == (
            original,
            original.category,
            suite.seed,
            suite.strict_mode,
        )
        assert travelled.split == "train"
        assert travelled.expect.model_fields_set == original.expect.model_fields_set
        for scripted in (True, False):
            assert travelled.expectations(scripted=scripted) == original.expectations(scripted=scripted)


def test_json_prints_one_document_per_command_with_the_whole_cell_after_it(
    voice: VoiceTree, capsys: pytest.CaptureFixture[str]
) -> None:
    robot = voice.gofa_copy()
    code = main(scripted_voice(robot, "make a cheese sandwich", "make an avocado sandwich", "--json"))
    lines = capsys.readouterr().out.splitlines()
    assert code == 3
    first, second = (json.loads(line) for line in lines)
    assert (first["status"], first["route"], first["executed"], len(first["dispatched"])) == (
        "done",
        "phrase_bank",
        28,
        28,
    )
    assert 0 <= first["interpret_s"] <= first["total_s"]
    assert first["plan"] == {
        "layers": {"assembly_fixture": ["bread", "cheese", "bread"]},
        "steps": ["go_home()"],
    }
    assert first["dispatched"][0] == "move_to(x_mm=150, y_mm=420, z_mm=160, place=bread)"
    assert first["result"]["interpretation"] == "Known phrase 'make a cheese sandwich' (match 100%)"
    assert first["scene"] == {
        "source": "sim_arm",
        "objects_known": True,
        "pose": {"x_mm": 350.0, "y_mm": 0.0, "z_mm": 450.0},
        "speed_mm_s": 400.0,
        "gripper": "open",
        "held": None,
        "place": "home",
        "stacks": {"bread": 6, "meat": 4, "cheese": 3, "lettuce": 4, "tomato": 4},
        "zones": {
            "assembly_left": [],
            "assembly_fixture": ["bread", "cheese", "bread"],
            "assembly_right": [],
        },
        "locations": {"home": [], "serving_plate": [], "side_table": []},
    }
    assert first["active_zone"] == "assembly_fixture"
    assert (second["status"], second["route"], second["executed"], second["dispatched"], second["plan"]) == (
        "refused",
        "unknown_items",
        0,
        [],
        None,
    )
    assert second["message"].startswith("I don't have avocado")
    assert second["scene"] == first["scene"]


def test_responses_play_a_script_and_each_end_has_its_exit_code(
    voice: VoiceTree, capsys: pytest.CaptureFixture[str]
) -> None:
    script = voice.folder / "answers.jsonl"
    entries = [
        {
            "match": '"make a tomato',
            "text": voice.generation(*voice.sandwich("assembly_right", "bread", "tomato", "bread")),
        },
        {"match": '"make a lettuce', "error": "config", "status_code": 401, "text": ""},
    ]
    script.write_text("".join(json.dumps(entry) + "\n" for entry in entries), encoding="utf-8")
    robot = voice.gofa_copy()
    base = ["voice", "--robot", str(robot), "--responses", str(script), "--hz", "1000"]
    assert main([*base, "make a tomato sandwich on the right"]) == 0
    assert main([*base, "a sandwich"]) == 3
    out = timeless(capsys.readouterr().out)
    assert (
        "── 'a sandwich'\n"
        "understood: The command does not say enough to act on.\n"
        "route: clarify · interpreted in N · N in all\n"
        "question: What should go in it? I have bread, meat, cheese, lettuce and tomato.\n"
        "nothing ran\n"
    ) in out
    assert main([*base, "make a lettuce sandwich", "make a tomato sandwich on the right"]) == 4
    out = capsys.readouterr().out
    assert (
        "model unavailable: the provider refused the API key: check the key, or use --provider local" in out
    )


def test_a_learning_command_says_what_memory_saved_and_a_cut_command_says_so(
    voice: VoiceTree, capsys: pytest.CaptureFixture[str]
) -> None:
    robot = voice.gofa_copy(parser=True)
    long = "make a cheese sandwich" + " please" * 45
    assert main(scripted_voice(robot, "call this the classic: bread, meat, cheese, bread", long)) == 0
    learned, cut = timeless(capsys.readouterr().out).split("── ")[1:3]
    assert learned.endswith(
        "(named 'the_classic')\n"
        "route: parser · interpreted in N · N in all\n"
        "plan: assembly_fixture: bread, meat, cheese, bread\n"
        "executed 36 of 36 primitive(s)\n"
        "memory: Saved 'the_classic' (4 steps): say 'the classic' to do it again.\n"
    )
    assert "plan: assembly_fixture: bread, cheese, bread · go_home()\nexecuted 28 of 28 primitive(s)\n" in cut
    assert "note: Your command was 337 characters long; only the first 295 were used.\n" in cut


def test_a_creative_command_is_summed_up_by_its_brief_not_the_models_words() -> None:
    report = CommandReport(
        command="surprise me",
        status="done",
        message="executed 28 primitive(s) on the arm",
        route="llm",
        interpret_s=13.6,
        total_s=28.9,
        result={"interpretation": "I got the wrong thing", "is_creative": True},
        plan=None,
        notice=None,
        dispatched=["gripper_set(state=open)"],
        executed=1,
        memory=None,
        active_zone="assembly_left",
        creative_brief="single_short \u00d7 random_ordered",
        scene=None,
    )
    assert summary(report).splitlines()[:2] == [
        "understood: something creative, built to the brief single_short \u00d7 random_ordered",
        "route: llm · interpreted in 13.6 s · 28.9 s in all",
    ]
