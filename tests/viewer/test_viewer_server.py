"""The viewer's HTTP server: pages, API, headers, Host checks, live updates over SSE, and the
``run --view``, ``view`` and ``replay`` commands."""

from __future__ import annotations

import http.client
import json
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from treebrain.recording import Recorder, Recording, TickClock
from treebrain.trees import load_tree
from treebrain.trees.runner import Runner
from treebrain.viewer import ViewerServer
from treebrain.viewer.server import CONTENT_SECURITY_POLICY

DEMO = Path(__file__).resolve().parents[2] / "config/robots/demo_bot.yaml"


def _get(url: str, path: str, host: str | None = None) -> tuple[int, dict[str, str], bytes]:
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
    headers = {"Host": host} if host else {}
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, dict(response.getheaders()), body


@pytest.fixture
def server(recorded_demo):
    recording = Recording(recorded_demo)
    with ViewerServer(recording) as running:
        yield running
    recording.close()


def test_pages_and_static_files_are_served_with_strict_headers(server):
    assert server.url.startswith("http://127.0.0.1:")
    status, headers, body = _get(server.url, "/")
    assert status == 200
    assert headers["Content-Type"] == "text/html; charset=utf-8"
    assert headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert b'<script src="/static/viewer.js" defer></script>' in body
    status, headers, body = _get(server.url, "/static/viewer.js")
    assert (status, headers["Content-Type"]) == (200, "text/javascript; charset=utf-8")
    for parses_html in (b"innerHTML", b"outerHTML", b"insertAdjacentHTML", b"document.write", b"eval("):
        assert parses_html not in body
    assert _get(server.url, "/static/../server.py")[0] == 404
    assert _get(server.url, "/static/secrets.txt")[0] == 404
    assert _get(server.url, "/elsewhere")[0] == 404


def test_api_answers_and_errors(server):
    status, headers, body = _get(server.url, "/api/tree")
    assert (status, headers["Content-Type"]) == (200, "application/json; charset=utf-8")
    latest = json.loads(body)
    assert latest["behaviours"]["root"]["status"] == "SUCCESS"
    first = json.loads(_get(server.url, "/api/tree?tick=1")[2])
    assert first["behaviours"]["root"]["status"] == "RUNNING"
    status, _, body = _get(server.url, "/api/tree?tick=soon")
    assert (status, json.loads(body)) == (400, {"error": "tick must be an integer, got 'soon'"})
    status, _, body = _get(server.url, "/api/node?path=root/nowhere&tick=1")
    assert (status, json.loads(body)) == (404, {"error": "no node at path 'root/nowhere'"})
    status, _, body = _get(server.url, "/api/node?path=root/report")
    assert status == 200 and json.loads(body)["status"] == "SUCCESS"
    assert json.loads(_get(server.url, "/api/definition")[2])["nodes"][0]["path"] == "root"
    assert _get(server.url, "/api/other")[0] == 404


def test_requests_for_other_host_names_are_refused(server):
    port = urlsplit(server.url).port
    assert _get(server.url, "/api/tree", host=f"localhost:{port}")[0] == 200
    status, _, body = _get(server.url, "/api/tree", host=f"attacker.example:{port}")
    assert (status, json.loads(body)) == (403, {"error": "unexpected Host header"})


def _read_events(url: str, count: int) -> list[dict[str, object]]:
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
    connection.request("GET", "/api/stream")
    response = connection.getresponse()
    assert response.getheader("Content-Type") == "text/event-stream; charset=utf-8"
    events: list[dict[str, object]] = []
    while len(events) < count:
        line = response.fp.readline().decode()
        if line.startswith("data: "):
            events.append(json.loads(line.removeprefix("data: ")))
    connection.close()
    return events


def test_live_updates_stream_while_the_tree_runs(tree_file, tmp_path):
    source = tree_file("""
        version: 1
        blackboard:
          /n: {type: int, initial: 0}
        root:
          type: sequence
          name: root
          memory: false
          children:
            - {type: increment, name: count, inputs: {value: /n}, outputs: {result: /n}}
            - {type: running, name: spin}
    """)
    tree = load_tree(source, clock=TickClock())
    path = tmp_path / "live.sqlite"
    recorder = Recorder(tree, path, hz=50)
    runner = Runner(tree, 50, 60)
    thread = threading.Thread(target=runner.run)
    thread.start()
    recording = Recording(path)
    try:
        with ViewerServer(recording, stream_hz=20) as server:
            events = _read_events(server.url, 3)
    finally:
        thread.join()
        recorder.close()
        tree.close()
        recording.close()
    ticks = [event["treebrain"]["tick"] for event in events]  # type: ignore[index]
    assert ticks == sorted(set(ticks)) and len(ticks) == 3
    counts = [event["treebrain"]["values"]["/n"] for event in events]  # type: ignore[index]
    assert counts == ticks


def test_run_view_serves_the_run_and_stays_up_until_ctrl_c(serve, tmp_path):
    path = tmp_path / "r.sqlite"
    process = serve("run", str(DEMO), "--hz", "40", "--quiet", "--json", "--view", "--record", str(path))
    status, _, body = _get(process.url, "/api/definition")
    assert status == 200 and json.loads(body)["run"]["robot"] == "demo_bot"
    deadline = time.monotonic() + 20
    while not json.loads(_get(process.url, "/api/timeline")[2])["run"]["finished"]:
        assert time.monotonic() < deadline, "the demo run did not finish"
        time.sleep(0.1)
    assert json.loads(_get(process.url, "/api/tree")[2])["behaviours"]["root"]["status"] == "SUCCESS"
    process.wait_until_run_finished()
    code, out, err = process.stop()
    assert code == 0
    assert f"run finished; the viewer stays at {process.url} until Ctrl-C" in err
    assert json.loads(out)["final_status"] == "SUCCESS"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("r.")) == ["r.sqlite"]


def test_view_and_replay_serve_a_recording(serve, recorded_demo):
    for command, query in (("view", ""), ("replay", "?start=first")):
        process = serve(command, str(recorded_demo))
        assert process.url.endswith(f"/{query}")
        status, _, body = _get(process.url, "/api/timeline")
        assert status == 200 and json.loads(body)["run"]["final_status"] == "SUCCESS"
        code, _, _ = process.stop()
        assert code == 0
