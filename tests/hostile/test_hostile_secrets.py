"""An API key never leaves the process: a provider whose error text echoes the configured key (as some
servers and SDKs do) leaves no trace of it in the recording, on stdout, on stderr or in the logs --
nor of anything shaped like a key (``sk-...``, ``AIza...``, bearer tokens)."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.conftest import WriteFile
from treebrain.cli import main
from treebrain.secrets import REDACTED, redact, redact_data, register_secret

KEY = "sk-test-hostile-0123456789abcdefXYZ"
OTHER_SHAPES = [
    "sk-proj-Another0123456789abcdef",
    "AIzaSyD-hostile0123456789abcdefghijklm",
    "Bearer eyJhbGciOiJIUzI1NiJ9.payload",
]


class _EchoKey(BaseHTTPRequestHandler):
    """An OpenAI-compatible server that refuses the key and echoes it, and other key shapes, back."""

    def do_POST(self) -> None:
        sent = self.headers.get("Authorization", "")
        body = json.dumps(
            {
                "error": {
                    "message": f"Incorrect API key provided: {sent.removeprefix('Bearer ')}; "
                    f"also seen: {', '.join(OTHER_SHAPES)}",
                    "type": "invalid_request_error",
                }
            }
        ).encode()
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""


@pytest.fixture
def echo_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _EchoKey)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("display", [["--quiet"], []], ids=["quiet", "live display"])
def test_a_key_echoed_by_the_provider_is_in_no_output(
    display: list[str],
    write: WriteFile,
    echo_server: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("TB_HOSTILE_KEY", KEY)
    write(
        "tree.yaml",
        """
        version: 1
        blackboard: {/answer: any, /error: str, /raw: str}
        root:
          type: llm.generate
          name: ask
          params: {prompt_text: "say ok", retry: {max_attempts: 1}}
          outputs: {result: /answer, error: /error, raw: /raw}
        """,
    )
    robot = write(
        "robot.yaml",
        f"""
        robot: leaky
        tree: tree.yaml
        llm:
          default: gpt
          profiles:
            gpt: {{provider: openai, model: gpt-test, base_url: "{echo_server}", api_key_env: TB_HOSTILE_KEY}}
        """,
    )
    recording = tmp_path / "run.sqlite"
    caplog.set_level(logging.DEBUG)
    code = main(
        ["run", str(robot), "--record", str(recording), "--hz", "50", "--max-ticks", "200", "--quiet"]
    )
    printed = capsys.readouterr()
    logged = "\n".join(record.getMessage() for record in caplog.records)
    stored = recording.read_bytes()
    assert code == 1  # the tree failed: the key was refused
    leaks = {
        secret: [
            where
            for where, text in (("stdout", printed.out), ("stderr", printed.err), ("logs", logged))
            if secret in text
        ]
        + (["recording"] if secret.encode() in stored else [])
        for secret in [KEY, *OTHER_SHAPES]
    }
    assert leaks == {secret: [] for secret in leaks}
    assert REDACTED.encode() in stored


def test_one_redaction_for_text_and_data(monkeypatch: pytest.MonkeyPatch) -> None:
    register_secret("my-configured-key-12345")
    assert redact("key my-configured-key-12345 refused") == f"key {REDACTED} refused"
    assert redact("Authorization: Bearer abc.def.ghi-123") == f"Authorization: Bearer {REDACTED}"
    assert redact("sk-ant-api03-abcdefghijklmnop and AIzaSyA0123456789abcdefghij_klmnopqrst") == (
        f"{REDACTED} and {REDACTED}"
    )
    assert redact("a sketch of skill and risk-free text") == "a sketch of skill and risk-free text"
    assert redact_data({"api_key": "x", "nested": ["sk-0123456789abcdefghij"], "n": 1}) == {
        "api_key": REDACTED,
        "nested": [REDACTED],
        "n": 1,
    }
