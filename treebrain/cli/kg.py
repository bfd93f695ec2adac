"""``treebrain kg ...`` and ``treebrain eval kg``: the kitchen knowledge-graph pipeline.

``ingest`` runs the kitchen tree once per narration (a progress bar; the graph saved atomically at
the end and every ``--save-every`` narrations); ``where``, ``history``, ``show`` and ``draw`` read a
saved graph; ``eval kg`` runs the labelled scenarios through the tree and scores them.
``--provider PROFILE`` replaces the robot file's ``llm.default`` for the run (every LLM leaf of the
kitchen tree uses the default profile); a ``scripted`` profile without a script of its own answers
from the kitchen's scripted answers by narration id (``--answers``).
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import Any

from py_trees.common import Status
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from treebrain.behaviours.context import RobotSettings
from treebrain.behaviours.kg.service import KitchenGraphService, kitchen_paths
from treebrain.behaviours.llm.service import LLMService, choose_default_profile, robot_llm_section
from treebrain.cli.common import EXIT_FAILURE, EXIT_OK
from treebrain.errors import InputError
from treebrain.files import atomic_write_json
from treebrain.kg.drawing import draw_graph
from treebrain.kg.eval_set import load_eval_set
from treebrain.kg.evaluation import EvalReport, evaluate, run_scenario_with
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import FoodView, Narration
from treebrain.kg.narrations import read_narrations
from treebrain.kg.pipeline import NarrationOutcome
from treebrain.kg.queries import find_foods, food_table, history_of
from treebrain.kg.scripted import KitchenProviders
from treebrain.trees import compile_file, load_tree

DEFAULT_ROBOT = Path("config/robots/kitchen.yaml")
EVAL_OUT = Path("runs/kitchen/eval_kg.json")
MISMATCHES_SHOWN = 20


class NarrationFailed(RuntimeError):
    """The tree itself failed on a narration (a defect, never a wrong LLM answer)."""


class KitchenSession:
    """The kitchen tree, loaded once; each narration is one run of it, ticked until it finishes."""

    def __init__(
        self,
        robot: Path,
        *,
        provider: str | None = None,
        kg: Path | None = None,
        answers: Path | None = None,
        llm_extractor: bool = False,
        hz: float = 200.0,
    ) -> None:
        self.tree = load_tree(robot, values={"/kg/use_llm_extractor": True} if llm_extractor else None)
        try:
            settings = self.tree.context.robot
            paths = kitchen_paths(settings)
            self.kitchen = KitchenGraphService.open(paths.kitchen, kg or paths.kg)
            self.providers = KitchenProviders(
                answers or paths.kitchen.parent / "eval" / "scripted_answers.jsonl"
            )
            choose_default_profile(settings, provider)
            section = robot_llm_section(settings)
            self.profile = section.default
            self.llm = LLMService(section, self.tree.context, settings.base_dir, self.providers)
        except BaseException:
            self.tree.close()
            raise
        self.tree.context.provide(KitchenGraphService, self.kitchen)
        self.tree.context.provide(LLMService, self.llm)
        self.period = 1.0 / hz

    def process(self, narration: Narration) -> NarrationOutcome:
        """Run the tree on one narration and return its record; NarrationFailed if the tree failed."""
        self.providers.begin(narration.id)
        self.tree.blackboard.set("/kg/narration", narration, "treebrain kg")
        self.tree.tick()
        while self.tree.root.status == Status.RUNNING:
            self.tree.clock.sleep(self.period)
            self.tree.tick()
        if self.tree.root.status != Status.SUCCESS:
            raise NarrationFailed(f"{narration.id}: the kitchen tree failed: {self.failure()}")
        outcome: NarrationOutcome = self.tree.blackboard.get("/kg/outcome")
        return outcome

    def process_on(self, kg: KitchenGraph, narration: Narration) -> NarrationOutcome:
        """:meth:`process` on another graph (an evaluation scenario's own)."""
        self.kitchen.kg = kg
        return self.process(narration)

    def failure(self) -> str:
        failed = [
            f"{path}: {node.feedback_message}"
            for path, node in self.tree.nodes.items()
            if node.status == Status.FAILURE and not node.children and node.feedback_message
        ]
        return "; ".join(failed) or "no leaf said why"

    def close(self) -> None:
        self.tree.close()


def _robot_settings(robot: Path) -> RobotSettings:
    compiled = compile_file(robot)
    compiled.raise_for_problems()
    if compiled.robot is None:
        raise InputError.single("expected a robot file (with 'robot:' and 'tree:'), got a tree file", robot)
    return compiled.robot.settings


def open_saved_graph(args: argparse.Namespace) -> KitchenGraphService:
    """The saved graph of `--kg` (default: the robot's), read with the kitchen's vocabulary."""
    paths = kitchen_paths(_robot_settings(args.robot))
    return KitchenGraphService.open(paths.kitchen, args.kg or paths.kg, require_graph=True)


def _where(food: FoodView) -> str:
    return food.location_text.removeprefix("at ")


# ----- ingest -------------------------------------------------------------------------------------
def cmd_ingest(args: argparse.Namespace) -> int:
    session = KitchenSession(
        args.robot,
        provider=args.provider,
        kg=args.kg,
        answers=args.answers,
        llm_extractor=args.llm_extractor,
        hz=args.hz,
    )
    try:
        narrations = read_narrations(args.narrations, session.kitchen.config.columns)
        if session.kitchen.kg_path is None:
            raise InputError.single("no graph file: pass --kg or set driver.params.kg", args.robot)
    except BaseException:
        session.close()
        raise
    console = Console(stderr=True)
    for warning in session.kitchen.load_warnings:
        console.print(f"loaded with a repair: {warning}", highlight=False)
    outcomes: list[NarrationOutcome] = []
    failures: list[str] = []
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    try:
        with Progress(*columns, console=console, disable=args.quiet) as progress:
            task = progress.add_task(f"narrations ({session.profile})", total=len(narrations))
            for done, narration in enumerate(narrations, start=1):
                try:
                    outcomes.append(session.process(narration))
                except NarrationFailed as failure:
                    failures.append(str(failure))
                progress.advance(task)
                if args.save_every and done % args.save_every == 0:
                    session.kitchen.save()
    finally:
        saved = session.kitchen.save()
        session.close()
    _print_ingest_summary(outcomes, failures, saved)
    return EXIT_FAILURE if failures else EXIT_OK


def _print_ingest_summary(outcomes: list[NarrationOutcome], failures: list[str], saved: Path) -> None:
    kinds = Counter(outcome.report.outcome.value for outcome in outcomes)
    retries = sum(outcome.retries for outcome in outcomes)
    low = sum(outcome.report.confidence == "low" for outcome in outcomes)
    print(
        f"{len(outcomes)} narration(s): "
        + ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items()))
    )
    print(f"retries: {retries}; low-confidence rule-based updates: {low}")
    for outcome in outcomes:
        for warning in outcome.report.warnings:
            print(f"warning: {outcome.narration.id}: {warning}")
    for failure in failures:
        print(f"FAILED: {failure}")
    print(f"saved {saved}")


