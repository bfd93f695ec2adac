"""``treebrain eval tdl``: the TDL verification tree on the labelled dataset, one program per case.
A case passes when the hybrid verdict is the label's; the summary holds the hybrid metrics and the
ablation of the seed's methods. The dataset is the 600-example one built from a seed, or a JSONL file."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from treebrain.behaviours.llm.service import robot_llm_section
from treebrain.errors import InputError
from treebrain.evaluation.cases import Case, CaseResult, Outcome, Suite, config_root, relative_to_cwd
from treebrain.evaluation.trees import WRITER, llm_usage, run_to_end, spent, with_profile
from treebrain.tdl.ablation import AblationRow, ablation
from treebrain.tdl.datafile import default_config_dir
from treebrain.tdl.dataset import DatasetExample, build_dataset, evenly_spaced, read_dataset
from treebrain.tdl.metrics import EvaluationReport, evaluate
from treebrain.tdl.pipeline import load_tdl_config
from treebrain.tdl.report import ValidationLevel, VVReport
from treebrain.tdl.robots import load_robot_spec, robot_names
from treebrain.tdl.semantic import SemanticOutcome
from treebrain.tdl.tables import ablation_markdown, evaluation_markdown
from treebrain.trees import TreebrainTree, load_tree, robot_settings

EVALUATOR = default_config_dir().parent / "robots" / "vv_eval.yaml"
DATASET_SEED = 7


def open_verifier(path: Path, profile: str | None) -> TreebrainTree:
    """The verification tree of a robot file, with `profile` as its LLM default (``--provider``)."""
    return with_profile(load_tree(path), profile)


def why_no_report(tree: TreebrainTree) -> str:
    error = tree.blackboard.get("/vv/error", WRITER, None)
    return str(error) if error else "the verification tree stopped without a report"


def _timeless(report: VVReport) -> tuple[dict[str, Any], dict[str, float]]:
    """A report as JSON without its level timings (they go with the measurements), and the timings."""
    data = report.model_dump(mode="json")
    timings = {}
    for level, result in data["results"].items():
        timings[level] = result.pop("duration_ms", 0.0)
    return data, timings


def _timed(data: dict[str, Any], timings: dict[str, float]) -> VVReport:
    results = {
        level: {**result, "duration_ms": timings.get(level, 0.0)} for level, result in data["results"].items()
    }
    return VVReport.model_validate({**data, "results": results})


class TdlSuite(Suite):
    name = "tdl"

    def __init__(self, verifier: Path, provider: str | None, dataset: Path | None, limit: int | None) -> None:
        self.verifier = verifier
        self.provider = provider
        self.dataset = dataset
        self.limit = limit
        self._examples: list[DatasetExample] | None = None

    def __getstate__(self) -> dict[str, Any]:
        """Workers get their case's example with the case: the settings travel, not the dataset."""
        return {**self.__dict__, "_examples": None}

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "dataset",
            type=Path,
            nargs="?",
            help="labelled examples (JSONL, from `treebrain vv dataset`; default: the 600 built from seed 7)",
        )
        parser.add_argument(
            "--limit", type=int, metavar="N", help="N examples spread evenly over the dataset"
        )
        parser.add_argument(
            "--verifier", type=Path, default=EVALUATOR, help="robot file of the evaluation tree"
        )

    @classmethod
    def from_arguments(cls, args: argparse.Namespace) -> TdlSuite:
        if args.limit is not None and args.limit < 1:
            raise InputError.single(f"--limit: expected a whole number >= 1, got {args.limit}")
        dataset = relative_to_cwd(args.dataset) if args.dataset else None
        return cls(relative_to_cwd(args.verifier), args.provider, dataset, args.limit)

    def settings(self) -> dict[str, Any]:
        return {
            "verifier": str(self.verifier),
            "provider": self.provider,
            "dataset": str(self.dataset) if self.dataset else f"built from seed {DATASET_SEED}",
            "limit": self.limit,
        }

    def examples(self) -> list[DatasetExample]:
        """The chosen examples (read or built once per suite object)."""
        if self._examples is None:
            self._examples = self._read_examples()
        return self._examples

    def _read_examples(self) -> list[DatasetExample]:
        if self.dataset is None:
            robots = {name: load_robot_spec(name) for name in robot_names()}
            examples = build_dataset(DATASET_SEED, robots, load_tdl_config().commands)
        else:
            examples = read_dataset(self.dataset)
        chosen = evenly_spaced(examples, self.limit)
        if not chosen:
            raise InputError.single("the dataset has no examples", str(self.dataset or ""))
        return chosen

    def cases(self) -> list[Case]:
        return [
            Case(example.id, example.category, data=example.model_dump(mode="json"))
            for example in self.examples()
        ]

    def files(self) -> list[Path]:
        return [config_root(self.verifier)]

    def open(self) -> TreebrainTree:
        return open_verifier(self.verifier, self.provider)

    def run(self, state: TreebrainTree, case: Case) -> Outcome:
        example = DatasetExample.model_validate(case.data)
        before = llm_usage(state)
        status = run_to_end(
            state,
            {
                "/vv/source": example.tdl_code,
                "/vv/source_name": example.id,
                "/vv/robot_name": example.robot,
                "/vv/level": ValidationLevel.STANDARD.value,
                "/vv/instruction": example.natural_language,
            },
        )
        board = state.blackboard
        rule_report: VVReport | None = board.get("/vv/report", WRITER, None)
        hybrid: VVReport | None = board.get("/eval/hybrid_report", WRITER, None)
        tokens, cost = spent(before, llm_usage(state))
        if status != "SUCCESS" or rule_report is None or hybrid is None:
            raise RuntimeError(f"not verified: {why_no_report(state)}")
        rules, rule_ms = _timeless(rule_report)
        hybrid_data, hybrid_ms = _timeless(hybrid)
        semantic: SemanticOutcome | None = board.get("/vv/semantic", WRITER, None)
        latency_ms = sum(
            float(usage.get("latency_s") or 0.0) * 1000
            for usage in (board.get(key, WRITER, None) for key in ("/vv/usage/quick", "/vv/usage/detailed"))
            if usage
        )
        verdict = hybrid.verdict
        return Outcome(
            passed=verdict == example.expected_verdict,
            reason=""
            if verdict == example.expected_verdict
            else f"{verdict}, labelled {example.expected_verdict}",
            detail={
                "verdict": verdict,
                "rule_report": rules,
                "hybrid_report": hybrid_data,
                "semantic": semantic.model_dump(mode="json") if semantic else None,
            },
            tokens=tokens,
            cost_usd=cost,
            measured={"rule_ms": rule_ms, "hybrid_ms": hybrid_ms, "llm_latency_ms": latency_ms},
        )

    def close(self, state: TreebrainTree) -> None:
        state.close()

    def summary(self, results: list[CaseResult]) -> dict[str, Any]:
        examples = {example.id: example for example in self.examples()}
        verified = [result for result in results if result.status != "error"]
        chosen = [examples[result.id] for result in verified]
        rule_reports = {
            r.id: _timed(r.detail["rule_report"], r.measured.get("rule_ms", {})) for r in verified
        }
        hybrid = {r.id: _timed(r.detail["hybrid_report"], r.measured.get("hybrid_ms", {})) for r in verified}
        semantic = {
            r.id: SemanticOutcome.model_validate(r.detail["semantic"])
            for r in verified
            if r.detail["semantic"]
        }
        latency = {r.id: float(r.measured.get("llm_latency_ms", 0.0)) for r in verified if r.id in semantic}
        metrics = evaluate(chosen, hybrid, semantic, latency).model_dump(mode="json")
        robots = {name: load_robot_spec(name) for name in sorted({example.robot for example in chosen})}
        rows = [
            row.model_dump(mode="json")
            for row in ablation(chosen, rule_reports, semantic, robots, load_tdl_config(), latency)
        ]
        return {
            "profile": self._profile(),
            "hybrid": {key: value for key, value in metrics.items() if key != "timing"},
            "ablation": [{key: value for key, value in row.items() if key != "mean_ms"} for row in rows],
            "measured": {
                "timing": metrics["timing"],
                "mean_ms": {row["name"]: row["mean_ms"] for row in rows},
            },
        }

    def _profile(self) -> str:
        if self.provider:
            return self.provider
        return robot_llm_section(robot_settings(self.verifier)).default

    @classmethod
    def markdown(cls, summary: dict[str, Any]) -> str:
        measured = summary.get("measured", {})
        metrics = EvaluationReport.model_validate({**summary["hybrid"], "timing": measured.get("timing", [])})
        mean_ms = measured.get("mean_ms", {})
        rows = [{**row, "mean_ms": mean_ms.get(row["name"], 0.0)} for row in summary["ablation"]]
        return "\n".join(
            [
                f"## Hybrid pipeline (LLM profile {summary['profile']})\n",
                evaluation_markdown(metrics),
                "## Ablation\n",
                ablation_markdown([AblationRow.model_validate(row) for row in rows]),
            ]
        )
