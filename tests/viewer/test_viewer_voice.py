"""`treebrain voice --view` serves the live viewer of the voice tree while the command runs."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

GOFA = Path(__file__).resolve().parents[2] / "config/robots/gofa.yaml"


def _root_status(url: str) -> str:
    """The voice tree's root status in the latest snapshot ("" before the first tick: 503)."""
    try:
        with urllib.request.urlopen(url.rstrip("/") + "/api/tree", timeout=5) as response:
            snapshot = json.loads(response.read())
    except urllib.error.HTTPError as error:
        if error.code == 503:
            return ""
        raise
    return str(snapshot["behaviours"]["voice"]["status"])


@pytest.mark.slow
def test_voice_command_can_be_watched_in_the_viewer(serve):
    viewer = serve("voice", "make a cheese sandwich", "--robot", str(GOFA), "--no-record", "--view")
    deadline = time.monotonic() + 30
    status = ""
    while time.monotonic() < deadline and status != "SUCCESS":
        time.sleep(0.2)
        status = _root_status(viewer.url)
    viewer.wait_until_run_finished()
    code, out, _ = viewer.stop()
    assert status == "SUCCESS"
    assert code == 0
    assert "route: phrase_bank" in out
