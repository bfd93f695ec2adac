"""``treebrain eval kg``: the kitchen tree on the labelled scenarios, or with ``--stories`` on the
story-consistency suite.

A case is one scenario (its narrations on a freshly seeded graph) or, with ``--stories``, one story
(ingested into an empty graph as ``kg ingest`` would, then scored against the story's true end): the
smallest units whose graph starts from nothing shared, since a narration acts on the graph the
narrations before it left. A scenario passes with no mismatch, a story with no finding (wrong place or
state, invented or duplicate node, misattributed event, lost narration). The summary holds the
scenario metrics (:func:`treebrain.kg.evaluation.evaluate`) or the story table's totals."""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from treebrain.behaviours.kg.service import kitchen_paths
from treebrain.behaviours.llm.service import robot_llm_section
from treebrain.errors import InputError
from treebrain.evaluation.cases import Case, CaseResult, Outcome, Suite, config_root, relative_to_cwd
from treebrain.evaluation.trees import llm_usage, spent
from treebrain.kg.eval_set import Scenario, load_eval_set
from treebrain.kg.evaluation import EvalReport, report_from_counts, run_scenario_with, score_scenario
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import Narration
from treebrain.kg.narrations import read_narration_file
from treebrain.kg.pipeline import NarrationOutcome
from treebrain.kg.stories import (
    LoadedStory,
    StoryProcessor,
    StoryReport,
    StoryScore,
    load_stories,
    run_story,
    story_markdown,
)
from treebrain.kg.truth import TruthReport, VideoScore, load_truth, run_video, truth_markdown
from treebrain.sessions.kitchen import DEFAULT_ROBOT, NO_LLM, KitchenSession, run_options
from treebrain.trees import robot_settings

MISMATCHES_SHOWN = 20
FINDINGS = ("wrong", "invented", "duplicates", "misattributed", "lost")
"""What makes a story fail, as StoryScore names them."""
PLACE_TARGET = 0.9
"""The share of objects with a known place a real video must have right (and nothing invented)."""
VIDEO_TOTALS = (
    "narrations",
    "objects",
    "found",
    "sure",
    "sure_right",
    "likely",
    "likely_right",
    "marked_likely",
    "states",
    "state_right",
    "invented",
    "non_objects",
    "duplicates",
)


def outcome_json(outcome: NarrationOutcome) -> dict[str, Any]:
    """What one narration went through, for reading an evaluation run afterwards."""
    report = outcome.report
    return {
        "narration": outcome.narration.id,
        "outcome": report.outcome.value,
        "food_id": report.food_id,
        "source": report.source,
        "confidence": report.confidence,
        "attempt_errors": [list(attempt.errors) for attempt in outcome.attempts],
        "warnings": list(report.warnings),
    }


def eval_markdown(report: EvalReport, profile: str) -> str:
    """The scenario metrics as a Markdown table, followed by the first mismatches."""
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


def _findings(score: StoryScore) -> list[str]:
    return [f"{field}: {item}" for field in FINDINGS for item in getattr(score, field)]


