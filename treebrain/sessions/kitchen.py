"""The kitchen tree run once per narration, on the kitchen's graph or on one given to it."""

from __future__ import annotations

import argparse
from pathlib import Path

from py_trees.common import Status

from treebrain.behaviours.kg.service import KitchenGraphService, kitchen_paths
from treebrain.behaviours.llm.service import LLMService, choose_default_profile, robot_llm_section
from treebrain.errors import InputError
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import Narration
from treebrain.kg.pipeline import NarrationOutcome
from treebrain.kg.scripted import KitchenProviders
from treebrain.trees import load_tree

NO_LLM = "none"
#: The kitchen robot file of this checkout, so the commands work from any folder.
DEFAULT_ROBOT = Path(__file__).resolve().parents[2] / "config" / "robots" / "kitchen.yaml"


class NarrationFailed(RuntimeError):
    """The tree itself failed on a narration (a defect, never a wrong LLM answer)."""


class KitchenSession:
    """The kitchen tree, loaded once; each narration is one run of it, ticked until it finishes.

    `provider` "none" asks no LLM (the tree's /kg/use_llm is false); `rules_first` False asks the
    LLM even when the rules are certain (to measure a model).
    """

    def __init__(
        self,
        robot: Path,
        *,
        provider: str | None = None,
        kg: Path | None = None,
        answers: Path | None = None,
        llm_extractor: bool = False,
        rules_first: bool = True,
        fresh: bool = False,
        dataset_classes: tuple[Path | None, Path | None] | None = None,
        hz: float = 200.0,
    ) -> None:
        if provider == NO_LLM and llm_extractor:
            raise InputError.single("--llm-extractor needs an LLM: it cannot go with --provider none", robot)
        values = {
            "/kg/use_llm_extractor": llm_extractor,
            "/kg/use_llm": provider != NO_LLM,
            "/kg/rules_first": rules_first,
        }
        self.tree = load_tree(robot, values=values)
        try:
            settings = self.tree.context.robot
            paths = kitchen_paths(settings)
            self.kitchen = KitchenGraphService.open(
                paths.kitchen, kg or paths.kg, fresh=fresh, dataset_classes=dataset_classes
            )
            self.providers = KitchenProviders(
                answers or paths.kitchen.parent / "eval" / "scripted_answers.jsonl"
            )
            if provider != NO_LLM:
                choose_default_profile(settings, provider)
            section = robot_llm_section(settings)
            self.profile = NO_LLM if provider == NO_LLM else section.default
            self.llm = LLMService(section, self.tree.context, settings.base_dir, self.providers)
        except BaseException:
            self.tree.close()
            raise
        self.tree.context.provide(KitchenGraphService, self.kitchen)
        self.tree.context.provide(LLMService, self.llm)
        self.period = 1.0 / hz

    def process(self, narration: Narration) -> NarrationOutcome:
        """Run the tree on one narration and return its record; NarrationFailed if the tree failed."""
        self.providers.begin(narration.id)
        self.tree.blackboard.set("/kg/narration", narration, "treebrain kg")
        self.tree.tick()
        while self.tree.root.status == Status.RUNNING:
            self.tree.clock.sleep(self.period)
            self.tree.tick()
        if self.tree.root.status != Status.SUCCESS:
            raise NarrationFailed(f"{narration.id}: the kitchen tree failed: {self.failure()}")
        outcome: NarrationOutcome = self.tree.blackboard.get("/kg/outcome")
        return outcome

    def process_on(self, kg: KitchenGraph, narration: Narration) -> NarrationOutcome:
        """:meth:`process` on another graph (an evaluation scenario's own)."""
        self.kitchen.kg = kg
        return self.process(narration)

    def failure(self) -> str:
        failed = [
            f"{path}: {node.feedback_message}"
            for path, node in self.tree.nodes.items()
            if node.status == Status.FAILURE and not node.children and node.feedback_message
        ]
        return "; ".join(failed) or "no leaf said why"

    def close(self) -> None:
        self.tree.close()


def run_options(parser: argparse.ArgumentParser, *, provider: bool = True) -> None:
    """How the kitchen tree runs, shared with ``treebrain eval kg`` (whose ``--provider`` is the
    evaluation runner's; ``none`` works there too)."""
    if provider:
        parser.add_argument(
            "--provider",
            metavar="PROFILE",
            help=f"LLM profile instead of the robot's default; {NO_LLM!r}: rules only, no LLM",
        )
    parser.add_argument("--answers", type=Path, help="scripted answers for a `scripted` profile")
    parser.add_argument("--llm-extractor", action="store_true", help="read narrations with the LLM first")
    parser.add_argument(
        "--rules-first",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="apply the rules' update without an LLM call when the narration settles it (default: yes)",
    )
    parser.add_argument(
        "--verb-classes", type=Path, help="the dataset's verb class file (EPIC_100_verb_classes.csv)"
    )
    parser.add_argument(
        "--noun-classes", type=Path, help="the dataset's noun class file (EPIC_100_noun_classes.csv)"
    )
    parser.add_argument("--hz", type=float, default=200.0, help="tick rate during LLM calls (default 200)")
