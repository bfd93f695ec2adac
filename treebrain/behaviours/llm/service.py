"""The per-tree LLM service: the robot's profiles, providers built on first use, one usage ledger
and the tree's budget, and an ``llm_call`` event for every finished call (recordings, viewer).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from treebrain.behaviours.context import RobotSettings, TreeContext
from treebrain.errors import InputError
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

ProviderFactory = Callable[[str, LLMSection, Path], Provider]


def _default_factory(name: str, section: LLMSection, base_dir: Path) -> Provider:
    return build_provider(name, section, base_dir=base_dir)


def robot_llm_section(robot: RobotSettings) -> LLMSection:
    """The robot file's ``llm:`` section, validated (raises InputError with the file)."""
    return parse_llm_section(robot.llm or None, file=str(robot.file or ""))


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
    """Load-time problems of a leaf's profile choice against the robot's ``llm:`` section."""
    try:
        section = robot_llm_section(robot)
    except InputError as error:
        return [f"the robot's llm section is invalid: {problem.message}" for problem in error.problems]
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
            tree_budget=self.section.budget,
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
