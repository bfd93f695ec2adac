"""The runner (rate, stats, halting on Ctrl-C), the CLI commands, rendering and plugins."""

from __future__ import annotations

import json
import re
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace

import pytest
from py_trees.common import Status

from treebrain.behaviours import BehaviourRegistry, Leaf, default_registry, register_builtin
from treebrain.behaviours.registry import ENTRY_POINT_GROUP
from treebrain.cli import main
from treebrain.cli.run import stats_line
from treebrain.clock import FakeClock
from treebrain.testing import TreeHarness
from treebrain.trees import load_tree
from treebrain.trees.runner import Runner, RunStats, percentile

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "config/robots/demo_bot.yaml"

WAITING = """
version: 1
root:
  type: sequence
  name: root
  memory: true
  children:
    - {type: wait, name: pause, params: {seconds: 1.0}}
    - {type: succeed, name: done}
"""


def test_runner_ticks_at_the_rate_on_the_clock_until_success():
    harness = TreeHarness.from_yaml(WAITING)
    stats = Runner(harness.tree, hz=10).run()
    assert stats.ticks == 11
    assert stats.final_status == "SUCCESS"
    assert abs(harness.clock.now() - 1.0) < 1e-9
    assert stats.to_json()["ticks"] == 11


def test_runner_stops_at_max_ticks_and_halts_running_nodes():
    harness = TreeHarness.from_yaml(WAITING)
    stats = Runner(harness.tree, hz=10, max_ticks=3).run()
    assert (stats.ticks, stats.final_status) == (3, "RUNNING")
    harness.assert_statuses({"root": "INVALID", "root/pause": "INVALID"})


def test_ctrl_c_halts_every_running_node():
    harness = TreeHarness.from_yaml(WAITING)

    def interrupt(tree, stats):
        if stats.ticks == 2:
            raise KeyboardInterrupt

    stats = Runner(harness.tree, hz=10, on_tick=interrupt).run()
    assert stats.interrupted and stats.ticks == 2
    harness.assert_statuses({"root/pause": "INVALID"})


def test_overruns_count_ticks_longer_than_the_period():
    harness = TreeHarness.from_yaml(WAITING)
    times = iter([0.0, 0.05, 1.0, 1.2] + [2.0, 2.001] * 20)
    stats = Runner(harness.tree, hz=10, max_ticks=3, timer=lambda: next(times)).run()
    assert stats.overruns == 1
    assert stats.tick_seconds[:2] == pytest.approx([0.05, 0.2])


def test_percentile_is_nearest_rank():
    assert percentile([], 0.5) == 0.0
    assert percentile([3.0, 1.0, 2.0], 0.5) == 2.0
    assert percentile([float(i) for i in range(1, 101)], 0.99) == 99.0


def test_demo_robot_runs_to_success_on_a_fake_clock():
    tree = load_tree(DEMO, clock=FakeClock())
    stats = Runner(tree, hz=20).run()
    assert stats.final_status == "SUCCESS"
    assert tree.blackboard.get("/battery/level") == 1.0
    assert tree.blackboard.get("/status/message") == "charging"


def test_cli_run_writes_stats_json(tmp_path, capsys):
    stats_path = tmp_path / "s.json"
    code = main(
        ["run", str(DEMO), "--hz", "200", "--max-ticks", "5", "--quiet", "--stats-json", str(stats_path)]
    )
    assert code == 0
    stats = json.loads(stats_path.read_text())
    assert set(stats) >= {"ticks", "final_status", "tick_ms_p50", "tick_ms_p99", "overruns"}
    assert stats["ticks"] == 5 and stats["final_status"] == "RUNNING"


def test_cli_run_ends_with_a_line_for_a_person_or_a_json_line_for_a_program(capsys):
    arguments = ["run", str(DEMO), "--hz", "200", "--max-ticks", "5"]
    assert main([*arguments, "--quiet"]) == 0
    assert re.fullmatch(
        r"RUNNING · ticks 5 · tick p50 \d+\.\d{3} ms, p99 \d+\.\d{3} ms · overruns \d+\n",
        capsys.readouterr().out,
    )
    assert main([*arguments, "--json"]) == 0  # no tree drawn either: stdout is the JSON line only
    stats = json.loads(capsys.readouterr().out)
    assert set(stats) == {"ticks", "final_status", "tick_ms_p50", "tick_ms_p99", "overruns", "interrupted"}
    assert (stats["ticks"], stats["final_status"], stats["interrupted"]) == (5, "RUNNING", False)


def test_an_interrupted_run_says_so_beside_its_last_status():
    stats = RunStats(ticks=3, final_status="INVALID", tick_seconds=[0.001, 0.002, 0.004], interrupted=True)
    assert (
        stats_line(stats) == "INVALID, interrupted · ticks 3 · tick p50 2.000 ms, p99 4.000 ms · overruns 0"
    )


def test_cli_run_set_overrides_a_blackboard_value(tmp_path):
    stats_path = tmp_path / "s.json"
    main(
        [
            "run",
            str(DEMO),
            "--hz",
            "1000",
            "--quiet",
            "--set",
            "/battery/level=0.1",
            "--stats-json",
            str(stats_path),
        ]
    )
    assert json.loads(stats_path.read_text())["final_status"] == "SUCCESS"
    assert main(["run", str(DEMO), "--quiet", "--set", "/battery/level=full"]) == 2


