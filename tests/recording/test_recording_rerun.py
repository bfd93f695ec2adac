"""Deterministic re-runs: identical runs confirmed, and the first divergent tick found with why."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from treebrain.cli import main
from treebrain.errors import InputError
from treebrain.recording import Recording, rerun

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "config/robots/demo_bot.yaml"

WAIT = """
version: 1
root:
  type: sequence
  name: root
  memory: true
  children:
    - {type: wait, name: pause, params: {seconds: 0.3}}
    - {type: succeed, name: done}
"""

SENSOR = """
version: 1
blackboard:
  /obstacle: {type: bool, initial: false}
root:
  type: selector
  name: root
  memory: false
  children:
    - {type: check_blackboard, name: blocked, params: {condition: "/obstacle == true"}}
    - {type: running, name: drive}
"""

DRIVE = """
version: 1
root: {type: test.drive, name: base, params: {speed: 0.5}}
"""

LLM_ROBOT = """
robot: planner_bot
tree: plan.yaml
llm:
  default: quick
  profiles:
    quick:
      provider: scripted
      latency_s: 0.25
      responses: ['{"route": ["hall", "kitchen"]}', '{"route": ["hall"]}']
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
        prompt_text: "Plan a route to {{ goal }}."
        schema: {type: object, properties: {route: {type: array}}, required: [route]}
        timeout_s: 5.0
      inputs: {goal: /goal}
      outputs: {result: /plan}
    - type: llm.generate
      name: replan
      params:
        prompt_text: "Shorter, please."
        schema: {type: object, properties: {route: {type: array}}, required: [route]}
      outputs: {result: /plan}
    - {type: running, name: follow}