class KgSuite(Suite):
    name = "kg"

    def __init__(
        self,
        robot: Path,
        provider: str | None,
        *,
        scenarios: Path | None = None,
        stories: Path | None = None,
        truth: Path | None = None,
        narrations: Path | None = None,
        answers: Path | None = None,
        llm_extractor: bool = False,
        rules_first: bool = True,
        classes: tuple[Path | None, Path | None] | None = None,
        hz: float = 200.0,
    ) -> None:
        self.robot = robot
        self.provider = provider
        self.scenarios = scenarios
        self.stories = stories
        self.truth = truth
        self.narrations = narrations
        self.answers = answers
        self.llm_extractor = llm_extractor
        self.rules_first = rules_first
        self.classes = classes
        self.hz = hz

    @property
    def story_mode(self) -> bool:
        return self.stories is not None

    @property
    def mode(self) -> str:
        """What the cases are: labelled scenarios, stories, or real videos against their truth."""
        if self.truth is not None:
            return "videos"
        return "stories" if self.stories is not None else "scenarios"

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.description = f"{parser.description}. --provider {NO_LLM} asks no LLM: the rules decide and flag what they are unsure of."
        parser.add_argument(
            "--robot", type=Path, default=DEFAULT_ROBOT, help="robot file (default: the kitchen's)"
        )
        run_options(parser, provider=False)
        parser.add_argument("--scenarios", type=Path, help="scenario directory (default: the kitchen's)")
        parser.add_argument(
            "--truth",
            type=Path,
            metavar="DIR",
            help="score real narrations against hand-labelled truth files (one per video; needs --narrations)",
        )
        parser.add_argument(
            "--narrations",
            type=Path,
            metavar="FILE",
            help="the narration file the --truth videos come from (e.g. EPIC-KITCHENS' train CSV)",
        )
        parser.add_argument(
            "--stories",
            type=Path,
            nargs="?",
            const=False,
            default=None,
            metavar="DIR",
            help="score the story-consistency suite instead (default DIR: the kitchen's stories)",
        )

    @classmethod
    def from_arguments(cls, args: argparse.Namespace) -> KgSuite:
        robot = relative_to_cwd(args.robot)
        kitchen = kitchen_paths(robot_settings(robot)).kitchen.parent
        stories = None
        if args.stories is not None:
            stories = relative_to_cwd(args.stories or kitchen / "stories")
        if (args.truth is None) != (args.narrations is None):
            raise InputError.single(
                "--truth DIR and --narrations FILE go together", args.truth or args.narrations
            )
        if args.truth is not None and stories is not None:
            raise InputError.single("--truth and --stories are two different suites: choose one", args.truth)
        verbs, nouns = (
            relative_to_cwd(path) if path else None for path in (args.verb_classes, args.noun_classes)
        )
        return cls(
            robot,
            args.provider,
            scenarios=relative_to_cwd(args.scenarios or kitchen / "eval" / "scenarios"),
            stories=stories,
            truth=relative_to_cwd(args.truth) if args.truth else None,
            narrations=relative_to_cwd(args.narrations) if args.narrations else None,
            answers=relative_to_cwd(args.answers) if args.answers else None,
            llm_extractor=args.llm_extractor,
            rules_first=args.rules_first,
            classes=(verbs, nouns) if verbs or nouns else None,
            hz=args.hz,
        )

    def settings(self) -> dict[str, Any]:
        return {
            "robot": str(self.robot),
            "provider": self.provider,
            "cases": self.mode,
            "data": str(self.truth or self.stories or self.scenarios),
            "narrations": str(self.narrations) if self.narrations else None,
            "answers": str(self.answers) if self.answers else None,
            "llm_extractor": self.llm_extractor,
            "rules_first": self.rules_first,
            "classes": None if self.classes is None else [str(p) if p else None for p in self.classes],
            "hz": self.hz,
        }

    def cases(self) -> list[Case]:
        if self.truth is not None:
            return [
                Case(loaded.truth.video, "video", data={"truth": str(relative_to_cwd(loaded.path))})
                for loaded in load_truth(self.truth)
            ]
        if self.stories is not None:
            return [
                Case(loaded.story.id, "story", data={"story": self._relative(loaded)})
                for loaded in load_stories(self.stories)
            ]
        assert self.scenarios is not None
        return [
            Case(scenario.id, "scenario", data={"scenario": scenario.model_dump(mode="json")})
            for scenario in load_eval_set(self.scenarios)
        ]

    @staticmethod
    def _relative(loaded: LoadedStory) -> dict[str, Any]:
        moved = loaded.model_copy(update={"narrations_path": relative_to_cwd(loaded.narrations_path)})
        return moved.model_dump(mode="json")

    def files(self) -> list[Path]:
        root = config_root(self.robot)
        data = [
            self.truth or self.stories or self.scenarios,
            self.narrations,
            self.answers,
            *(self.classes or ()),
        ]
        return [root, *(path for path in data if path is not None and not path.is_relative_to(root))]

    def open(self) -> KitchenSession:
        return KitchenSession(
            self.robot,
            provider=self.provider,
            answers=self.answers,
            llm_extractor=self.llm_extractor,
            rules_first=self.rules_first,
            fresh=True,  # the cases bring their own graphs: the robot's graph file is never read
            dataset_classes=self.classes,
            hz=self.hz,
        )

    def run(self, state: KitchenSession, case: Case) -> Outcome:
        before = llm_usage(state.tree)
        if "truth" in case.data:
            return self._run_video(state, Path(case.data["truth"]), before)
        if "story" in case.data:
            return self._run_story(state, LoadedStory.model_validate(case.data["story"]), before)
        scenario = Scenario.model_validate(case.data["scenario"])
        config = state.kitchen.config
        started = time.perf_counter()
        run = run_scenario_with(scenario, config, state.process_on)
        seconds = time.perf_counter() - started
        counts, mismatches = score_scenario(scenario, run, config.vocabulary.names)
        tokens, cost = spent(before, llm_usage(state.tree))
        shown = "; ".join(mismatches[:3]) + (
            f"; ... {len(mismatches) - 3} more" if len(mismatches) > 3 else ""
        )
        return Outcome(
            passed=not mismatches,
            reason=f"{len(mismatches)} mismatch(es): {shown}" if mismatches else "",
            detail={
                "counts": dict(sorted(counts.items())),
                "mismatches": mismatches,
                "outcomes": [outcome_json(outcome) for outcome in run.outcomes],
            },
            tokens=tokens,
            cost_usd=cost,
            measured={"seconds": round(seconds, 4)},
        )

    def _run_story(self, state: KitchenSession, loaded: LoadedStory, before: Any) -> Outcome:
        return _scored_run(
            state,
            before,
            lambda process: run_story(loaded, state.kitchen.config, process),
            _findings,
            "finding(s)",
        )

    def _run_video(self, state: KitchenSession, truth_file: Path, before: Any) -> Outcome:
        assert self.narrations is not None
        loaded = next(item for item in load_truth(truth_file.parent) if item.path == truth_file)
        narrations = read_narration_file(self.narrations, state.kitchen.config.columns).narrations
        return _scored_run(
            state,
            before,
            lambda process: run_video(loaded, narrations, state.kitchen.config, process),
            _video_misses,
            "short of the targets",
        )

    def close(self, state: KitchenSession) -> None:
        state.close()

    def profile(self) -> str:
        """The LLM profile the cases ran with: --provider, else the robot file's default."""
        if self.provider:
            return self.provider
        return robot_llm_section(robot_settings(self.robot)).default

    def summary(self, results: list[CaseResult]) -> dict[str, Any]:
        finished = [result for result in results if result.status != "error"]
        if self.truth is not None:
            videos = TruthReport(videos=tuple(_video_score(result) for result in finished))
            return {
                "label": f"real videos ({self.truth}), provider {self.profile()}",
                "videos": [score.model_dump(mode="json", exclude={"seconds"}) for score in videos.videos],
                **{field: videos.total(field) for field in VIDEO_TOTALS},
                "measured": {"seconds": {score.video: score.seconds for score in videos.videos}},
            }
        if self.story_mode:
            report = StoryReport(stories=tuple(_score(result) for result in finished))
            label = f"story suite, provider {self.profile()}" + (
                "" if self.rules_first else ", LLM asked first"
            )
            return {
                "label": label,
                "stories": [score.model_dump(mode="json", exclude={"seconds"}) for score in report.stories],
                "narrations": report.narrations,
                "location_accuracy": report.location_accuracy,
                "state_accuracy": report.state_accuracy,
                **{
                    field: report.total(field)
                    for field in (*FINDINGS, "unattributed", "expected_unattributed")
                },
                "measured": {"seconds": {score.story: score.seconds for score in report.stories}},
            }
        counts: Counter[str] = Counter()
        mismatches: list[str] = []
        for result in results:
            if result.status == "error":
                mismatches.append(f"{result.id}: no run ({result.reason})")
                continue
            counts.update(result.detail["counts"])
            mismatches.extend(result.detail["mismatches"])
        metrics = report_from_counts(len(results), counts, mismatches)
        return {"profile": self.profile(), **metrics.model_dump(mode="json")}

    @classmethod
    def markdown(cls, summary: dict[str, Any]) -> str:
        if "videos" in summary:
            seconds = summary.get("measured", {}).get("seconds", {})
            videos = tuple(
                VideoScore.model_validate({**score, "seconds": seconds.get(score["video"], 0.0)})
                for score in summary["videos"]
            )
            return truth_markdown(TruthReport(videos=videos), summary["label"]) + "\n"
        if "stories" in summary:
            seconds = summary.get("measured", {}).get("seconds", {})
            scores = tuple(
                StoryScore.model_validate({**score, "seconds": seconds.get(score["story"], 0.0)})
                for score in summary["stories"]
            )
            return story_markdown(StoryReport(stories=scores), summary["label"]) + "\n"
        fields = {key: summary[key] for key in EvalReport.model_fields}
        return eval_markdown(EvalReport.model_validate(fields), summary["profile"]) + "\n"