def test_cli_show_formats(capsys, tmp_path):
    assert main(["show", str(DEMO)]) == 0
    outline = capsys.readouterr().out
    assert outline.splitlines()[0] == "→ root"
    assert "│       ├── [guard] low_battery" in outline
    assert main(["show", str(DEMO), "--format", "dot"]) == 0
    dot = capsys.readouterr().out
    assert dot.startswith("digraph tree {") and '"root" -> "root/patrol_rounds";' in dot
    svg_path = tmp_path / "tree.svg"
    assert main(["show", str(DEMO), "--format", "svg", "-o", str(svg_path)]) == 0
    svg = svg_path.read_text()
    assert svg.startswith("<svg") and svg.count("<rect") == 18


def test_cli_list_behaviours_json_has_ports_and_param_schemas(capsys):
    assert main(["list-behaviours", "--json"]) == 0
    entries = {entry["name"]: entry for entry in json.loads(capsys.readouterr().out)}
    assert entries["wait"]["params"]["properties"]["seconds"]["type"] == "number"
    assert entries["add"]["inputs"]["value"]["type"] == "float"
    assert entries["add"]["outputs"]["result"]["schema"] == {"type": "number"}
    assert entries["retry"]["kind"] == "decorator"
    assert entries["sequence"]["kind"] == "composite"
    assert {entries[name]["group"] for name in ("wait", "sequence", "rule.validate")} == {"core"}
    assert entries["llm.generate"]["group"] == "llm"
    assert entries["voice.compile"]["group"] == "voice"
    assert entries["arm.execute"]["group"] == "arm"


def test_cli_list_behaviours_groups_the_leaves_by_domain(capsys):
    assert main(["list-behaviours"]) == 0
    lines = capsys.readouterr().out.splitlines()
    headers = [line for line in lines if not line.startswith(" ")]
    assert headers == ["core:", "arm:", "kg:", "llm:", "manipulation:", "navigation:", "tdl:", "voice:"]
    voice = lines[lines.index("voice:") + 1 :]
    assert voice and all(line.split()[0].startswith("voice.") for line in voice)


class Beep(Leaf):
    """A plugin's leaf."""

    type_name = "plugin.beep"

    def update(self) -> Status:
        return Status.SUCCESS


def test_plugins_register_through_entry_points():
    def register(registry: BehaviourRegistry) -> None:
        registry.register(Beep)

    def broken(registry: BehaviourRegistry) -> None:
        raise RuntimeError("missing dependency")

    good = SimpleNamespace(name="beeper", value="beeper:register", load=lambda: register)
    bad = SimpleNamespace(name="broken", value="broken:register", load=lambda: broken)
    registry = BehaviourRegistry()
    register_builtin(registry)
    problems = registry.load_entry_points([good, bad])
    assert registry.get("plugin.beep") is Beep
    assert problems == ["plugin 'broken' (broken:register) failed to register: missing dependency"]
    harness = TreeHarness.from_yaml("version: 1\nroot: {type: plugin.beep}\n", registry=registry)
    assert harness.tick() == Status.SUCCESS
    assert registry.groups()["beeper"] == ["plugin.beep"]


def test_a_plugin_that_fails_half_way_leaves_nothing_registered():
    def half(registry: BehaviourRegistry) -> None:
        registry.register(Beep)
        raise RuntimeError("second leaf failed to import")

    registry = BehaviourRegistry()
    problems = registry.load_entry_points(
        [SimpleNamespace(name="half", value="half:register", load=lambda: half)]
    )
    assert problems == ["plugin 'half' (half:register) failed to register: second leaf failed to import"]
    assert registry.get("plugin.beep") is None and registry.groups() == {}


def test_installed_packages_are_read_only_when_a_group_is_looked_for(monkeypatch, tmp_path):
    """Reading every installed package's metadata is a tenth of `treebrain validate`'s time: a
    robot file of the framework's own sections and core leaves never needs it; an unknown section
    or leaf still finds an installed group."""
    reads: list[str] = []

    def counted(**selection: str) -> list[SimpleNamespace]:
        reads.append(selection["group"])
        beeper = SimpleNamespace(
            name="plugin", value="beeper:register", load=lambda: lambda r: r.register(Beep)
        )
        return [beeper]

    monkeypatch.setattr(metadata, "entry_points", counted)
    tree = tmp_path / "tree.yaml"
    tree.write_text("version: 1\nroot: {type: wait, params: {seconds: 0.1}}\n")
    robot = tmp_path / "robot.yaml"
    robot.write_text("robot: r\ntree: tree.yaml\nlimits: {}\n")
    load_tree(robot, registry=default_registry())
    assert reads == []
    registry = default_registry()
    assert registry.get("plugin.beep") is Beep and reads == [ENTRY_POINT_GROUP]
    assert "plugin" in default_registry().group_names() and len(reads) == 2


def test_the_pipelines_leaves_come_through_the_same_entry_points_as_a_plugin():
    """No shortcut for our own domains: without the entry points, only the framework's leaves exist."""
    framework = BehaviourRegistry()
    register_builtin(framework)
    assert set(framework.groups()) == {"core", "llm"}
    installed = {entry.name: entry.value for entry in metadata.entry_points(group=ENTRY_POINT_GROUP)}
    assert {name: installed.get(name) for name in ("arm", "kg", "tdl", "voice")} == {
        domain: f"treebrain.behaviours.{domain}:register" for domain in ("arm", "kg", "tdl", "voice")
    }
    everything = default_registry()
    for domain in ("arm", "kg", "tdl", "voice"):
        names = everything.groups()[domain]
        assert names and all(name.startswith(f"{domain}.") for name in names), domain
