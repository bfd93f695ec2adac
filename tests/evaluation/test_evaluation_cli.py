"""``treebrain eval``: the same result whatever the worker count, reports, A/B comparison, and the
bad inputs (an unknown suite, a missing case file, a Ray address nobody answers, Ctrl-C mid-run)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from treebrain.cli import main
from treebrain.evaluation.compare import compare_markdown
from treebrain.evaluation.results import partial_path

Output = pytest.CaptureFixture[str]
REPO = Path(__file__).resolve().parents[2]


def deterministic(document: dict[str, Any]) -> dict[str, Any]:
    """What must not depend on the backend: everything but the measurements."""
    return {key: value for key, value in document.items() if key != "measured"}


def run_overhead(tmp_path: Path, name: str, *options: str) -> dict[str, Any]:
    result = tmp_path / f"{name}.json"
    assert main(["eval", "overhead", "--cases", "30", "--json", str(result), "-q", *options]) == 0
    document: dict[str, Any] = json.loads(result.read_text())
    return document


def test_the_result_is_the_same_with_one_worker_or_two(tmp_path: Path) -> None:
    one = run_overhead(tmp_path, "one", "--workers", "1")
    two = run_overhead(tmp_path, "two", "--workers", "2")
    assert deterministic(one) == deterministic(two)
    assert (one["measured"]["workers"], two["measured"]["workers"]) == (1, 2)
    assert len({case["worker"] for case in two["measured"]["cases"].values()}) == 2
    summary = one["summary"]
    assert (summary["cases"], summary["passed"], summary["failed"], summary["errors"]) == (30, 27, 3, 0)
    assert summary["by_category"]["group-0"] == {
        "cases": 8,
        "passed": 6,
        "failed": 2,
        "errors": 0,
        "pass_rate": 0.75,
        "ci95": [0.4093, 0.9285],
    }
    assert [case["id"] for case in one["cases"]] == [f"case-{n:05d}" for n in range(30)]
    assert not partial_path(tmp_path / "one.json").exists()


def test_the_report_has_plots_tables_and_escaped_text(tmp_path: Path, capsys: Output) -> None:
    run_overhead(tmp_path, "run", "--workers", "1", "--report", str(tmp_path / "report"))
    report = tmp_path / "report"
    assert sorted(path.name for path in report.iterdir()) == [
        "cost.png",
        "latency.png",
        "pass_rate.png",
        "report.html",
        "report.md",
        "tokens.png",
    ]
    markdown = (report / "report.md").read_text()
    assert markdown.startswith("# overhead: 27/30 passed (90.0%), 0 error(s), 0 tokens, $0.0000")
    assert "| group-0 | 8 | 6 | 2 | 0 | 75.0% | 40.9-92.8% |" in markdown
    assert "![pass_rate](pass_rate.png)" in markdown
    page = (report / "report.html").read_text()
    assert page.count("<svg") == 4 and "<?xml" not in page
    assert "<td>group-0</td><td>8</td><td>6</td>" in page
    # a result whose text carries markup is shown as text
    document = json.loads((tmp_path / "run.json").read_text())
    document["cases"][0]["reason"] = "<script>alert(1)</script>"
    hostile = tmp_path / "hostile.json"
    hostile.write_text(json.dumps(document))
    assert main(["eval", "report", str(hostile), "--report", str(tmp_path / "again")]) == 0
    again = (tmp_path / "again" / "report.html").read_text()
    assert "<script>" not in again and "&lt;script&gt;alert(1)&lt;/script&gt;" in again


def test_compare_prints_the_paired_table(tmp_path: Path, capsys: Output) -> None:
    a = run_overhead(tmp_path, "a", "--workers", "1")
    b = dict(a, cases=[dict(case, status="pass") for case in a["cases"]])
    (tmp_path / "b.json").write_text(json.dumps(b))
    capsys.readouterr()
    assert main(["eval", "compare", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        f"# overhead: A = {tmp_path / 'a.json'}, B = {tmp_path / 'b.json'} (30 paired cases)"
    )
    assert "| all | 30 | 90.0% | 100.0% | +10.0 pp | 0 / 3 | 0.25 |" in out
    assert "| tokens | 0  | 0  | +0 [+0, +0] |" in out


def test_compare_counts_the_flags_a_suite_puts_in_each_cases_detail() -> None:
    def run(flags: list[tuple[str, str, bool, bool]]) -> dict[str, Any]:
        cases = [
            {
                "id": case_id,
                "category": category,
                "status": "fail" if refused or wrong else "pass",
                "tokens": 10,
                "cost_usd": 0.0,
                "detail": {"false_refusal": refused, "executed_but_wrong": wrong},
            }
            for case_id, category, refused, wrong in flags
        ]
        return {"suite": "voice", "cases": cases, "measured": {"cases": {}}}

    a = run(
        [
            ("x", "real_phrasing", True, False),
            ("y", "real_phrasing", True, False),
            ("z", "edge", False, False),
        ]
    )
    b = run(
        [
            ("x", "real_phrasing", False, False),
            ("y", "real_phrasing", False, True),
            ("z", "edge", False, False),
        ]
    )
    out = compare_markdown(a, b)
    assert (
        "## Counted per case (A / B)\n\n| category | cases | false refusals | executed but wrong |\n"
        "|---|---|---|---|\n| edge | 1 | 0 / 0 | 0 / 0 |\n| real_phrasing | 2 | 2 / 0 | 0 / 1 |\n"
        "| all | 3 | 2 / 0 | 0 / 1 |\n"
    ) in out
    plain = {**a, "cases": [{**case, "detail": {}} for case in a["cases"]]}
    assert "Counted per case" not in compare_markdown(plain, plain)


def test_bad_inputs_get_one_clear_line_and_exit_2(tmp_path: Path, capsys: Output) -> None:
    with pytest.raises(SystemExit) as exit_code:
        main(["eval", "nosuch"])
    assert exit_code.value.code == 2
    assert "invalid choice: 'nosuch'" in capsys.readouterr().err
    missing = tmp_path / "missing.jsonl"
    assert main(["eval", "tdl", str(missing), "--json", str(tmp_path / "r.json")]) == 2
    err = capsys.readouterr().err
    assert str(missing) in err and "Traceback" not in err
    assert main(["eval", "compare", str(missing), str(missing)]) == 2
    assert f"{missing}: no such result file" in capsys.readouterr().err


def test_a_ray_address_nobody_answers_exits_4_within_10_s(tmp_path: Path, capsys: Output) -> None:
    started = time.monotonic()
    code = main(
        ["eval", "overhead", "--cases", "3", "--ray", "127.0.0.1:9", "--json", str(tmp_path / "r.json")]
    )
    assert code == 4 and time.monotonic() - started < 10
    assert "no Ray cluster answers at 127.0.0.1:9" in capsys.readouterr().err


@pytest.mark.slow
def test_ctrl_c_keeps_the_finished_cases_and_resume_finishes_the_same_run(tmp_path: Path) -> None:
    result = tmp_path / "run.json"
    command = [
        str(Path(sys.executable).parent / "treebrain"),
        "eval",
        "overhead",
        "--cases",
        "60",
        "--work-ms",
        "100",
    ]
    command += ["--workers", "2", "--json", str(result)]
    process = subprocess.Popen(command, cwd=REPO, stderr=subprocess.PIPE, text=True)
    log = partial_path(result)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not log.exists() or len(log.read_text().splitlines()) < 6):
        time.sleep(0.1)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert "run the same command with --resume" in err and not result.exists()
    kept = len(log.read_text().splitlines()) - 1
    assert 5 <= kept < 60
    resumed = subprocess.run(
        [*command, "--resume", "-q"], check=False, cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert resumed.returncode == 0, resumed.stderr
    document = json.loads(result.read_text())
    assert [case["id"] for case in document["cases"]] == [f"case-{n:05d}" for n in range(60)]
    assert document["summary"]["passed"] == 54 and not log.exists()
