"""Secrets never reach a recording: secret-looking environment values and secret-named fields."""

from __future__ import annotations

import pytest

from treebrain.recording import Recording
from treebrain.secrets import REDACTED, Redactor, secret_values

SECRET = "sk-test-0123456789abcdef"
QUOTED_SECRET = 'pa"ss\\word-42'

TREE = """
version: 1
blackboard:
  /note: {type: str, initial: "nothing yet"}
root:
  type: sequence
  name: root
  memory: true
  children:
    - {type: set_blackboard, name: leak, params: {value: "key is %s"}, outputs: {value: /note}}
    - {type: running, name: wait}
"""


def test_secret_values_come_from_secret_looking_variables_only():
    environ = {
        "ANTHROPIC_API_KEY": SECRET,
        "GITHUB_TOKEN": "ghp_abcdefgh12345",
        "DB_PASSWORD": "short",
        "HOME": "/root/very/long/path",
        "MY_SECRET": "x" * 8,
    }
    assert secret_values(environ) == [SECRET, "ghp_abcdefgh12345", "xxxxxxxx"]


def test_redactor_scrubs_values_inside_text_and_json_and_secret_named_fields():
    redactor = Redactor([SECRET, QUOTED_SECRET])
    assert redactor.text(f"Authorization: Bearer {SECRET}!") == f"Authorization: Bearer {REDACTED}!"
    assert redactor.text('{"v": "pa\\"ss\\\\word-42"}') == f'{{"v": "{REDACTED}"}}'
    data = {"api_key": "anything", "headers": {"Authorization": "Bearer x"}, "text": [f"a {SECRET}"], "n": 3}
    assert redactor.data(data) == {
        "api_key": REDACTED,
        "headers": {"Authorization": REDACTED},
        "text": [f"a {REDACTED}"],
        "n": 3,
    }
    assert redactor.data({"input_tokens": 12, "tokens": 3}) == {"input_tokens": 12, "tokens": 3}
    assert not Redactor([], shapes=False).active
    assert Redactor([], shapes=False).text(SECRET) == SECRET
    assert Redactor([]).text(SECRET) == REDACTED  # shaped like a key


def test_no_secret_in_any_byte_of_the_recording(write, recorded, tmp_path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    source = write("t.yaml", TREE.replace("%s", SECRET))

    def leak(number, tree):
        tree.context.emit(
            "llm_call",
            "root/leak",
            {"request": {"system": f"use {SECRET}"}, "response": {"text": "ok"}, "api_key": SECRET},
        )

    run = recorded(source, tmp_path / "run.sqlite", 2, before_tick=leak)
    content = run.path.read_bytes()
    assert SECRET.encode() not in content
    assert REDACTED.encode() in content
    with Recording(run.path) as recording:
        assert recording.frame(1).values["/note"] == f"key is {REDACTED}"
        event = recording.events()[0]
        assert event.data == {
            "request": {"system": f"use {REDACTED}"},
            "response": {"text": "ok"},
            "api_key": REDACTED,
        }
        node = recording.definition.by_path("root/leak")
        assert node is not None and node.params == {"value": f"key is {REDACTED}"}
