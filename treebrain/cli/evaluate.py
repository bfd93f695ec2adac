"""``treebrain eval SUITE``: every suite through one runner with the same options, on a local
process pool (``--workers``) or a Ray cluster (``--ray``); ``eval compare A.json B.json`` for A/B
tables and ``eval report RESULT.json --report DIR`` to draw a finished run again."""

from __future__ import annotations

import argparse
import os
import sys
import time
from functools import partial
from pathlib import Path

from treebrain.cli.common import EXIT_BAD_INPUT, EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_LLM_UNAVAILABLE, EXIT_OK
from treebrain.cli.subcommands import Subcommand, add_subcommands
from treebrain.evaluation.backends import Backend, ProcessBackend, WorkerOpenError
from treebrain.evaluation.cases import CaseResult, Suite
from treebrain.evaluation.compare import compare_markdown
from treebrain.evaluation.progress import progress_for
from treebrain.evaluation.ray_backend import RayBackend, RayUnavailable
from treebrain.evaluation.report import overall_markdown, write_report
from treebrain.evaluation.results import (
    ResultLog,
    partial_path,
    read_result,
    result_document,
    suite_summary,
    write_result,
)
from treebrain.evaluation.runner import RunOptions, run_cases
from treebrain.evaluation.suites import SUITES, SuiteEntry
from treebrain.extras import require

RESULTS_DIR = Path("runs") / "eval"
OPEN_FAILURE_EXIT = {"input": EXIT_BAD_INPUT, "llm": EXIT_LLM_UNAVAILABLE}


def _positive(text: str) -> int:
    number = int(text)
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text}")
    return number


def _seconds(text: str) -> float:
    number = float(text)
    if not number > 0:
        raise argparse.ArgumentTypeError(f"expected seconds > 0, got {text}")
    return number


def add_runner_options(parser: argparse.ArgumentParser, suite: str) -> None:
    """The options every suite has."""
    runner = parser.add_argument_group("runner")
    runner.add_argument(
        "--json",
        type=Path,
        metavar="FILE",
        default=RESULTS_DIR / f"{suite}.json",
        help="the machine-readable result (default %(default)s); partial results beside it as the run goes",
    )
    runner.add_argument("--report", type=Path, metavar="DIR", help="write report.md and report.html there")
    runner.add_argument(
        "--workers", type=_positive, metavar="N", help="cases at once (default: the number of cores)"
    )
    runner.add_argument(
        "--ray", metavar="ADDRESS", help="run on a Ray cluster: auto, HOST:PORT, or local (a throwaway one)"
    )
    runner.add_argument("--provider", metavar="PROFILE", help="the robot files' LLM profile to use")
    runner.add_argument(
        "--record",
        action="store_true",
        help="record every tree run of each case (FILE's stem.recordings/, for treebrain view)",
    )
    runner.add_argument("--quiet", "-q", action="store_true", help="no progress, only the summary")
    runner.add_argument(
        "--resume", action="store_true", help="continue an interrupted run, skipping finished cases"
    )
    runner.add_argument(
        "--case-timeout",
        type=_seconds,
        default=600.0,
        metavar="S",
        help="a case running longer is stopped, retried once, then reported as an error (default %(default)s)",
    )


def _backend(args: argparse.Namespace) -> Backend:
    workers = args.workers or os.cpu_count() or 1
    if args.ray:
        return RayBackend(args.ray, workers)
    return ProcessBackend(workers)


