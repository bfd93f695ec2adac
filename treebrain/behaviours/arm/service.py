"""The tree's arm: the driver a robot file's ``driver:`` and ``limits:`` sections describe, built once
per tree on first use, so every arm leaf of a tree talks to the same arm and the driver is closed
with the tree.
"""

from __future__ import annotations

from typing import Any

from treebrain.behaviours.context import RobotSettings, TreeContext
from treebrain.errors import Location
from treebrain.robots.arm.drivers import ROBOT_KIND, ArmDriver
from treebrain.robots.registry import build_driver, driver_problems


def _driver_section(robot: RobotSettings) -> tuple[str, dict[str, Any]]:
    section = robot.driver
    return str(section.get("type", "")), dict(section.get("params") or {})


def check_driver(robot: RobotSettings) -> list[str]:
    """Load-time problems of the robot file's driver and limits, for leaves that use the arm."""
    if not robot.driver:
        return ["the robot file has no 'driver:' section for the arm"]
    kind, params = _driver_section(robot)
    return [problem.message for problem in driver_problems(kind, params, robot.limits, robot_kind=ROBOT_KIND)]


class ArmService:
    """The tree's arm driver, built on first use from the robot file."""

    def __init__(self, driver: ArmDriver) -> None:
        self.driver = driver

    @classmethod
    def from_context(cls, context: TreeContext) -> ArmService:
        kind, params = _driver_section(context.robot)
        where = Location(str(context.robot.file or ""))
        driver = build_driver(
            kind,
            params,
            clock=context.clock,
            limits=context.robot.limits,
            base_dir=context.robot.base_dir,
            where=where,
            robot_kind=ROBOT_KIND,
        )
        driver.connect()
        return cls(driver)

    def close(self) -> None:
        self.driver.close()
