"""``treebrain eval navigation``: the seed's A/B protocol on IR-SIM (§6.9) -- each mode on each map
for each seed, on simulated time, with the robot file's tree; one mission per case, categorised by
its mode, so the report's pass rate per category compares frontier, LLM and hybrid exploration.

A mission passes when it collides with nothing and sees at least ``--min-coverage`` of the reachable
free cells; a failed one carries a picture of where it ended (its trail, what it saw). The summary
holds the protocol's scores per mode and map (:func:`treebrain.navigation.evaluation.report`):
coverage over time, collisions, stuck events, distance, decisions, tokens and cost.

The LLM's calls are answered by the rule-based stand-in (``standin``, offline and instant) unless
``--provider`` names a profile of the robot file (``scripted``, ``local``, a cloud one when its key
is set). The frontier mode asks no model.
"""

from __future__ import annotations

import argparse
import math
import os
import time
from pathlib import Path
from typing import Any

from treebrain.behaviours.context import RunOptions
from treebrain.behaviours.llm.service import choose_default_profile
from treebrain.behaviours.navigation.service import NavigationService
from treebrain.clock import FakeClock
from treebrain.errors import InputError
from treebrain.evaluation.cases import (
    Case,
    CaseResult,
    Outcome,
    Suite,
    comma_list,
    config_root,
    relative_to_cwd,
)
from treebrain.evaluation.trees import llm_usage
from treebrain.navigation.drawing import draw_mission
from treebrain.navigation.evaluation import MissionRecord, report, shortfall, table
from treebrain.navigation.standin import FrontierStandIn
from treebrain.robots.errors import SimulatorFault
from treebrain.sessions.providers import install_provider
from treebrain.trees import TreebrainTree, compile_file, shared_registry
from treebrain.trees.loader import build_tree
from treebrain.trees.runner import Runner

MODES = ("frontier", "llm", "hybrid")
STANDIN = "standin"
SAMPLE_S = 10.0
"""Simulated seconds between two points of a mission's coverage curve."""
PICTURE_PIXELS = 600
"""The longest side of a failed mission's picture, at most (one pixel a cell at least)."""
DEFAULT_ROBOT = Path("config/robots/turtlebot.yaml")


def run_mission(
    robot: Path, mode: str, map_file: Path | None, seed: int, duration_s: float, provider: str | None
) -> MissionRecord:
    """One mission of `robot`'s tree on simulated time; its record."""
    return fly_mission(robot, mode, map_file, seed, duration_s, provider)[0]


def fly_mission(
    robot: Path,
    mode: str,
    map_file: Path | None,
    seed: int,
    duration_s: float,
    provider: str | None,
    picture_pixels: int = PICTURE_PIXELS,
) -> tuple[MissionRecord, bytes]:
    """One mission of `robot`'s tree on simulated time (a fresh tree, driver and clock): its record
    and a PNG of where it ended. `provider` is ``standin``, a profile of the robot file, or None
    (the robot file's default; the frontier mode asks no model)."""
    compiled = compile_file(robot, values={"/nav/mode": mode})
    compiled.raise_for_problems()
    tree = build_tree(compiled, clock=FakeClock())
    curve: list[tuple[float, float]] = []

    def sample(ticked: object, stats: object) -> None:
        service = tree.context.services.get(NavigationService)
        if service is None or service.mission is None:
            return
        now = service.now()
        if not curve or now - curve[-1][0] >= SAMPLE_S:
            curve.append((round(now, 1), round(service.mission.coverage(), 4)))

    started = time.perf_counter()
    try:
        tree.context.run = RunOptions(seed=seed, map=map_file, duration_s=duration_s)
        if provider == STANDIN:
            install_provider(tree, FrontierStandIn())
        elif provider is not None:
            choose_default_profile(tree.context.robot, provider)
        Runner(tree, 1.0 / service_step(tree), on_tick=sample).run()
        service = tree.context.service(NavigationService)
        if service.simulator_fault is not None:
            raise SimulatorFault(service.simulator_fault)
        summary = service.summary()
        mission, seen = service.require()
        picture = draw_mission(mission, seen, service.driver.world, "", picture_pixels)
        usage = llm_usage(tree)
        map_name = (map_file or Path(service.driver.params.map)).name
    finally:
        tree.close()
    record = MissionRecord(
        mode=mode,
        map=map_name,
        seed=seed,
        duration_s=duration_s,
        coverage=summary["coverage"],
        coverage_over_time=[*curve, (summary["time_s"], summary["coverage"])],
        collisions=summary["collisions"],
        stuck_events=summary["stuck_events"],
        distance_m=summary["distance_m"],
        decisions=summary["decisions"],
        refused_calls=summary["refused_calls"],
        safety_overrides=summary["safety_overrides"],
        tokens=usage.tokens,
        cost_usd=round(usage.cost_usd, 6),
        wall_s=round(time.perf_counter() - started, 2),
    )
    return record, picture


