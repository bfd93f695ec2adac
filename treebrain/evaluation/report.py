"""Reports people look at: ``report.md`` (tables, PNG plots beside it) and a self-contained
``report.html`` (the same plots as inline SVG, failure images embedded) from a result file. Every
text that came from a case (ids, reasons, LLM answers) is escaped: a report is safe to open."""

from __future__ import annotations

import base64
import html
import io
import shutil
from pathlib import Path
from typing import Any

from treebrain.extras import needs_extra
from treebrain.files import atomic_write_bytes, atomic_write_text

FAILURES_SHOWN = 30
MEDIA_TYPES = {".gif": "image/gif", ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}


def overall_markdown(document: dict[str, Any]) -> str:
    """The runner's own table: pass rate with its 95% interval overall and per category."""
    summary = document["summary"]
    lines = [
        f"# {document['suite']}: {summary['passed']}/{summary['cases']} passed "
        f"({100 * summary['pass_rate']:.1f}%), {summary['errors']} error(s), "
        f"{summary['tokens']} tokens, ${summary['cost_usd']:.4f}",
        "",
        "| category | cases | passed | failed | errors | pass rate | 95% CI |",
        "|---|---|---|---|---|---|---|",
    ]
    rows = [*summary["by_category"].items(), ("all", summary)]
    for name, row in rows:
        low, high = row["ci95"]
        lines.append(
            f"| {name} | {row['cases']} | {row['passed']} | {row['failed']} | {row['errors']} "
            f"| {100 * row['pass_rate']:.1f}% | {100 * low:.1f}-{100 * high:.1f}% |"
        )
    unfinished = [case for case in document["cases"] if case["status"] != "pass"]
    if unfinished:
        lines += ["", f"## Not passed ({len(unfinished)})", ""]
        measured = document["measured"]["cases"]
        for case in unfinished[:FAILURES_SHOWN]:
            recordings = measured.get(case["id"], {}).get("recordings", [])
            seen = f" (`treebrain view {recordings[-1]}`)" if recordings else ""
            lines.append(
                f"- {case['id']} ({case['category']}): {case['status']}, "
                f"{case['reason'] or 'no reason given'}{seen}"
            )
        if len(unfinished) > FAILURES_SHOWN:
            lines.append(f"- ... and {len(unfinished) - FAILURES_SHOWN} more (see the result file)")
    return "\n".join(lines) + "\n"


def _pyplot() -> Any:
    with needs_extra("draw", "--report"):
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib import pyplot
    return pyplot


