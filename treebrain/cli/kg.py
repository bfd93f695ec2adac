"""``treebrain kg ...``: the kitchen knowledge-graph pipeline.

``ingest`` runs the kitchen tree once per narration, in time order (one video's with ``--video``),
skipping narrations the graph already holds, saving every few seconds and at the end; the queries
(``where``, ``history``, ``last``, ``open``, ``unattributed``, ``show``, ``draw``) are in
``kg_queries``; ``treebrain eval kg`` is the evaluation runner's suite :mod:`treebrain.evaluation.suites.kg`.
``--provider PROFILE`` replaces the robot file's ``llm.default`` for the run (every LLM leaf of the
kitchen tree uses the default profile); ``--provider none`` asks no LLM at all (the rules decide, and
what they are unsure of is flagged low-confidence); a ``scripted`` profile without a script of its
own answers from the kitchen's scripted answers by narration id (``--answers``).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import statistics
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from treebrain.cli.common import EXIT_FAILURE, EXIT_OK
from treebrain.cli.kg_queries import add_query_commands
from treebrain.errors import InputError
from treebrain.kg.ingest import SavePolicy, plan_ingest
from treebrain.kg.narrations import read_narration_file
from treebrain.kg.pipeline import NarrationOutcome
from treebrain.sessions.kitchen import DEFAULT_ROBOT, KitchenSession, NarrationFailed, run_options

WARNINGS_SHOWN = 10
#: The cycle collector's thresholds during an ingest (see _long_run).
RUN_COLLECTION = (50_000, 20, 100)


def kitchen_session(args: argparse.Namespace, **extra: Any) -> KitchenSession:
    """The session the command's options describe (`extra`: the graph file, a fresh graph)."""
    classes = (args.verb_classes, args.noun_classes) if args.verb_classes or args.noun_classes else None
    return KitchenSession(
        args.robot,
        provider=args.provider,
        answers=args.answers,
        llm_extractor=args.llm_extractor,
        rules_first=args.rules_first,
        dataset_classes=classes,
        hz=args.hz,
        **extra,
    )


# ----- ingest -------------------------------------------------------------------------------------
def cmd_ingest(args: argparse.Namespace) -> int:
    with _long_run():
        return _ingest(args)


def _ingest(args: argparse.Namespace) -> int:
    session = kitchen_session(args, kg=args.kg, fresh=args.new)
    try:
        if session.kitchen.kg_path is None:
            raise InputError.single("no graph file: pass --kg or set driver.params.kg", args.robot)
        read = read_narration_file(args.narrations, session.kitchen.config.columns)
        plan = plan_ingest(read.narrations, session.kitchen.kg, args.narrations, args.video)
    except BaseException:
        session.close()
        raise
    console = Console(stderr=True, highlight=False, soft_wrap=True)
    console.print(_starting(session, args.new), markup=False)
    for note in [*session.kitchen.load_warnings, *plan.notes]:
        console.print(f"note: {note}", markup=False)
    for problem in read.problems:  # bad rows are mended or skipped; the rest is ingested
        console.print(f"warning: {problem}", markup=False)
    policy = SavePolicy(every=args.save_every, seconds=args.save_seconds)
    gc.freeze()  # the session, its tree and the file's narrations live until the run ends
    outcomes: list[tuple[NarrationOutcome, float]] = []
    failures: list[str] = []
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    since_save, last_save, save_cost = 0, time.monotonic(), 0.0
    try:
        with Progress(*columns, console=console, disable=args.quiet) as progress:
            task = progress.add_task(f"narrations ({session.profile})", total=len(plan.todo))
            for narration in plan.todo:
                started = time.perf_counter()
                try:
                    outcome = session.process(narration)
                except NarrationFailed as failure:
                    failures.append(str(failure))
                    progress.advance(task)
                    continue
                seconds = time.perf_counter() - started
                outcomes.append((outcome, seconds))
                description = f"{narration.id} {_ms(seconds)} ({session.profile})"
                progress.update(task, advance=1, description=description)
                if args.verbose:
                    console.print(_line(outcome, seconds), markup=False)
                since_save += 1
                if policy.due(since_save, time.monotonic() - last_save, save_cost):
                    saving = time.monotonic()
                    session.kitchen.save()
                    since_save, last_save = 0, time.monotonic()
                    save_cost = last_save - saving
                    gc.freeze()  # and so does the graph saved so far
    finally:
        saved = session.kitchen.save()
        session.close()
    _print_ingest_summary(outcomes, failures, saved)
    return EXIT_FAILURE if failures else EXIT_OK