# ----- queries ------------------------------------------------------------------------------------
def _no_match(graph: KitchenGraph, query: str) -> int:
    suggestions = find_foods(graph, query).suggestions
    hint = f"; did you mean: {', '.join(suggestions)}?" if suggestions else ""
    print(f"no food matches {query!r}{hint}")
    return EXIT_FAILURE


def cmd_where(args: argparse.Namespace) -> int:
    graph = open_saved_graph(args).kg
    found = find_foods(graph, args.food)
    if not found.matches:
        return _no_match(graph, args.food)
    for food in found.matches:
        print(
            f"{food.food_id} ({food.name}): {_where(food)}; state {food.state}; last seen {food.last_seen:g} s"
        )
    return EXIT_OK


def cmd_history(args: argparse.Namespace) -> int:
    graph = open_saved_graph(args).kg
    histories = history_of(graph, args.food)
    if not histories:
        return _no_match(graph, args.food)
    console = Console()
    for history in histories:
        food = history.food
        table = Table(
            title=f"{food.food_id} ({food.name}): {_where(food)}, {food.state}", title_justify="left"
        )
        for column in ("time (s)", "action", "narration", "where", "outcome", "note"):
            table.add_column(column)
        for entry in history.interactions:
            note = entry.note + (" [low confidence]" if entry.confidence == "low" else "")
            table.add_row(
                f"{entry.start:g}-{entry.end:g}",
                entry.action,
                entry.narration,
                entry.location_context,
                entry.outcome.value,
                note,
            )
        console.print(table)
    return EXIT_OK


def cmd_show(args: argparse.Namespace) -> int:
    graph = open_saved_graph(args).kg
    foods = food_table(graph)
    table = Table(
        title=f"{len(foods)} food(s), {sum(1 for _ in graph.zone_ids())} zone(s), "
        f"{len(graph.events())} unattributed event(s)",
        title_justify="left",
    )
    table.add_column("food", overflow="fold")
    for column in ("name", "where", "state", "quantity", "last seen (s)", "interactions"):
        table.add_column(column)
    for food in foods:
        table.add_row(
            food.food_id,
            food.name,
            _where(food),
            food.state,
            food.quantity,
            f"{food.last_seen:g}",
            str(len(graph.history(food.food_id))),
        )
    Console().print(table)
    return EXIT_OK


def cmd_draw(args: argparse.Namespace) -> int:
    service = open_saved_graph(args)
    draw_graph(service.kg, args.out, title=f"Kitchen knowledge graph ({args.kg or service.kg_path})")
    print(f"wrote {args.out}")
    return EXIT_OK


