"""Suites that misbehave on purpose, for the runner's tests: a case that kills its worker, one that
hangs, one that raises. Each misbehaves only on its first attempt (a marker file remembers, across
worker processes), so the retry shows; `always` makes it misbehave every time."""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import Any

from treebrain.evaluation.cases import Case, Outcome, Suite


class MisbehavingSuite(Suite):
    name = "misbehaving"
    help = "test suite"

    def __init__(self, markers: Path, faults: dict[str, str], always: bool = False, count: int = 6) -> None:
        self.markers = markers
        self.faults = faults
        self.always = always
        self.count = count

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        raise NotImplementedError("built directly by the tests")

    @classmethod
    def from_arguments(cls, args: argparse.Namespace) -> MisbehavingSuite:
        raise NotImplementedError("built directly by the tests")

    def settings(self) -> dict[str, Any]:
        return {"faults": self.faults, "always": self.always}

    def cases(self) -> list[Case]:
        return [
            Case(f"c{number}", "odd" if number % 2 else "even", seed=number) for number in range(self.count)
        ]

    def files(self) -> list[Path]:
        return []

    def open(self) -> str:
        return f"opened by {os.getpid()}"

    def run(self, state: str, case: Case) -> Outcome:
        fault = self.faults.get(case.id)
        marker = self.markers / case.id
        first = not marker.exists()
        marker.touch()
        if fault and (first or self.always):
            if fault == "exit":
                os._exit(3)
            if fault == "hang":
                time.sleep(3600)
            if fault == "raise":
                raise ValueError(f"{case.id} broke")
        return Outcome(
            passed=case.seed % 3 != 0, detail={"seed": case.seed, "state": state.startswith("opened")}
        )


class UnopenableSuite(MisbehavingSuite):
    def open(self) -> str:
        raise FileNotFoundError("robot.yaml is missing")
