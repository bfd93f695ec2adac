"""A creative brief as a sequence grammar: every plan it lets the model write follows the brief."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from treebrain.llm.schema_check import validate
from treebrain.llm.sequence_grammar import SEQUENCE_GRAMMAR_KEY, RuleRef, SequenceGrammar
from treebrain.robots.arm.limits import ArmLimits
from treebrain.voice.brief import brief_grammar
from treebrain.voice.classify import Classification
from treebrain.voice.compiler import compile_sequence, planning_scene
from treebrain.voice.creative import CreativeAssignment, axis_violations, load_creative_axes
from treebrain.voice.isa_loader import load_instruction_set
from treebrain.voice.prompts import PromptBuilder, PromptSettings
from treebrain.voice.rules import enforce_rules
from treebrain.voice.schemas import sequence_schema
from treebrain.voice.steps import Step

ROOT = Path(__file__).parents[2]
CONFIG = ROOT / "config" / "voice"
ISET = load_instruction_set(CONFIG / "instruction_set.json")
AXES = load_creative_axes(CONFIG / "creative_axes.yaml")
GOFA = yaml.safe_load((ROOT / "config" / "robots" / "gofa.yaml").read_text(encoding="utf-8"))
LIMITS = ArmLimits.model_validate(GOFA["limits"])
STOCK = {"bread": 8, "meat": 4, "cheese": 4, "lettuce": 4, "tomato": 4}
ITEMS, ZONES = ISET.valid_items(), ISET.valid_zones()
COMBINATIONS = [
    (spatial.name, ingredient.name)
    for spatial in AXES.spatial
    for ingredient in AXES.ingredient
    if AXES.compatible(spatial.name, ingredient.name)
]


def assignment(spatial: str, ingredient: str, named: list[str] | None = None) -> CreativeAssignment:
    constrained = (named or ["lettuce", "tomato"]) if ingredient == AXES.constrained else []
    return CreativeAssignment.of(spatial, ingredient, constrained)


def sample(grammar: SequenceGrammar, rng: random.Random) -> list[Step]:
    """One sequence the grammar derives, alternatives chosen at random."""

    def expand(name: str) -> list[Any]:
        values: list[Any] = []
        for symbol in rng.choice(grammar.rules[name]):
            values.extend(expand(symbol.name) if isinstance(symbol, RuleRef) else [symbol.value()])
        return values

    return [Step.model_validate(value) for value in expand(grammar.start)]


def in_stock(sequence: list[Step]) -> bool:
    used: dict[str, int] = {}
    for step in sequence:
        if step.instruction == "add_layer":
            item = str(step.params["item"])
            used[item] = used.get(item, 0) + 1
    return all(count <= STOCK[item] for item, count in used.items())


@pytest.mark.parametrize(("spatial", "ingredient"), COMBINATIONS)
def test_every_plan_the_grammar_allows_follows_the_brief_passes_the_rules_and_compiles(
    spatial: str, ingredient: str
) -> None:
    brief = assignment(spatial, ingredient)
    grammar = brief_grammar(brief, ITEMS, ZONES, STOCK)
    assert grammar is not None
    scene = planning_scene(ISET).model_copy(update={"stacks": dict(STOCK)})
    step_schema = sequence_schema(ISET)
    rng = random.Random(f"{spatial}/{ingredient}")
    for _ in range(60):
        plan = sample(grammar, rng)
        assert axis_violations(brief, plan, ITEMS) == [], [step.short() for step in plan]
        assert not enforce_rules(plan, ISET).changes()
        assert in_stock(plan)
        assert validate([step.model_dump(mode="json") for step in plan], step_schema) == []
        compile_sequence(plan, ISET, scene=scene, limits=LIMITS)


@pytest.mark.parametrize(("spatial", "ingredient"), COMBINATIONS)
def test_without_a_known_scene_the_stock_does_not_limit_the_plan(spatial: str, ingredient: str) -> None:
    brief = assignment(spatial, ingredient)
    grammar = brief_grammar(brief, ITEMS, ZONES)
    assert grammar is not None
    rng = random.Random(spatial)
    assert all(axis_violations(brief, sample(grammar, rng), ITEMS) == [] for _ in range(20))


def test_the_model_still_chooses_items_counts_and_zone_order() -> None:
    grammar = brief_grammar(assignment("three_zone_split", "random_ordered"), ITEMS, ZONES, STOCK)
    assert grammar is not None
    rng = random.Random(1)
    plans = [sample(grammar, rng) for _ in range(200)]
    first_zones = {plan[0].params["zone"] for plan in plans}
    layers = {len(plan) - 9 for plan in plans}  # three zone steps and three go_home steps, three builds
    assert first_zones == set(ZONES)
    assert len(layers) > 3
    assert {step.params["item"] for plan in plans for step in plan if step.instruction == "add_layer"} == set(
        ITEMS
    )


def test_a_brief_no_plan_can_follow_gets_no_grammar() -> None:
    # two zones with disjoint items out of cheese alone; a tall stack of five out of four slices
    assert (
        brief_grammar(assignment("two_zone_contrast", "constrained", ["cheese"]), ITEMS, ZONES, STOCK) is None
    )
    assert brief_grammar(assignment("single_tall", "constrained", ["cheese"]), ITEMS, ZONES, STOCK) is None
    # three zones of cheese fit four slices: one build of two, two of one
    grammar = brief_grammar(assignment("three_zone_split", "constrained", ["cheese"]), ITEMS, ZONES, STOCK)
    assert grammar is not None
    plan = sample(grammar, random.Random(3))
    assert sum(step.instruction == "add_layer" for step in plan) <= 4


def test_only_the_local_settings_put_the_brief_in_the_schema() -> None:
    brief = assignment("palindrome", "doubled")
    creative = Classification(is_creative=True)
    scene = planning_scene(ISET).model_copy(update={"stacks": dict(STOCK)})
    plain = PromptBuilder(CONFIG / "prompts", ISET, PromptSettings())
    local = PromptBuilder(CONFIG / "prompts", ISET, PromptSettings(brief_grammar=True))
    assert (
        SEQUENCE_GRAMMAR_KEY
        not in plain.generate("x", creative, creative=brief, scene=scene).json_schema["properties"][
            "sequence"
        ]
    )
    schema = local.generate("x", creative, creative=brief, scene=scene).json_schema
    assert SequenceGrammar.from_json(schema["properties"]["sequence"][SEQUENCE_GRAMMAR_KEY]) == brief_grammar(
        brief, ITEMS, ZONES, STOCK
    )
    assert (
        SEQUENCE_GRAMMAR_KEY
        not in local.generate("x", Classification()).json_schema["properties"]["sequence"]
    )
    corrected = local.generate(
        "x", creative, creative=brief, scene=scene, corrections=["an issue"]
    ).json_schema
    assert corrected == schema  # pass 3 answers under the same brief


def test_creative_answers_may_have_their_own_budget() -> None:
    settings = PromptSettings(brief_grammar=True, creative_max_tokens=480)
    builder = PromptBuilder(CONFIG / "prompts", ISET, settings)
    creative = Classification(is_creative=True)
    brief = assignment("three_zone_split", "all_one")
    assert builder.generate("x", creative, creative=brief).max_tokens == 480
    assert builder.generate("x", creative, creative=brief, corrections=["an issue"]).max_tokens == 480
    assert builder.generate("x", Classification()).max_tokens == settings.generate.max_tokens
