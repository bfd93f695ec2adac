"""Recording a run: statuses captured during the tick, changed-only rows, blackboard diffs, events,
the size cap, lost ticks, and reading any tick back."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import py_trees
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from py_trees.common import Status

from treebrain.behaviours.context import TreeEvent
from treebrain.blackboard import Access
from treebrain.clock import FakeClock
from treebrain.errors import InputError
from treebrain.recording import Recording, RecordingWriter, TickCapture, TickClock, TickRecord
from treebrain.recording.capture import UNSET
from treebrain.recording.definition import NodeInfo, TreeDefinition
from treebrain.recording.rerun import check_replayable
from treebrain.recording.schema import BaseState, RunInfo
from treebrain.secrets import Redactor
from treebrain.trees import load_tree

COUNTER = """
version: 1
blackboard:
  /count: {type: float, initial: 0}
  /mode: {type: str, initial: idle}
root:
  type: sequence
  name: root
  memory: false
  children:
    - {type: add, name: step, params: {amount: 1}, inputs: {value: /count}, outputs: {result: /count}}
    - {type: set_blackboard, name: mode, params: {value: busy}, outputs: {value: /mode}}
    - {type: running, name: work}
"""

STEADY = """
version: 1
blackboard:
  /mode: {type: str, initial: idle}
root:
  type: sequence
  name: root
  memory: false
  children:
    - {type: set_blackboard, name: mode, params: {value: busy}, outputs: {value: /mode}}
    - {type: check_blackboard, name: check, params: {condition: "/mode == busy"}}
    - {type: running, name: work}
"""

HALTED_IN_THE_SAME_TICK = """
version: 1
root:
  type: parallel
  name: root
  policy: success_on_all
  memory: false
  children:
    - {type: running, name: busy}
    - {type: fail, name: broken}