@contextlib.contextmanager
def _long_run() -> Iterator[None]:
    """The cycle collector set for one long run, and as it was afterwards. A young collection every
    50,000 new objects, not 700 (a narration's garbage is freed by reference counting), and what
    lives until the run ends taken out of its scans (gc.freeze; what the run kept goes back to it at
    the end: a tree's parent links are cycles): collecting took a tenth of an ingest."""
    usual = gc.get_threshold()
    gc.set_threshold(*RUN_COLLECTION)
    try:
        yield
    finally:
        gc.set_threshold(*usual)
        gc.unfreeze()


def _starting(session: KitchenSession, fresh: bool) -> str:
    kitchen = session.kitchen
    path = kitchen.kg_path
    if fresh and path is not None and path.exists():
        return f"starting an empty graph; {path} is replaced at the first save"
    kg = kitchen.kg
    if kg.narration_count() or kg.food_count():
        return (
            f"appending to the graph in {path} ({kg.food_count()} object(s), {kg.narration_count()} "
            "narration(s) already applied); pass --new to start an empty one, or --kg FILE"
        )
    return f"new graph: {path}"


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 10 else f"{seconds:.1f} s"


def _line(outcome: NarrationOutcome, seconds: float) -> str:
    report = outcome.report
    who = (
        "unattributed"
        if report.source is None
        else report.source + (" (low)" if report.confidence == "low" else "")
    )
    target = report.food_id or report.zone_id or "-"
    return f"{outcome.narration.id}  {_ms(seconds):>9}  {who:<12} {report.outcome.value:<13} {target:<24} {outcome.narration.text}"


def _print_ingest_summary(
    outcomes: list[tuple[NarrationOutcome, float]], failures: list[str], saved: Path
) -> None:
    reports = [outcome.report for outcome, _ in outcomes]
    if not reports and not failures:
        print(f"nothing to do: every narration is already in the graph\nsaved {saved}")
        return
    kinds = Counter(report.outcome.value for report in reports)
    print(
        f"{len(reports)} narration(s): "
        + ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items()))
    )
    by_rules = sum(report.source == "rules" and report.confidence == "normal" for report in reports)
    by_llm = sum(report.source == "llm" for report in reports)
    low = sum(report.source == "rules" and report.confidence == "low" for report in reports)
    retries = sum(outcome.retries for outcome, _ in outcomes)
    print(
        f"decided by the rules: {by_rules}; by the LLM: {by_llm} ({retries} retries); low-confidence rule-based: {low}"
    )
    if kinds["UNATTRIBUTED"]:
        print(f"not attributed to any object: {kinds['UNATTRIBUTED']} (`treebrain kg unattributed` says why)")
    if outcomes:
        times = [seconds for _, seconds in outcomes]
        total = sum(times)
        print(
            f"time: {total:.2f} s, {len(times) / total:.1f} narrations/s; per narration median "
            f"{_ms(statistics.median(times))}, max {_ms(max(times))}"
        )
    warnings = [f"{report.narration_id}: {warning}" for report in reports for warning in report.warnings]
    for warning in warnings[:WARNINGS_SHOWN]:
        print(f"warning: {warning}")
    if len(warnings) > WARNINGS_SHOWN:
        print(f"... and {len(warnings) - WARNINGS_SHOWN} more warning(s) (`treebrain kg history` shows them)")
    for failure in failures:
        print(f"FAILED: {failure}")
    print(f"saved {saved}")


# ----- argument parsing ---------------------------------------------------------------------------
def configure(kg: argparse.ArgumentParser) -> None:
    """``treebrain kg ingest|where|history|last|open|unattributed|show|draw``."""
    actions = kg.add_subparsers(dest="kg_command", required=True)
    ingest = actions.add_parser("ingest", help="update the graph from a narration file (CSV or JSONL)")
    ingest.add_argument("narrations", type=Path)
    ingest.add_argument(
        "--robot", type=Path, default=DEFAULT_ROBOT, help="robot file (default: the kitchen's)"
    )
    ingest.add_argument("--kg", type=Path, help="graph file (default: the robot's driver.params.kg)")
    run_options(ingest)
    ingest.add_argument("--video", metavar="ID", help="only this video's narrations (e.g. P03_23)")
    ingest.add_argument(
        "--new", action="store_true", help="start an empty graph instead of adding to the file's"
    )
    ingest.add_argument("--save-every", type=int, default=0, metavar="N", help="also save every N narrations")
    ingest.add_argument(
        "--save-seconds",
        type=float,
        default=2.0,
        metavar="S",
        help="save at most S seconds after the last save (default 2; 0: after every narration)",
    )
    ingest.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    ingest.add_argument("--verbose", "-v", action="store_true", help="one line per narration, with its time")
    ingest.set_defaults(handler=cmd_ingest)
    add_query_commands(actions)
