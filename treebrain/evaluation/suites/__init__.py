"""The suites ``treebrain eval`` runs, by name. A suite's module is imported only when the suite is
chosen (its simulator or data library is not needed to list the others)."""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from treebrain.evaluation.cases import Suite


@dataclass(frozen=True)
class SuiteEntry:
    """A suite by name: one line of help, where its class is (``module:Class``) and the extra it
    needs (its simulator), if any."""

    name: str
    help: str
    location: str
    extra: str | None = None

    def load(self) -> type[Suite]:
        module, _, name = self.location.partition(":")
        suite: type[Suite] = getattr(importlib.import_module(module), name)
        return suite


_HERE = __name__
SUITES: dict[str, SuiteEntry] = {
    entry.name: entry
    for entry in (
        SuiteEntry(
            "tdl",
            "the TDL verifier on its labelled dataset (600 examples from a seed, or a JSONL file)",
            f"{_HERE}.tdl:TdlSuite",
        ),
        SuiteEntry(
            "overhead",
            "trivial cases: the runner's own cost per case on a backend, and a check that it works",
            f"{_HERE}.overhead:OverheadSuite",
        ),
        SuiteEntry(
            "navigation",
            "the A/B protocol on IR-SIM: frontier vs LLM vs hybrid exploration, one mission per case",
            f"{_HERE}.navigation:NavigationSuite",
            extra="nav",
        ),
        SuiteEntry(
            "manipulation",
            "success rate, steps and wall time of the manipulation trees over many seeds",
            f"{_HERE}.manipulation:ManipulationSuite",
            extra="sim",
        ),
        SuiteEntry(
            "planning",
            "the LLM skill planner on LIBERO's task files: validity and symbolic success",
            f"{_HERE}.planning:PlanningSuite",
        ),
        SuiteEntry(
            "grounding",
            "LLM grounding on LIBERO's task files: source and target against the goal",
            f"{_HERE}.planning:GroundingSuite",
        ),
        SuiteEntry(
            "language",
            "labelled language tasks on robosuite: grounding, planning, skills, the simulator's check",
            f"{_HERE}.language:LanguageSuite",
            extra="sim",
        ),
        SuiteEntry(
            "voice",
            "the voice observation suite through the robot's voice tree on a simulated arm",
            f"{_HERE}.voice:VoiceSuite",
        ),
        SuiteEntry(
            "kg",
            "the kitchen tree on the labelled scenarios, or (--stories) on the story-consistency suite",
            f"{_HERE}.kg:KgSuite",
        ),
    )
}