"""


def _rows(path: Path) -> list[Any]:
    with sqlite3.connect(path) as connection:
        return connection.execute("SELECT tick, nodes, writes, activity FROM ticks ORDER BY tick").fetchall()


def test_statuses_are_those_seen_during_the_tick_not_after_it(write):
    tree = load_tree(write("t.yaml", HALTED_IN_THE_SAME_TICK), clock=FakeClock())
    records: list[TickRecord] = []
    TickCapture(tree, records.append).attach()
    tree.tick()
    # py_trees has already reset the halted child; the capture saw it RUNNING when it was ticked.
    assert tree.nodes["root/busy"].status.name == "INVALID"
    assert [(index, status) for index, status, _ in records[0].visited] == [
        (1, "RUNNING"),
        (2, "FAILURE"),
        (0, "FAILURE"),
    ]
    assert records[0].root_status == "FAILURE"


def test_rows_store_statuses_and_activity_only_when_they_change(write, recorded, tmp_path):
    run = recorded(write("t.yaml", STEADY), tmp_path / "run.sqlite", 4)
    rows = _rows(run.path)
    assert [row[0] for row in rows] == [1, 2, 3, 4]
    assert json.loads(rows[0][1]) == [[1, "SUCCESS"], [2, "SUCCESS"], [3, "RUNNING"], [0, "RUNNING"]]
    assert [row[1] for row in rows[1:]] == [None, None, None]
    assert json.loads(rows[0][3]) == [["w", "/mode", "root/mode"], ["r", "/mode", "root/check"]]
    assert [row[3] for row in rows[1:]] == [None, None, None]
    assert json.loads(rows[0][2]) == [["/mode", "root/mode", "busy"]]
    assert [row[2] for row in rows[1:]] == [None, None, None]


def test_a_changed_feedback_message_is_stored_as_a_patch(write, recorded, tmp_path):
    run = recorded(write("t.yaml", COUNTER), tmp_path / "run.sqlite", 3)
    first, second, third = (json.loads(row[1]) for row in _rows(run.path))
    assert first[0] == [1, "SUCCESS", "1"]
    assert second == {"patch": [[1, "SUCCESS", "2"]]}
    assert third == {"patch": [[1, "SUCCESS", "3"]]}
    with Recording(run.path) as recording:
        assert recording.visited_at(3) == [
            (1, "SUCCESS", "3"),
            (2, "SUCCESS", ""),
            (3, "RUNNING", ""),
            (0, "RUNNING", ""),
        ]


def test_long_runs_store_a_full_node_list_every_hundred_rows(write, recorded, tmp_path):
    run = recorded(write("t.yaml", COUNTER), tmp_path / "run.sqlite", 250)
    full = [row[0] for row in _rows(run.path) if row[1].startswith("[")]
    assert full == [1, 102, 203]
    with Recording(run.path) as recording:
        assert recording.visited_at(250)[0] == (1, "SUCCESS", "250")
        assert recording.visited_at(150)[0] == (1, "SUCCESS", "150")


def test_writes_hold_changes_only(write, recorded, tmp_path):
    run = recorded(write("t.yaml", COUNTER), tmp_path / "run.sqlite", 3)
    rows = _rows(run.path)
    assert json.loads(rows[0][2]) == [["/count", "root/step", 1], ["/mode", "root/mode", "busy"]]
    # /mode is written again every tick with the same value: not a change.
    assert json.loads(rows[1][2]) == [["/count", "root/step", 2]]


def test_every_tick_can_be_read_back_with_its_blackboard(write, recorded, tmp_path):
    run = recorded(write("t.yaml", COUNTER), tmp_path / "run.sqlite", 450)
    with Recording(run.path) as recording:
        assert (recording.first_tick, recording.last_tick) == (1, 450)
        assert recording.finished and recording.final_status == "RUNNING"
        for tick in (1, 2, 199, 200, 201, 399, 401, 450):
            frame = recording.frame(tick)
            assert frame.values == run.snapshots[tick - 1]
            assert frame.writers["/count"] == "root/step"
        assert recording.frame(0).tick == 1
        assert recording.frame(10_000).tick == 450
        assert recording.base.values == {"/count": 0, "/mode": "idle"}
        assert recording.base.writers == {"/count": "<initial>", "/mode": "<initial>"}


def test_every_write_is_captured_in_order_with_json_values(write):
    tree = load_tree(write("t.yaml", COUNTER), clock=FakeClock())
    records: list[TickRecord] = []
    TickCapture(tree, records.append).attach()
    tree.blackboard.set("/mode", "manual", "sensor:switch")
    tree.blackboard.set("/mode", "manual", "sensor:switch")
    tree.tick()
    assert records[0].writes == [
        ("/mode", "sensor:switch", "manual"),
        ("/mode", "sensor:switch", "manual"),
        ("/count", "root/step", 1.0),
        ("/mode", "root/mode", "busy"),
    ]
    tree.blackboard.unset("/mode", "sensor:switch")
    tree.tick()
    assert records[1].writes[0] == ("/mode", "sensor:switch", UNSET)


def test_outside_writes_are_stored_even_when_the_value_is_the_same(write, recorded, tmp_path):
    def sensor(number, tree):
        tree.blackboard.set("/mode", "busy", "sensor:switch")

    run = recorded(write("t.yaml", COUNTER), tmp_path / "run.sqlite", 2, before_tick=sensor)
    first, second = (json.loads(row[2]) for row in _rows(run.path))
    assert first == [["/mode", "sensor:switch", "busy"], ["/count", "root/step", 1.0]]
    assert second == [["/mode", "sensor:switch", "busy"], ["/count", "root/step", 2.0]]


def test_events_are_recorded_on_the_tick_they_happen(write, recorded, tmp_path):
    def emit(number, tree):
        if number == 2:
            tree.context.emit("notification", "root/work", {"message": "battery low"})

    run = recorded(write("t.yaml", COUNTER), tmp_path / "run.sqlite", 3, before_tick=emit)
    with Recording(run.path) as recording:
        (event,) = recording.events()
        assert (event.tick, event.kind, event.node_path, event.data) == (
            2,
            "notification",
            "root/work",
            {"message": "battery low"},
        )
        assert recording.events(tick=1) == []
        assert recording.event_ticks(("notification",)) == [(2, "notification")]


def test_the_tree_definition_is_stored_with_params_ports_and_sources(write, recorded, tmp_path):
    source = write("t.yaml", COUNTER)
    run = recorded(source, tmp_path / "run.sqlite", 1)
    with Recording(run.path) as recording:
        step = recording.definition.by_path("root/step")
        assert step is not None
        assert (step.index, step.type_name, step.kind, step.parent) == (1, "add", "leaf", 0)
        assert step.params == {"amount": 1.0, "minimum": None, "maximum": None}
        assert (step.inputs, step.outputs) == ({"value": "/count"}, {"result": "/count"})
        assert (step.file, step.line) == (str(source), 10)
        assert recording.definition.root.children == (1, 2, 3)
        assert recording.definition.key_types == {"/count": "float", "/mode": "str"}
        assert recording.info.source == str(source.resolve())
        assert list(recording.info.files) == [str(source.resolve())]


def test_a_finished_recording_is_one_file(write, recorded, tmp_path):
    run = recorded(write("t.yaml", COUNTER), tmp_path / "run.sqlite", 3)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["run.sqlite", "t.yaml"]
    with sqlite3.connect(run.path) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone() == ("delete",)


def test_size_cap_drops_oldest_ticks_but_keeps_llm_calls_and_the_definition(write, recorded, tmp_path):
    def emit(number, tree):
        if number in (1, 2):
            tree.context.emit("llm_call", "root/work", {"profile": "p", "request": {"n": number}})
            tree.context.emit("actuator", "root/work", {"speed": number})

    run = recorded(
        write("t.yaml", COUNTER), tmp_path / "run.sqlite", 3000, before_tick=emit, max_bytes=20_000
    )
    with Recording(run.path) as recording:
        assert recording.base.tick > 0
        first = recording.first_tick
        assert first == recording.base.tick + 1
        assert recording.last_tick == 3000
        assert recording.frame(first).values == run.snapshots[first - 1]
        middle = (first + 3000) // 2
        assert recording.frame(middle).values == run.snapshots[middle - 1]
        assert recording.frame(3000).values == run.snapshots[2999]
        kinds = [(event.tick, event.kind) for event in recording.events()]
        assert kinds == [(1, "llm_call"), (2, "llm_call")]
        assert recording.definition.by_path("root/work") is not None
        with pytest.raises(InputError, match="dropped to keep the file under its size cap"):
            check_replayable(recording)
    assert run.path.stat().st_size < 100_000


_ROOT = py_trees.behaviours.Running(name="root")


def _definition() -> TreeDefinition:
    return TreeDefinition((NodeInfo(0, "root", "root", "running", "leaf", "", None, ()),), {"/x": "int"})


def _info() -> RunInfo:
    return RunInfo(robot="r", source="/nowhere.yaml", started_at="", start_time=0.0)


def _record(
    tick: int, writes: Iterable[tuple[str, str, Any]] = (), events: Iterable[TreeEvent] = ()
) -> TickRecord:
    return TickRecord(
        tick, tick * 0.1, 0.0, [_ROOT], [Status.RUNNING], [""], {id(_ROOT): 0}, list(writes), [], list(events)
    )


def test_a_full_queue_drops_ticks_and_counts_them(tmp_path):
    writer = RecordingWriter(
        tmp_path / "run.sqlite",
        _info(),
        _definition(),
        BaseState(0, [], {}, {}),
        flush_interval_s=60.0,
        queue_limit=2,
    )
    for tick in range(1, 6):
        writer.submit(_record(tick))
    writer.close()
    with Recording(tmp_path / "run.sqlite") as recording:
        assert recording.lost_ticks == 3
        assert recording.ticks() == [1, 2]
        with pytest.raises(InputError, match="3 ticks were lost"):
            check_replayable(recording)


def test_a_file_that_is_not_a_recording_is_a_located_error(tmp_path):
    with pytest.raises(InputError) as missing:
        Recording(tmp_path / "none.sqlite")
    assert str(missing.value).startswith(f"{tmp_path / 'none.sqlite'}: no such recording")
    text_file = tmp_path / "notes.sqlite"
    text_file.write_text("hello", encoding="utf-8")
    with pytest.raises(InputError, match="not a treebrain recording"):
        Recording(text_file)
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE meta (key TEXT, value TEXT)")
        connection.execute("""INSERT INTO meta VALUES ('format', '"something-else/1"')""")
    with pytest.raises(InputError, match="format 'something-else/1'"):
        Recording(other)


def test_tick_clock_stands_still_during_a_tick_for_the_ticking_thread_only():
    inner = FakeClock(5.0)
    clock = TickClock(inner)
    assert clock.begin_tick() == 5.0
    inner.advance(0.25)
    assert clock.now() == 5.0
    seen: list[float] = []
    worker = threading.Thread(target=lambda: seen.append(clock.now()))
    worker.start()
    worker.join()
    assert seen == [5.25]
    assert clock.begin_tick() == 5.0  # a second capture in the same tick sees the same time
    clock.end_tick()
    assert clock.now() == 5.25
    assert clock.begin_tick() == 5.25


_KEYS = st.sampled_from(["/a", "/b", "/c"])
_WRITERS = st.sampled_from(["root", "sensor:x", "<--set>"])
_WRITE = st.tuples(_KEYS, _WRITERS, st.one_of(st.integers(-3, 3), st.none(), st.just(UNSET)))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.lists(_WRITE, max_size=4), min_size=1, max_size=30))
def test_any_sequence_of_writes_reads_back_as_the_same_blackboard(tmp_path_factory, ticks):
    path = tmp_path_factory.mktemp("fuzz") / "run.sqlite"
    writer = RecordingWriter(
        path, _info(), _definition(), BaseState(0, [], {"/a": 0}, {"/a": "<initial>"}), redactor=Redactor([])
    )
    expected: list[dict[str, object]] = []
    values: dict[str, object] = {"/a": 0}
    for number, writes in enumerate(ticks, start=1):
        for key, _, value in writes:
            if value is UNSET:
                values.pop(key, None)
            else:
                values[key] = value
        expected.append(dict(values))
        writer.submit(_record(number, [(key, who, value) for key, who, value in writes]))
    writer.close()
    with Recording(path) as recording:
        assert [recording.frame(tick).values for tick in recording.ticks()] == expected


def test_event_data_and_activity_round_trip(tmp_path):
    writer = RecordingWriter(tmp_path / "run.sqlite", _info(), _definition(), BaseState(0, [], {}, {}))
    odd = TreeEvent("notification", "root", 0.1, {"message": "hi", "where": Path("/x"), "ids": (1, 2)})
    record = _record(1, events=[TreeEvent("actuator", "root", 0.1, {"speed": 0.5}), odd])
    record.activity = [Access("read", "/x", "root")]
    writer.submit(record)
    writer.close()
    with Recording(tmp_path / "run.sqlite") as recording:
        assert recording.frame(1).activity == [("read", "/x", "root")]
        assert [event.data for event in recording.events()] == [
            {"speed": 0.5},
            {"message": "hi", "where": "/x", "ids": [1, 2]},
        ]
        assert recording.lost_ticks == 0
