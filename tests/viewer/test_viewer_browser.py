"""The viewer in a real browser: headless Debian chromium driven by playwright (no browser download).

A demo robot runs with ``--view``; the page must show statuses changing, node details on click, and
earlier statuses when the timeline is scrubbed back. A second page shows a recording full of
markup and must display it as text without running any of it.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from treebrain.recording import Recording
from treebrain.viewer import ViewerServer
from treebrain.viewer.payloads import last_frame

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
DEMO = Path(__file__).resolve().parents[2] / "config/robots/demo_bot.yaml"
DRIVE_LEG = "root/patrol_rounds/charge_or_patrol/leg/leg/drive/drive_leg"
STATUSES_JS = "nodes => Object.fromEntries(nodes.map(n => [n.dataset.path, n.dataset.status]))"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="needs Debian's chromium at /usr/bin/chromium (apt-get install -y chromium)",
    ),
]


@pytest.fixture
def page():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        # Without the page's CSP: playwright's waits evaluate strings, and the markup test should show
        # that the page itself never runs tree text, not only that the CSP would stop it.
        page = browser.new_page(viewport={"width": 1500, "height": 850}, bypass_csp=True)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        yield page
        browser.close()
        assert errors == []


def _statuses(page) -> dict[str, str]:
    statuses: dict[str, str] = page.eval_on_selector_all("g.node", STATUSES_JS)
    return statuses


def _expected_statuses(recording: Recording, tick: int) -> dict[str, str]:
    visited = {index: status for index, status, _ in recording.visited_at(tick)}
    return {node.path: visited.get(node.index, "INVALID") for node in recording.definition.nodes}


def test_watch_a_live_demo_run_click_a_node_and_scrub_back(serve, page, tmp_path):
    path = tmp_path / "demo.sqlite"
    process = serve("run", str(DEMO), "--hz", "5", "--quiet", "--view", "--record", str(path))
    page.goto(process.url)
    page.wait_for_selector('g.node[data-path="root"][data-status="RUNNING"]')

    seen = [_statuses(page)]
    deadline = time.monotonic() + 15
    while len({tuple(sorted(s.items())) for s in seen}) < 3:
        assert time.monotonic() < deadline, "the statuses on the page did not change while the tree ran"
        page.wait_for_timeout(150)
        seen.append(_statuses(page))

    page.click(f'g.node[data-path="{DRIVE_LEG}"]')
    page.wait_for_function("document.querySelector('#node-details h3')?.textContent.startsWith('drive_leg')")
    details = page.text_content("#node-details")
    assert details is not None
    assert DRIVE_LEG in details and "wait (leaf)" in details and '"seconds": 0.2' in details
    assert "patrol_leg.yaml" in details

    page.wait_for_function(
        "document.getElementById('run-state').textContent === 'finished: SUCCESS'", timeout=30_000
    )
    page.wait_for_selector('g.node[data-path="root"][data-status="SUCCESS"]')

    page.eval_on_selector("#scrubber", "el => { el.value = '1'; el.dispatchEvent(new Event('input')); }")
    page.wait_for_function("document.getElementById('tick-label').textContent.startsWith('tick 1 /')")
    with Recording(path) as recording:
        assert _statuses(page) == _expected_statuses(recording, 1)
        assert _statuses(page)["root"] == "RUNNING"
        page.click("#step-forward")
        page.wait_for_function("document.getElementById('tick-label').textContent.startsWith('tick 2 /')")
        assert _statuses(page) == _expected_statuses(recording, 2)
        assert page.input_value("#scrubber") == "2"
    page.click(f'g.node[data-path="{DRIVE_LEG}"]')
    page.wait_for_function("document.querySelector('#node-details dl')?.textContent.includes('tick2')")
    page.screenshot(path=str(tmp_path / "viewer.png"), full_page=True)
    assert (tmp_path / "viewer.png").stat().st_size > 10_000
    process.wait_until_run_finished()
    assert process.stop()[0] == 0


def test_markup_from_the_tree_is_shown_as_text_and_never_run(hostile, page, tmp_path):
    recording = Recording(hostile.path)
    with ViewerServer(recording) as server:
        page.goto(server.url + "?start=first")
        page.wait_for_selector('g.node[data-path="root/say"]')
        page.click('g.node[data-path="root/say"]')
        page.wait_for_selector("#node-details pre.response")
        assert page.text_content("#node-details pre.response") == hostile.image
        assert hostile.script in (page.text_content("#node-details dl") or "")
        prompts = page.eval_on_selector_all(
            "#node-details pre.prompt", "nodes => nodes.map(n => n.textContent)"
        )
        assert prompts == [hostile.script, hostile.image]
        assert page.text_content('#blackboard tr[data-key="/answer"] td.value') == hostile.value
        title = page.text_content('g.node[data-path="root/say"] title') or ""
        assert hostile.script in title
        assert page.evaluate("window.__xss") is None
        assert page.eval_on_selector_all("script", "nodes => nodes.length") == 1
        # the page's own camera panel holds the only image; markup from the tree adds none
        assert page.eval_on_selector_all("img", "nodes => nodes.map(n => n.id)") == ["camera"]
        page.screenshot(path=str(tmp_path / "hostile.png"))
    recording.close()


def test_the_camera_panel_shows_the_last_frame_beside_the_tree(page, tmp_path):
    from treebrain.cli import main

    path = tmp_path / "lift.sqlite"
    robot = DEMO.parent / "panda_lift.yaml"
    assert (
        main(
            [
                "run",
                str(robot),
                "--seed",
                "2",
                "--gif",
                str(tmp_path / "lift.gif"),
                "-q",
                "--record",
                str(path),
            ]
        )
        == 0
    )
    with Recording(path) as recording, ViewerServer(recording, "127.0.0.1", 0) as server:
        page.goto(server.url)
        page.wait_for_selector("#camera-panel:not([hidden])")
        page.wait_for_function("document.getElementById('camera').naturalWidth === 256")
        last = recording.last_tick
        assert last is not None
        newest = last_frame(recording, last)[0]
        assert newest is not None and newest > last - 4  # a frame every 4 control steps
        assert page.text_content("#camera-label") == f"frame of tick {newest}"
        page.eval_on_selector("#scrubber", "el => { el.value = '1'; el.dispatchEvent(new Event('input')); }")
        page.wait_for_function("document.getElementById('camera-label').textContent === 'frame of tick 1'")
        page.screenshot(path=str(tmp_path / "camera.png"))