def _figures(document: dict[str, Any]) -> dict[str, Any]:
    """The plots, by file stem: pass rate per category, latency, tokens and cost per case."""
    pyplot = _pyplot()
    figures = {}
    by_category = document["summary"]["by_category"]
    names = list(by_category)
    rates = [100 * by_category[name]["pass_rate"] for name in names]
    lows = [rate - 100 * by_category[name]["ci95"][0] for name, rate in zip(names, rates, strict=True)]
    highs = [100 * by_category[name]["ci95"][1] - rate for name, rate in zip(names, rates, strict=True)]
    figure, axes = pyplot.subplots(figsize=(max(4.0, 0.6 * len(names) + 2), 3.2))
    axes.bar(names, rates, yerr=[lows, highs], capsize=3, color="#4c78a8")
    axes.set_ylim(0, 105)
    axes.set_ylabel("pass rate (%), 95% CI")
    axes.tick_params(axis="x", labelrotation=45)
    figures["pass_rate"] = figure
    measured = document["measured"]["cases"]
    series = {
        "latency": (
            [measured[case["id"]]["latency_s"] for case in document["cases"]],
            "latency per case (s)",
        ),
        "tokens": ([case["tokens"] for case in document["cases"]], "tokens per case"),
        "cost": ([case["cost_usd"] for case in document["cases"]], "cost per case (USD)"),
    }
    for stem, (values, label) in series.items():
        figure, axes = pyplot.subplots(figsize=(4.5, 3.0))
        axes.hist(values, bins=min(30, max(5, len(values) // 5)), color="#72b7b2")
        axes.set_xlabel(label)
        axes.set_ylabel("cases")
        figures[stem] = figure
    for figure in figures.values():
        figure.tight_layout()
    return figures


def _rendered(figure: Any, kind: str) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format=kind)
    return buffer.getvalue()


def write_report(folder: Path, document: dict[str, Any], result_dir: Path, suite_tables: str) -> None:
    """report.md with PNG plots and the failures' images beside it, and a self-contained report.html."""
    pyplot = _pyplot()
    figures = _figures(document)
    folder.mkdir(parents=True, exist_ok=True)
    svgs = {}
    for stem, figure in figures.items():
        atomic_write_bytes(folder / f"{stem}.png", _rendered(figure, "png"))
        svg = _rendered(figure, "svg").decode("utf-8")
        svgs[stem] = svg[svg.index("<svg") :]  # inline: without the XML declaration and doctype
        pyplot.close(figure)
    media = _copy_media(document, result_dir, folder)
    markdown = [overall_markdown(document), suite_tables, "## Plots", ""]
    markdown += [f"![{stem}]({stem}.png)" for stem in figures]
    for heading, shown in _media_sections(media):
        markdown += ["", f"## {heading}", ""]
        markdown += [f"![{case_id}]({name})" for case_id, name in shown]
    atomic_write_text(folder / "report.md", "\n".join(markdown) + "\n")
    atomic_write_text(folder / "report.html", _html(document, suite_tables, svgs, folder, media))


def _copy_media(document: dict[str, Any], result_dir: Path, folder: Path) -> list[tuple[str, str, bool]]:
    """The cases' images (failures' mostly; a suite may keep every episode's), copied under the
    report: (case id, name, passed)."""
    copied = []
    for case in document["cases"]:
        for name in case.get("media", []):
            source = result_dir / name
            if source.is_file():
                (folder / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, folder / name)
                copied.append((case["id"], name, case["status"] == "pass"))
    return copied


def _media_sections(media: list[tuple[str, str, bool]]) -> list[tuple[str, list[tuple[str, str]]]]:
    """The report's image sections, failures first; empty ones left out."""
    sections = [
        ("Failures, as the simulator saw them", [(case, name) for case, name, passed in media if not passed]),
        ("Passed episodes", [(case, name) for case, name, passed in media if passed]),
    ]
    return [(heading, shown) for heading, shown in sections if shown]


STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem; color: #222; }
table { border-collapse: collapse; margin: 1rem 0; }
td, th { border: 1px solid #ccc; padding: 0.25rem 0.6rem; text-align: right; }
td:first-child, th:first-child { text-align: left; }
.plots { display: flex; flex-wrap: wrap; gap: 1rem; }
.plots svg { max-width: 480px; height: auto; }
.media { display: flex; flex-wrap: wrap; gap: 1rem; }
.media figure { margin: 0; } .media img { max-width: 240px; }
pre { background: #f6f6f6; padding: 1rem; overflow-x: auto; }
"""


def _html(
    document: dict[str, Any],
    suite_tables: str,
    svgs: dict[str, str],
    folder: Path,
    media: list[tuple[str, str, bool]],
) -> str:
    summary = document["summary"]
    rows = [*summary["by_category"].items(), ("all", summary)]
    table = ["<table><tr><th>category</th><th>cases</th><th>passed</th><th>failed</th><th>errors</th>"]
    table[0] += "<th>pass rate</th><th>95% CI</th></tr>"
    for name, row in rows:
        low, high = row["ci95"]
        cells = [name, row["cases"], row["passed"], row["failed"], row["errors"]]
        cells += [f"{100 * row['pass_rate']:.1f}%", f"{100 * low:.1f}-{100 * high:.1f}%"]
        table.append("<tr>" + "".join(f"<td>{html.escape(str(cell))}</td>" for cell in cells) + "</tr>")
    table.append("</table>")
    failures = [case for case in document["cases"] if case["status"] != "pass"][:FAILURES_SHOWN]
    failure_items = "".join(
        f"<li>{html.escape(case['id'])} ({html.escape(case['category'])}): {html.escape(case['status'])}, "
        f"{html.escape(case['reason'] or 'no reason given')}</li>"
        for case in failures
    )
    galleries = [
        f"<h2>{html.escape(heading)}</h2><div class='media'>"
        + "".join(
            f"<figure>{_embedded(folder / name)}<figcaption>{html.escape(case_id)}</figcaption></figure>"
            for case_id, name in shown
        )
        + "</div>"
        for heading, shown in _media_sections(media)
    ]
    measured = document["measured"]
    title = html.escape(f"treebrain eval {document['suite']}")
    parts = [
        f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title><style>{STYLE}</style></head><body>",
        f"<h1>{title}</h1>",
        f"<p>{summary['passed']}/{summary['cases']} passed, {summary['errors']} error(s), {summary['tokens']} tokens, "
        f"${summary['cost_usd']:.4f}; {html.escape(str(measured.get('backend')))} with "
        f"{html.escape(str(measured.get('workers')))} worker(s), {html.escape(str(measured.get('wall_s')))} s</p>",
        *table,
        "<h2>Plots</h2><div class='plots'>",
        *(svgs[stem] for stem in svgs),
        "</div>",
    ]
    if failure_items:
        parts.append(f"<h2>Not passed</h2><ul>{failure_items}</ul>")
    parts.extend(galleries)
    if suite_tables:
        parts.append(f"<h2>Suite metrics</h2><pre>{html.escape(suite_tables)}</pre>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _embedded(path: Path) -> str:
    kind = MEDIA_TYPES.get(path.suffix.lower(), "application/octet-stream")
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f"<img alt='{html.escape(path.name)}' src='data:{kind};base64,{data}'>"