# ----- evaluation ---------------------------------------------------------------------------------
def cmd_eval(args: argparse.Namespace) -> int:
    session = KitchenSession(
        args.robot,
        provider=args.provider,
        answers=args.answers,
        llm_extractor=args.llm_extractor,
        hz=args.hz,
    )
    try:
        scenarios = load_eval_set(
            args.scenarios or session.kitchen.kitchen_file.parent / "eval" / "scenarios"
        )
        config = session.kitchen.config
        runs = [run_scenario_with(scenario, config, session.process_on) for scenario in scenarios]
    except NarrationFailed as failure:
        print(f"FAILED: {failure}")
        return EXIT_FAILURE
    finally:
        session.close()
    report = evaluate(scenarios, runs, config.vocabulary.names)
    print(eval_markdown(report, session.profile))
    outcomes = [_outcome_json(outcome) for run in runs for outcome in run.outcomes]
    atomic_write_json(
        args.out, {"profile": session.profile, **report.model_dump(mode="json"), "outcomes": outcomes}
    )
    print(f"\nwrote {args.out}")
    return EXIT_OK


def _outcome_json(outcome: NarrationOutcome) -> dict[str, Any]:
    """What one narration went through, for reading an evaluation run afterwards."""
    report = outcome.report
    return {
        "narration": outcome.narration.id,
        "outcome": report.outcome.value,
        "food_id": report.food_id,
        "confidence": report.confidence,
        "attempt_errors": [list(attempt.errors) for attempt in outcome.attempts],
        "warnings": list(report.warnings),
    }


def eval_markdown(report: EvalReport, profile: str) -> str:
    """The report as a Markdown table, followed by the first mismatches."""
    rows: list[tuple[str, Any]] = [
        ("profile", profile),
        ("scenarios", report.scenarios),
        ("narrations", report.narrations),
        ("update-type accuracy", f"{report.update_type_accuracy:.1%}"),
        ("target-food accuracy", f"{report.target_accuracy:.1%}"),
        ("step accuracy", f"{report.step_accuracy:.1%}"),
        ("final location accuracy", f"{report.location_accuracy:.1%}"),
        ("final state accuracy", f"{report.state_accuracy:.1%}"),
        ("duplicate-node rate", f"{report.duplicate_node_rate:.1%}"),
        ("retries per narration", f"{report.retries_per_narration:.3f}"),
        ("low-confidence fallbacks", f"{report.low_confidence_rate:.1%}"),
    ]
    lines = ["| metric | value |", "|---|---|", *(f"| {name} | {value} |" for name, value in rows)]
    if report.mismatches:
        lines += ["", f"{len(report.mismatches)} mismatch(es):"]
        lines += [f"- {mismatch}" for mismatch in report.mismatches[:MISMATCHES_SHOWN]]
        if len(report.mismatches) > MISMATCHES_SHOWN:
            lines.append(f"- ... and {len(report.mismatches) - MISMATCHES_SHOWN} more (see the JSON file)")
    return "\n".join(lines)


# ----- argument parsing ---------------------------------------------------------------------------
def _graph_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--robot", type=Path, default=DEFAULT_ROBOT, help="robot file (default %(default)s)")
    parser.add_argument("--kg", type=Path, help="graph file (default: the robot's driver.params.kg)")


def _run_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--provider", metavar="PROFILE", help="LLM profile instead of the robot's default")
    parser.add_argument("--answers", type=Path, help="scripted answers for a `scripted` profile")
    parser.add_argument("--llm-extractor", action="store_true", help="read narrations with the LLM first")
    parser.add_argument("--hz", type=float, default=200.0, help="tick rate during LLM calls (default 200)")


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``treebrain kg ingest|where|history|show|draw``."""
    kg = commands.add_parser("kg", help="the kitchen knowledge graph: ingest narrations, query, draw")
    actions = kg.add_subparsers(dest="kg_command", required=True)
    ingest = actions.add_parser("ingest", help="update the graph from a narration file (CSV or JSONL)")
    ingest.add_argument("narrations", type=Path)
    _graph_options(ingest)
    _run_options(ingest)
    ingest.add_argument("--save-every", type=int, default=0, metavar="N", help="also save every N narrations")
    ingest.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    ingest.set_defaults(handler=cmd_ingest)
    for name, handler, summary in (
        ("where", cmd_where, "where a food is (by id, name or synonym)"),
        ("history", cmd_history, "everything that happened to a food"),
    ):
        query = actions.add_parser(name, help=summary)
        query.add_argument("food")
        _graph_options(query)
        query.set_defaults(handler=handler)
    show = actions.add_parser("show", help="every food as a table")
    _graph_options(show)
    show.set_defaults(handler=cmd_show)
    draw = actions.add_parser("draw", help="a picture of the zones, the hands and the foods in each")
    draw.add_argument("--out", type=Path, required=True, help="PNG file to write")
    _graph_options(draw)
    draw.set_defaults(handler=cmd_draw)


def register_eval(evaluations: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``treebrain eval kg``."""
    evaluation = evaluations.add_parser("kg", help="score the kitchen tree on the labelled scenarios")
    evaluation.add_argument(
        "--robot", type=Path, default=DEFAULT_ROBOT, help="robot file (default %(default)s)"
    )
    _run_options(evaluation)
    evaluation.add_argument("--scenarios", type=Path, help="scenario directory (default: the kitchen's)")
    evaluation.add_argument("--out", type=Path, default=EVAL_OUT, help="JSON report (default %(default)s)")
    evaluation.set_defaults(handler=cmd_eval)