def cmd_eval(args: argparse.Namespace) -> int:
    if args.suite_extra is not None:
        require(args.suite_extra, f"treebrain eval {args.evaluation}")
    if args.report:
        require("draw", "--report")  # before the cases run, not after
    suite: Suite = args.suite_class.from_arguments(args)
    suite.record = args.record
    started = time.perf_counter()
    progress = progress_for(suite.name, args.quiet)
    log: ResultLog | None = None
    complete = False
    try:
        backend = _backend(args)
        backend.prepare(suite)  # a local pool's fork server imports the suite while the cases are listed
        cases = suite.cases()
        log = ResultLog(args.json, suite.name, suite.settings(), cases)
        finished = log.open(args.resume)
        results = run_cases(suite, cases, backend, log, progress, finished, RunOptions(args.case_timeout))
        complete = True
    except KeyboardInterrupt:
        kept = f"the finished cases are kept in {partial_path(args.json)}; " if log else ""
        print(f"\ninterrupted: {kept}run the same command with --resume to go on", file=sys.stderr)
        return EXIT_INTERRUPTED
    except RayUnavailable as error:
        print(f"treebrain eval: {error}", file=sys.stderr)
        return EXIT_LLM_UNAVAILABLE
    except WorkerOpenError as error:
        print(f"treebrain eval: the suite could not be opened: {error.reason}", file=sys.stderr)
        return OPEN_FAILURE_EXIT.get(error.kind, EXIT_FAILURE)
    finally:
        progress.stop()
        if log is not None:
            log.close(complete)
    measured = {
        "backend": f"ray:{args.ray}" if args.ray else "processes",
        "workers": backend.slots,
        "wall_s": round(time.perf_counter() - started, 3),
    }
    document = result_document(suite.name, suite.settings(), results, suite.summary(results), measured)
    write_result(args.json, document)
    if not args.quiet:
        print(overall_markdown(document))
        print(suite.markdown(suite_summary(document)))
    print(f"result: {args.json}", file=sys.stderr)
    if args.report:
        write_report(args.report, document, args.json.parent, suite.markdown(suite_summary(document)))
        print(f"report: {args.report / 'report.html'}", file=sys.stderr)
    return EXIT_FAILURE if _errors(results) else EXIT_OK


def _errors(results: list[CaseResult]) -> list[CaseResult]:
    return [result for result in results if result.status == "error"]


def cmd_compare(args: argparse.Namespace) -> int:
    print(compare_markdown(read_result(args.a), read_result(args.b), str(args.a), str(args.b)))
    return EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    document = read_result(args.result)
    entry = SUITES.get(document["suite"])
    tables = entry.load().markdown(suite_summary(document)) if entry else ""
    write_report(args.report, document, args.result.parent, tables)
    print(f"report: {args.report / 'report.html'}", file=sys.stderr)
    return EXIT_OK


def configure(evaluate: argparse.ArgumentParser) -> None:
    """``treebrain eval SUITE`` for every suite (its module imported when chosen), ``eval compare``
    and ``eval report``."""
    suites = [
        Subcommand(entry.name, entry.help, partial(configure_suite, entry), entry.extra)
        for entry in SUITES.values()
    ]
    add_subcommands(
        evaluate,
        "evaluation",
        [
            *suites,
            Subcommand(
                "compare", "A/B table of two result files, with significance tests", configure_compare
            ),
            Subcommand("report", "write the report of a finished result file again", configure_report),
        ],
    )


def configure_suite(entry: SuiteEntry, parser: argparse.ArgumentParser) -> None:
    suite_class = entry.load()
    suite_class.add_arguments(parser)
    add_runner_options(parser, entry.name)
    parser.set_defaults(handler=cmd_eval, suite_class=suite_class, suite_extra=entry.extra)


def configure_compare(compare: argparse.ArgumentParser) -> None:
    compare.add_argument("a", type=Path, help="result file A (the baseline)")
    compare.add_argument("b", type=Path, help="result file B")
    compare.set_defaults(handler=cmd_compare)


def configure_report(report: argparse.ArgumentParser) -> None:
    report.add_argument("result", type=Path, help="a result file of `treebrain eval`")
    report.add_argument(
        "--report", type=Path, metavar="DIR", required=True, help="where report.md and report.html go"
    )
    report.set_defaults(handler=cmd_report)
