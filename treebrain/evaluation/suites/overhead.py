"""``treebrain eval overhead``: trivial cases that measure what the runner itself costs per case on a
backend (a pool, a Ray cluster), and check that a cluster runs treebrain jobs at all."""

from __future__ import annotations

import argparse
import time
from typing import Any

from treebrain.errors import InputError
from treebrain.evaluation.cases import Case, CaseResult, Outcome, Suite


class OverheadSuite(Suite):
    name = "overhead"

    def __init__(self, count: int, work_ms: float) -> None:
        self.count = count
        self.work_ms = work_ms

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--cases", type=int, default=200, help="how many cases (default %(default)s)")
        parser.add_argument(
            "--work-ms", type=float, default=0.0, help="busy time per case in milliseconds (default 0)"
        )

    @classmethod
    def from_arguments(cls, args: argparse.Namespace) -> OverheadSuite:
        if args.cases < 1 or args.work_ms < 0:
            raise InputError.single("--cases must be >= 1 and --work-ms >= 0")
        return cls(args.cases, args.work_ms)

    def settings(self) -> dict[str, Any]:
        return {"cases": self.count, "work_ms": self.work_ms}

    def cases(self) -> list[Case]:
        return [
            Case(f"case-{number:05d}", f"group-{number % 4}", seed=number) for number in range(self.count)
        ]

    def files(self) -> list[Any]:
        return []

    def open(self) -> None:
        return None

    def run(self, state: None, case: Case) -> Outcome:
        ends = time.perf_counter() + self.work_ms / 1000
        while time.perf_counter() < ends:
            pass
        return Outcome(
            passed=case.seed % 10 != 0,
            detail={"seed": case.seed},
            reason="" if case.seed % 10 else "every tenth case fails, so reports show both",
        )

    def summary(self, results: list[CaseResult]) -> dict[str, Any]:
        return {"seeds": sum(result.detail.get("seed", 0) for result in results)}
