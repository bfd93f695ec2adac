"""Shared fixtures for the TDL tests: the shipped configuration and robot specs, loaded once."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from treebrain.tdl.commands import CommandSet
from treebrain.tdl.findings import Finding, Level
from treebrain.tdl.model import ProgramModel
from treebrain.tdl.pipeline import TdlConfig, analyse_source, load_tdl_config, run_rule_level
from treebrain.tdl.robots import RobotSpec, load_robot_spec

ROBOTS = ("ur10e", "doosan_m1013", "abb_gofa")


@pytest.fixture(scope="session")
def config() -> TdlConfig:
    return load_tdl_config()


@pytest.fixture(scope="session")
def commands(config: TdlConfig) -> CommandSet:
    return config.commands


@pytest.fixture(scope="session")
def robots() -> dict[str, RobotSpec]:
    return {name: load_robot_spec(name) for name in ROBOTS}


@pytest.fixture(scope="session")
def ur10e(robots: dict[str, RobotSpec]) -> RobotSpec:
    return robots["ur10e"]


@pytest.fixture(scope="session")
def analyse(config: TdlConfig) -> Callable[[str], ProgramModel]:
    return lambda source: analyse_source(source, config.commands)


@pytest.fixture(scope="session")
def findings(config: TdlConfig, ur10e: RobotSpec) -> Callable[..., list[tuple[str, str, int, str]]]:
    """Run one rule level on a source: (rule id, severity, line, message) of each finding."""

    def run(source: str, level: Level, robot: RobotSpec | None = None) -> list[tuple[str, str, int, str]]:
        model = analyse_source(source, config.commands)
        result = run_rule_level(level, model, robot or ur10e, config)
        return [_short(finding) for finding in result.findings]

    return run


def _short(finding: Finding) -> tuple[str, str, int, str]:
    return finding.rule_id, finding.severity.value, finding.line, finding.message
