"""What a suite is to the runner: a list of independent cases, a way to run one in a worker, and a
summary of all the results. A suite object travels to its workers by pickling, so it holds only
settings (paths, names, numbers); what is expensive to build (a loaded tree) is made once per worker
by :meth:`Suite.open`."""

from __future__ import annotations

import argparse
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

Status = Literal["pass", "fail", "error"]


@dataclass(frozen=True)
class Case:
    """One job: its id (unique in the suite), the category reports group it under, its own seed and
    the JSON-able data the suite's :meth:`Suite.run` needs."""

    id: str
    category: str
    seed: int = 0
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Outcome:
    """What a case showed. `detail` is JSON-able and deterministic (it goes into the result file);
    `media` holds images a report shows (file name -> PNG or GIF bytes), for failures mostly."""

    passed: bool
    detail: dict[str, Any] = field(default_factory=dict)
    reason: str = ""
    tokens: int = 0
    cost_usd: float = 0.0
    media: dict[str, bytes] = field(default_factory=dict)
    measured: dict[str, Any] = field(default_factory=dict)
    """Timings the suite took itself (per-level milliseconds): kept with the measurements."""
    recordings: list[bytes] = field(default_factory=list)
    """With ``--record``: one recording file per run of a tree in the case (set by the runner)."""


@dataclass
class CaseResult:
    """A finished case as the result file holds it. `status` is error when the job crashed, hung or
    lost its worker twice; `latency_s`, `attempts` and `worker` are measurements, which differ from
    run to run and are kept apart from the deterministic fields in the result file."""

    index: int
    id: str
    category: str
    status: Status
    reason: str = ""
    detail: dict[str, Any] = field(default_factory=dict)
    tokens: int = 0
    cost_usd: float = 0.0
    media: list[str] = field(default_factory=list)
    latency_s: float = 0.0
    round_trip_s: float = 0.0
    """From handing the case to a worker to having its result: latency plus the backend's overhead."""
    attempts: int = 1
    worker: str = ""
    measured: dict[str, Any] = field(default_factory=dict)
    recordings: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.status == "pass"

    def outcome_json(self) -> dict[str, Any]:
        """The deterministic part: the same whatever the backend, the worker count or the machine."""
        return {
            "id": self.id,
            "category": self.category,
            "status": self.status,
            "reason": self.reason,
            "tokens": self.tokens,
            "cost_usd": self.cost_usd,
            "detail": self.detail,
            "media": self.media,
        }

    def measured_json(self) -> dict[str, Any]:
        return {
            "latency_s": round(self.latency_s, 4),
            "round_trip_s": round(self.round_trip_s, 4),
            "attempts": self.attempts,
            "worker": self.worker,
            "measured": self.measured,
            "recordings": self.recordings,
        }

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, **self.outcome_json(), **self.measured_json()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CaseResult:
        return cls(**{name: data[name] for name in cls.__dataclass_fields__ if name in data})


class Suite(ABC):
    """A labelled suite. Subclasses set `name`, build themselves from the parsed arguments, list
    their cases in the parent process and run one case at a time in a worker."""

    name: ClassVar[str]
    record = False
    """``--record``: the runner records every tree run of each case (set before the suite travels)."""

    @classmethod
    @abstractmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        """The suite's own options (its data, robot file, filters), beside the runner's common ones."""

    @classmethod
    @abstractmethod
    def from_arguments(cls, args: argparse.Namespace) -> Suite:
        """The suite for these options; reads nothing heavy. Raises InputError for bad options."""

    @abstractmethod
    def settings(self) -> dict[str, Any]:
        """What defines the run (JSON-able): recorded in the result file and compared on --resume."""

    @abstractmethod
    def cases(self) -> list[Case]:
        """The cases, in the order results are reported. Raises InputError when the data is bad."""

    def files(self) -> list[Path]:
        """Files and folders the jobs read, relative to the working folder: shipped to Ray workers."""
        return [Path("config")]

    @abstractmethod
    def open(self) -> Any:
        """Per worker, once: what running a case needs (a loaded tree, a driver)."""

    @abstractmethod
    def run(self, state: Any, case: Case) -> Outcome:
        """One case, isolated from the cases this worker ran before it."""

    def close(self, state: Any) -> None:  # noqa: B027 - most suites have nothing to release
        """Per worker, at the end: release what :meth:`open` made."""

    def summary(self, results: list[CaseResult]) -> dict[str, Any]:
        """The suite's own metrics from the finished cases (JSON-able). Deterministic, but for a key
        ``measured`` (timings), which the result file keeps with the measurements."""
        return {}

    @classmethod
    def markdown(cls, summary: dict[str, Any]) -> str:
        """The suite's own tables, for the terminal and report.md (empty: the runner's table only)."""
        return ""


def comma_list(text: str) -> list[str]:
    """A command-line option's comma-separated names ("Lift,Stack"), blanks dropped."""
    return [part.strip() for part in text.split(",") if part.strip()]


def relative_to_cwd(path: Path) -> Path:
    """`path` relative to the working folder when it lies there: a Ray worker finds it in the files
    that travel with the job."""
    resolved = path.resolve()
    try:
        return resolved.relative_to(Path.cwd())
    except ValueError:
        return path


def config_root(robot: Path) -> Path:
    """The folder whose files a robot file may refer to: its nearest ancestor named ``config``, or
    the robot file's own folder."""
    for parent in robot.parents:
        if parent.name == "config":
            return parent
    return robot.parent