"""


def test_an_unchanged_tree_re_runs_identically(write, recorded, tmp_path):
    run = recorded(write("t.yaml", WAIT), tmp_path / "run.sqlite", 10)
    report = rerun(run.path)
    assert report.identical
    assert (report.ticks_recorded, report.ticks_run) == (4, 4)
    assert report.summary() == "identical: 4 of 4 ticks, 0 LLM calls replayed, 0 inputs re-applied"


def test_a_changed_wait_diverges_on_the_first_tick_it_changes(write, recorded, tmp_path):
    source = write("t.yaml", WAIT)
    run = recorded(source, tmp_path / "run.sqlite", 10)
    source.write_text(source.read_text().replace("seconds: 0.3", "seconds: 0.2"), encoding="utf-8")
    report = rerun(run.path)
    assert report.divergence is not None
    assert report.divergence.tick == 3
    assert report.divergence.time_s == pytest.approx(0.2)
    assert report.divergence.reasons == [
        "root: recorded RUNNING, re-run SUCCESS",
        "root/pause: recorded RUNNING, re-run SUCCESS",
        "root/done: recorded not ticked, re-run SUCCESS",
    ]
    assert report.changed_files == [str(source.resolve())]
    assert report.summary().splitlines()[1] == "diverged at tick 3 (t=+0.200 s):"


def test_outside_inputs_are_applied_again_on_their_tick(write, recorded, tmp_path):
    def sensor(number, tree):
        if number == 4:
            tree.blackboard.set("/obstacle", True, "sensor:lidar")

    run = recorded(write("t.yaml", SENSOR), tmp_path / "run.sqlite", 10, before_tick=sensor)
    with Recording(run.path) as recording:
        assert recording.last_tick == 4
        assert recording.writes_at(4) == [["/obstacle", "sensor:lidar", True]]
    report = rerun(run.path)
    assert report.identical, report.summary()
    assert report.inputs_applied == 2  # the initial value and the sensor's write


def test_actuator_commands_are_compared(write, recorded, registry, tmp_path):
    source = write("t.yaml", DRIVE)
    run = recorded(source, tmp_path / "run.sqlite", 3, registry=registry)
    assert rerun(run.path, registry=registry).identical
    source.write_text(DRIVE.replace("0.5", "0.6"), encoding="utf-8")
    report = rerun(run.path, registry=registry)
    assert report.divergence is not None and report.divergence.tick == 1
    assert report.divergence.reasons == [
        'actuator commands differ: recorded [["base",{"command":"drive","speed":0.5}]], '
        're-run [["base",{"command":"drive","speed":0.6}]]'
    ]


def _let_workers_catch_up(number, tree):
    """The scripted model answers on a worker thread once the fake clock passes its latency."""
    time.sleep(0.01)


def test_llm_answers_come_back_from_the_recording_on_their_ticks(write, recorded, tmp_path):
    write("plan.yaml", LLM_TREE)
    robot = write("robot.yaml", LLM_ROBOT)
    run = recorded(robot, tmp_path / "run.sqlite", 40, before_tick=_let_workers_catch_up)
    with Recording(run.path) as recording:
        starts = [
            (event.tick, event.kind, event.node_path) for event in recording.events(kinds=("llm_start",))
        ]
        assert [start[2] for start in starts] == ["root/plan", "root/replan"]
        assert starts[0][0] == 1
        calls = recording.events(kinds=("llm_call",))
        assert [call.data["response"]["parsed"] for call in calls] == [
            {"route": ["hall", "kitchen"]},
            {"route": ["hall"]},
        ]
        assert recording.frame(recording.last_tick or 0).values["/plan"] == {"route": ["hall"]}
    report = rerun(run.path)
    assert report.identical, report.summary()
    assert report.llm_calls_replayed == 2


def test_a_changed_prompt_is_a_divergence_with_the_difference(write, recorded, tmp_path):
    tree = write("plan.yaml", LLM_TREE)
    robot = write("robot.yaml", LLM_ROBOT)
    run = recorded(robot, tmp_path / "run.sqlite", 3)
    tree.write_text(LLM_TREE.replace("Plan a route to", "Find a way to"), encoding="utf-8")
    report = rerun(run.path)
    assert report.divergence is not None and report.divergence.tick == 1
    (reason,) = report.divergence.reasons
    assert reason == (
        "root/plan sent a different LLM request (recorded -> now: messages[0].content: "
        '"Plan a route to the kitchen." -> "Find a way to the kitchen.")'
    )


def test_a_changed_structure_is_reported_before_ticking(write, recorded, tmp_path):
    source = write("t.yaml", WAIT)
    run = recorded(source, tmp_path / "run.sqlite", 10)
    source.write_text(WAIT.replace("name: done", "name: finished"), encoding="utf-8")
    report = rerun(run.path)
    assert report.divergence is not None
    assert report.divergence.tick == 0
    assert report.divergence.reasons == [
        "the tree's structure changed:",
        "root/done: removed from the tree",
        "root/finished: new in the tree",
    ]


def test_cli_rerun_exit_codes(write, recorded, tmp_path, capsys):
    source = write("t.yaml", WAIT)
    run = recorded(source, tmp_path / "run.sqlite", 10)
    assert main(["replay", str(run.path), "--rerun"]) == 0
    assert capsys.readouterr().out == "identical: 4 of 4 ticks, 0 LLM calls replayed, 0 inputs re-applied\n"
    source.write_text(WAIT.replace("0.3", "0.5"), encoding="utf-8")
    assert main(["replay", str(run.path), "--rerun"]) == 1
    out = capsys.readouterr().out
    assert "diverged at tick 4 (t=+0.300 s):" in out
    assert "  root/pause: recorded SUCCESS, re-run RUNNING" in out
    assert main(["replay", str(tmp_path / "missing.sqlite"), "--rerun"]) == 2
    assert "missing.sqlite: no such recording" in capsys.readouterr().err


def test_a_recording_whose_tree_no_longer_loads_cannot_be_re_run(write, recorded, tmp_path):
    source = write("t.yaml", WAIT)
    run = recorded(source, tmp_path / "run.sqlite", 10)
    source.write_text(WAIT.replace("type: wait", "type: wiat"), encoding="utf-8")
    with pytest.raises(InputError, match="unknown node type 'wiat'"):
        rerun(run.path)


def test_cli_run_records_the_demo_and_it_re_runs_identically(tmp_path, capsys):
    path = tmp_path / "demo.sqlite"
    assert main(["run", str(DEMO), "--hz", "100", "--quiet", "--record", str(path)]) == 0
    assert f"recording: {path}" in capsys.readouterr().err
    with Recording(path) as recording:
        assert recording.finished and recording.final_status == "SUCCESS"
        assert recording.info.robot == "demo_bot" and recording.info.hz == 100
    assert main(["replay", str(path), "--rerun"]) == 0
    assert capsys.readouterr().out.startswith("identical: ")


def test_cli_run_records_under_runs_by_default_and_not_with_no_record(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(DEMO), "--hz", "200", "--max-ticks", "3", "--quiet"]) == 0
    (recording,) = (tmp_path / "runs").iterdir()
    assert recording.name.startswith("demo_bot-") and recording.suffix == ".sqlite"
    assert main(["run", str(DEMO), "--hz", "200", "--max-ticks", "3", "--quiet", "--no-record"]) == 0
    assert len(list((tmp_path / "runs").iterdir())) == 1


def test_cli_run_refuses_a_non_positive_size_cap(capsys):
    assert main(["run", str(DEMO), "--quiet", "--record-max-mb", "0"]) == 2
    assert capsys.readouterr().err.startswith("<command line>: --record-max-mb must be positive, got 0")


def test_a_real_time_run_with_an_llm_call_in_flight_re_runs_identically(tmp_path, capsys):
    robot = REPO / "config/robots/slow_llm_bot.yaml"
    path = tmp_path / "slow.sqlite"
    assert main(["run", str(robot), "--hz", "20", "--quiet", "--record", str(path)]) == 0
    with Recording(path) as recording:
        (call,) = recording.events(kinds=("llm_call",))
        assert call.node_path == "root/plan" and call.data["response"]["parsed"] == {"ok": True}
    report = rerun(path)
    assert report.identical, report.summary()
    assert report.llm_calls_replayed == 1