def service_step(tree: TreebrainTree) -> float:
    """The simulator's step (one tick per step)."""
    return float(tree.context.robot.driver.get("params", {}).get("step_s", 0.1))


def _fraction(text: str) -> float:
    number = float(text)
    if not 0 <= number <= 1:
        raise argparse.ArgumentTypeError(f"expected a fraction from 0 to 1, got {text}")
    return number


class NavigationSuite(Suite):
    name = "navigation"

    def __init__(
        self,
        robot: Path,
        modes: list[str],
        maps: list[Path],
        seeds: int,
        duration_s: float,
        provider: str,
        min_coverage: float,
    ) -> None:
        self.robot = robot
        self.modes = modes
        self.maps = maps
        self.seeds = seeds
        self.duration_s = duration_s
        self.provider = provider
        self.min_coverage = min_coverage

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--robot", type=Path, default=DEFAULT_ROBOT, help="the robot file (default %(default)s)"
        )
        parser.add_argument(
            "--modes",
            type=comma_list,
            default=list(MODES),
            help="comma-separated: frontier,llm,hybrid (default all)",
        )
        parser.add_argument(
            "--maps",
            type=comma_list,
            default=[],
            help="comma-separated map_server YAML files (default: the robot's)",
        )
        parser.add_argument("--seeds", type=int, default=1, help="missions per mode and map (default 1)")
        parser.add_argument(
            "--duration", type=float, default=300.0, help="simulated seconds per mission (default 300)"
        )
        parser.add_argument(
            "--min-coverage",
            type=_fraction,
            default=0.9,
            metavar="FRACTION",
            help="a mission passes with no collision and at least this coverage (default %(default)s)",
        )
        parser.epilog = (
            "--provider: standin (the default: offline rules) or a profile of the robot file; "
            "the frontier mode asks no model"
        )

    @classmethod
    def from_arguments(cls, args: argparse.Namespace) -> NavigationSuite:
        unknown = [mode for mode in args.modes if mode not in MODES]
        if unknown:
            raise InputError.single(
                f"--modes: unknown {', '.join(unknown)} (valid: {', '.join(MODES)})", "<command line>"
            )
        if not args.modes:
            raise InputError.single("--modes: name at least one mode", "<command line>")
        maps = [Path(name) for name in args.maps]
        missing = [str(path) for path in maps if not path.is_file()]
        if missing:
            raise InputError.single(f"--maps: no such file {', '.join(missing)}", "<command line>")
        if args.seeds < 1 or not math.isfinite(args.duration) or args.duration <= 0:
            raise InputError.single("--seeds must be at least 1 and --duration positive", "<command line>")
        # IR-SIM's numpy on one thread per worker: the workers are the parallelism, and BLAS threads
        # fighting over the cores slow every mission down (the workers inherit this environment)
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        return cls(
            relative_to_cwd(args.robot),
            list(dict.fromkeys(args.modes)),
            [relative_to_cwd(path) for path in dict.fromkeys(maps)],
            args.seeds,
            args.duration,
            args.provider or STANDIN,
            args.min_coverage,
        )

    def settings(self) -> dict[str, Any]:
        return {
            "robot": str(self.robot),
            "modes": self.modes,
            "maps": [str(path) for path in self.maps] or "the robot's",
            "seeds": self.seeds,
            "duration_s": self.duration_s,
            "provider": self.provider,
            "min_coverage": self.min_coverage,
        }

    def cases(self) -> list[Case]:
        compiled = compile_file(self.robot)
        compiled.raise_for_problems()
        assert compiled.robot is not None, "compile_file found no robot file without a problem"
        robot = compiled.robot.settings
        checks = shared_registry().run_checks()
        problems = [
            problem
            for path in self.maps
            for check in checks
            for problem in check(robot, RunOptions(map=path))
        ]
        if problems:
            raise InputError(problems)
        if self.provider != STANDIN and any(mode != "frontier" for mode in self.modes):
            choose_default_profile(robot, self.provider)  # an unknown profile: one line, before any case
        own_map = Path(str(robot.driver.get("params", {}).get("map", "map"))).stem
        maps: list[Path | None] = [*self.maps] or [None]
        cases = [
            Case(
                f"{mode}-{path.stem if path else own_map}-{seed}",
                mode,
                seed,
                {"mode": mode, "map": str(path) if path else None, "duration_s": self.duration_s},
            )
            for mode in self.modes
            for path in maps
            for seed in range(self.seeds)
        ]
        if len({case.id for case in cases}) < len(cases):
            raise InputError.single("--maps: two maps have the same file name", "<command line>")
        return cases

    def files(self) -> list[Path]:
        return [config_root(self.robot), *dict.fromkeys(path.parent for path in self.maps)]

    def open(self) -> None:
        return None

    def run(self, state: None, case: Case) -> Outcome:
        mode = case.data["mode"]
        map_file = Path(case.data["map"]) if case.data["map"] else None
        provider = None if mode == "frontier" else self.provider
        record, picture = fly_mission(
            self.robot, mode, map_file, case.seed, case.data["duration_s"], provider
        )
        reason = shortfall(record, self.min_coverage)
        return Outcome(
            passed=not reason,
            reason=reason,
            detail=record.model_dump(mode="json", exclude={"wall_s"}),
            tokens=record.tokens,
            cost_usd=record.cost_usd,
            media={"mission.png": picture} if reason else {},
            measured={"wall_s": record.wall_s},
        )

    def summary(self, results: list[CaseResult]) -> dict[str, Any]:
        flown = [result for result in results if result.status != "error"]
        records = [
            MissionRecord.model_validate({**result.detail, "wall_s": result.measured.get("wall_s", 0.0)})
            for result in flown
        ]
        simulated = sum(record.coverage_over_time[-1][0] for record in records if record.coverage_over_time)
        wall = sum(record.wall_s for record in records)
        return {
            "min_coverage": self.min_coverage,
            "modes": report(records)["modes"],
            "measured": {
                "simulated_s": round(simulated, 1),
                "wall_s": round(wall, 2),
                "x_real_time": round(simulated / wall, 1) if wall else 0.0,
            },
        }

    @classmethod
    def markdown(cls, summary: dict[str, Any]) -> str:
        lines = [
            f"## Exploration per mode and map (a mission passes with no collision and coverage >= "
            f"{summary['min_coverage'] * 100:g}%)\n",
            table(summary["modes"]),
        ]
        measured = summary.get("measured", {})
        if measured.get("wall_s"):
            lines.append(
                f"\n{measured['simulated_s']:.0f} simulated seconds in {measured['wall_s']:.1f} s of missions "
                f"({measured['x_real_time']:.1f} x real time)"
            )
        return "\n".join(lines) + "\n"
