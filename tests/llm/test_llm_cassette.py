"""Record then replay: round trip, order of repeated requests, loud misses with the closest request."""

from __future__ import annotations

import json

import pytest

from treebrain.errors import InputError
from treebrain.llm.errors import LLMError, LLMErrorKind
from treebrain.llm.providers.cassette import RecordingProvider, ReplayProvider, differences
from treebrain.llm.providers.scripted import ScriptedEntry, ScriptedProvider
from treebrain.llm.types import LLMRequest, Message, request_hash


def _ask(text: str) -> LLMRequest:
    return LLMRequest(
        system="You steer a robot.",
        messages=[Message(role="user", content=text)],
        json_schema={"type": "object"},
    )


def test_record_then_replay_round_trip(tmp_path, clock, make_context):
    cassette = tmp_path / "cassettes" / "voice.jsonl"
    inner = ScriptedProvider([ScriptedEntry(text='{"go": 1}'), ScriptedEntry(text='{"go": 2}')], model="m1")
    recorder = RecordingProvider(inner, cassette)
    first = recorder.complete(_ask("forward"), make_context(clock, node_path="root/ask"))
    second = recorder.complete(_ask("forward"), make_context(clock, node_path="root/ask"))
    lines = cassette.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2
    record = json.loads(lines[0])
    assert record["node_path"] == "root/ask"
    assert record["request_hash"] == request_hash(_ask("forward"))
    assert record["request"]["messages"][0]["content"] == "forward"
    assert record["response"]["parsed"] == {"go": 1}

    replay = ReplayProvider(cassette)
    assert replay.model == "m1"
    assert replay.complete(_ask("forward"), make_context(clock, node_path="root/ask")) == first
    assert replay.complete(_ask("forward"), make_context(clock, node_path="root/ask")) == second
    with pytest.raises(LLMError) as used_up:
        replay.complete(_ask("forward"), make_context(clock, node_path="root/ask"))
    assert used_up.value.kind is LLMErrorKind.REPLAY_MISS
    assert used_up.value.message.endswith("all 2 recorded responses were used; re-record the cassette")


def test_a_new_recording_session_replaces_the_cassette(tmp_path, clock, make_context):
    cassette = tmp_path / "c.jsonl"
    for text in ("old", "new"):
        recorder = RecordingProvider(ScriptedProvider([ScriptedEntry(text=text)]), cassette)
        recorder.complete(_ask("x"), make_context(clock))
    assert [json.loads(line)["response"]["text"] for line in cassette.read_text().splitlines()] == ["new"]


def test_miss_shows_the_closest_recorded_request(tmp_path, clock, make_context):
    cassette = tmp_path / "c.jsonl"
    recorder = RecordingProvider(
        ScriptedProvider([ScriptedEntry(text="a"), ScriptedEntry(text="b")]), cassette
    )
    recorder.complete(_ask("turn left at the door"), make_context(clock, node_path="root/ask"))
    recorder.complete(_ask("something else entirely"), make_context(clock, node_path="root/other"))
    replay = ReplayProvider(cassette)
    with pytest.raises(LLMError) as miss:
        replay.complete(_ask("turn right at the door"), make_context(clock, node_path="root/ask"))
    digest = request_hash(_ask("turn right at the door"))[:12]
    recorded = request_hash(_ask("turn left at the door"))[:12]
    message = miss.value.message
    assert message.startswith(f"{cassette} has no unused response for node 'root/ask', request {digest}. ")
    assert f"Closest recorded request: node 'root/ask', request {recorded}, similarity 0." in message
    assert (
        'differences (recorded -> now): messages[0].content: "turn left at the door" -> "turn right at the door".'
        in message
    )


def test_replay_of_empty_cassette(tmp_path, clock, make_context):
    cassette = tmp_path / "c.jsonl"
    cassette.write_text("", encoding="utf-8")
    with pytest.raises(LLMError, match="the cassette is empty; record it first"):
        ReplayProvider(cassette).complete(_ask("x"), make_context(clock))


def test_bad_cassette_lines_are_located(tmp_path):
    cassette = tmp_path / "c.jsonl"
    cassette.write_text('{"node_path": "a"}\n\nnot json\n', encoding="utf-8")
    with pytest.raises(InputError) as caught:
        ReplayProvider(cassette)
    lines = str(caught.value).splitlines()
    assert lines[0] == f"{cassette}:1:1: bad cassette record: request_hash: Field required"
    assert lines[1].startswith(f"{cassette}:3:1: bad cassette record: record: Invalid JSON")


def test_missing_cassette():
    with pytest.raises(
        InputError, match="cannot read the cassette: No such file or directory; record it first"
    ):
        ReplayProvider("/nonexistent/c.jsonl")


def test_differences_lists_changed_added_and_removed_fields():
    assert differences({"a": 1, "b": [1, 2], "c": {}}, {"a": 2, "b": [1], "d": None}) == [
        "a: 1 -> 2",
        "b[1]: 2 -> (absent)",
        "c: {} -> (absent)",
        "d: (absent) -> null",
    ]
