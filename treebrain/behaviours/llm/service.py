"""The per-tree LLM service: the robot's profiles, providers built on first use, one usage ledger
and the tree's budget, and an ``llm_call`` event for every finished call (recordings, viewer).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from treebrain.behaviours.context import RobotSettings, TreeContext
from treebrain.behaviours.run_limits import RunLimits
from treebrain.errors import InputError, Location, Problem
from treebrain.llm import (
    Budget,
    LLMCall,
    LLMError,
    LLMRequest,
    LLMResponse,
    LLMSection,
    Provider,
    RetryPolicy,
    UsageLedger,
    build_provider,
    parse_llm_section,
    start_call,
)
from treebrain.llm.budget import stricter
from treebrain.llm.profiles import LocalProfile, ReplayProfile, ScriptedProfile
from treebrain.yaml_source import located

ProviderFactory = Callable[[str, LLMSection, Path], Provider]


def _default_factory(name: str, section: LLMSection, base_dir: Path) -> Provider:
    return build_provider(name, section, base_dir=base_dir)


def robot_llm_section(robot: RobotSettings) -> LLMSection:
    """The robot file's ``llm:`` section, validated (raises InputError located in the file)."""
    file = str(robot.file or "")

    def locate(path: tuple[str | int, ...]) -> tuple[int, int]:
        where = located(robot.llm, path, Location(file))
        return where.line, where.column

    return parse_llm_section(robot.llm or None, file=file, locate=locate)


def llm_section_problems(robot: RobotSettings) -> list[Problem]:
    """What is wrong with the robot file's ``llm:`` section, every file it names included (a script
    or cassette to play, a model file): checked once per robot file, before the first tick."""
    try:
        section = robot_llm_section(robot)
    except InputError as error:
        return error.problems
    problems: list[Problem] = []
    for name, profile in section.profiles.items():
        named = {
            "responses_file": getattr(profile, "responses_file", None)
            if isinstance(profile, ScriptedProfile)
            else None,
            "cassette": profile.cassette if isinstance(profile, ReplayProfile) else None,
            "model_path": profile.model_path if isinstance(profile, LocalProfile) else None,
        }
        for option, relative in named.items():
            if relative is not None and not (robot.base_dir / relative).is_file():
                where = located(robot.llm, ("profiles", name, option), Location(str(robot.file or "")))
                found = robot.base_dir / relative
                problems.append(Problem(where, f"llm.profiles.{name}.{option}: file not found: {found}"))
    return problems


def choose_default_profile(robot: RobotSettings, profile: str | None) -> None:
    """Make `profile` the robot's default LLM profile for this run (``--provider``), before the first
    tick; an unknown name is an InputError listing the robot's profiles."""
    if profile is None:
        return
    profiles = robot_llm_section(robot).profiles
    if profile not in profiles:
        known = ", ".join(sorted(profiles))
        raise InputError.single(
            f"--provider: no LLM profile {profile!r} (profiles: {known})", robot.file or ""
        )
    robot.llm = {**robot.llm, "default": profile}


def check_profile(robot: RobotSettings, profile: str | None) -> list[str]:
    """Load-time problems of a leaf's profile choice (the section itself is checked once, by
    :func:`llm_section_problems`)."""
    try:
        section = robot_llm_section(robot)
    except InputError:
        return []
    if profile is not None and profile not in section.profiles:
        return [f"no LLM profile '{profile}' (profiles: {', '.join(sorted(section.profiles))})"]
    return []


class LLMService:
    """Providers and accounting shared by the LLM leaves of one tree."""

    def __init__(
        self,
        section: LLMSection,
        context: TreeContext,
        base_dir: Path,
        factory: ProviderFactory = _default_factory,
    ) -> None:
        self.section = section
        self.context = context
        self.base_dir = base_dir
        self.factory = factory
        self.ledger = UsageLedger()
        self._providers: dict[str, Provider] = {}
        limits = RunLimits.from_context(context).settings
        self.tree_budget = stricter(
            section.budget, Budget(max_calls=limits.max_llm_calls, max_cost_usd=limits.max_cost_usd)
        )
        """The llm section's budget and the robot's run limits together."""

    @classmethod
    def from_context(cls, context: TreeContext) -> LLMService:
        return cls(robot_llm_section(context.robot), context, context.robot.base_dir)

    def profile_name(self, profile: str | None) -> str:
        return profile or self.section.default

    def provider(self, profile: str | None) -> Provider:
        """The provider of a profile, built once (raises LLMError(config) when it cannot be)."""
        name = self.profile_name(profile)
        existing = self._providers.get(name)
        if existing is None:
            existing = self.factory(name, self.section, self.base_dir)
            self._providers[name] = existing
        return existing

    def start(
        self,
        node_path: str,
        request: LLMRequest,
        profile: str | None,
        leaf_budget: Budget | None,
        retry: RetryPolicy | None,
    ) -> LLMCall:
        return start_call(
            self.provider(profile),
            request,
            clock=self.context.clock,
            node_path=node_path,
            retry=retry,
            ledger=self.ledger,
            leaf_budget=leaf_budget,
            tree_budget=self.tree_budget,
        )

    def report(
        self, node_path: str, profile: str | None, request: LLMRequest, outcome: LLMResponse | LLMError
    ) -> None:
        """Emit the finished call (never the API key: requests and responses carry none)."""
        data: dict[str, Any] = {
            "profile": self.profile_name(profile),
            "request": request.model_dump(mode="json"),
        }
        if isinstance(outcome, LLMError):
            data["error"] = outcome.to_json()
        else:
            data["response"] = outcome.model_dump(mode="json")
        self.context.emit("llm_call", node_path, data)

    def usage(self) -> dict[str, Any]:
        return self.ledger.summary()

    def close(self) -> None:
        for provider in self._providers.values():
            provider.close()
        self._providers.clear()