ScoreT = TypeVar("ScoreT", StoryScore, VideoScore)


def _scored_run(
    state: KitchenSession,
    before: Any,
    run: Callable[[StoryProcessor], ScoreT],
    misses: Callable[[ScoreT], list[str]],
    what: str,
) -> Outcome:
    """Run a story or a video through the session's tree, keeping every narration's outcome, and
    judge its score: passed when nothing is amiss."""
    outcomes: list[dict[str, Any]] = []

    def process(kg: KitchenGraph, narration: Narration) -> None:
        outcomes.append(outcome_json(state.process_on(kg, narration)))

    score = run(process)
    tokens, cost = spent(before, llm_usage(state.tree))
    found = misses(score)
    shown = "; ".join(found[:3]) + (f"; ... {len(found) - 3} more" if len(found) > 3 else "")
    return Outcome(
        passed=not found,
        reason=f"{len(found)} {what}: {shown}" if found else "",
        detail={"score": score.model_dump(mode="json", exclude={"seconds"}), "outcomes": outcomes},
        tokens=tokens,
        cost_usd=cost,
        measured={"seconds": round(score.seconds, 4)},
    )


def _video_score(result: CaseResult) -> VideoScore:
    return VideoScore.model_validate(
        {**result.detail["score"], "seconds": result.measured.get("seconds", 0.0)}
    )


def _video_misses(score: VideoScore) -> list[str]:
    """What keeps a video from the targets: place right below 90 %, any invented object or
    non-object made an object."""
    misses = [f"invented: {item}" for item in score.invented]
    misses += [f"non-object: {item}" for item in score.non_objects]
    if score.places and score.place_right < PLACE_TARGET * score.places:
        misses.append(f"place right {score.place_right}/{score.places}")
        misses += [f"wrong: {item}" for item in score.wrong]
    return misses


def _score(result: CaseResult) -> StoryScore:
    return StoryScore.model_validate(
        {**result.detail["score"], "seconds": result.measured.get("seconds", 0.0)}
    )
