"""Running the labelled scenarios and scoring a run: a pure evaluator over outcomes.

Metrics: update-type accuracy (per narration), target accuracy (the right food node), step
accuracy (type, food and every labelled effect right), location and state accuracy of the final
graph against the expected one, duplicate-node rate (food nodes beyond the expected count of a name
the scenario expects, over all food nodes; objects used only as places, such as the chopping board
the cucumber was put on, are not duplicates), retries per narration, and the share of
low-confidence fallbacks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from treebrain.kg.config import KitchenConfig
from treebrain.kg.eval_set import IN_HAND, ExpectedStep, Scenario
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import FoodView, Frozen, Narration
from treebrain.kg.names import NameResolver, normalise_phrase
from treebrain.kg.pipeline import Answerer, NarrationOutcome, process_narration
from treebrain.kg.places import PlaceResolver
from treebrain.kg.queries import food_table

#: Processes one narration on a graph (updating it) and returns what happened.
NarrationProcessor = Callable[[KitchenGraph, Narration], NarrationOutcome]


class ScenarioRun(Frozen):
    """What a run of one scenario produced: every narration's outcome and the final foods."""

    scenario_id: str
    outcomes: tuple[NarrationOutcome, ...]
    final_foods: tuple[FoodView, ...]


class EvalReport(Frozen):
    scenarios: int
    narrations: int
    update_type_accuracy: float
    target_accuracy: float
    step_accuracy: float
    location_accuracy: float
    state_accuracy: float
    duplicate_node_rate: float
    retries_per_narration: float
    low_confidence_rate: float
    mismatches: tuple[str, ...] = ()


def seed_graph(scenario: Scenario, config: KitchenConfig) -> KitchenGraph:
    """A graph holding the scenario's initial foods at their zones."""
    kg = config.new_graph()
    places = PlaceResolver(kg, config.vocabulary)
    for food in scenario.initial_foods:
        food_id = kg.add_food(food.name, state=food.state, quantity=food.quantity)
        kg.put_at(food_id, places.place(food.zone))
    return kg


def run_scenario(
    scenario: Scenario, config: KitchenConfig, answer: Answerer | None, *, rules_first: bool = True
) -> ScenarioRun:
    """Process the scenario's narrations with the plain loop on a freshly seeded graph (`answer`
    None: rules only; `rules_first` False: the LLM is asked even when the rules are certain)."""
    return run_scenario_with(
        scenario,
        config,
        lambda kg, narration: process_narration(kg, narration, config, answer, rules_first=rules_first),
    )


def run_scenario_with(scenario: Scenario, config: KitchenConfig, process: NarrationProcessor) -> ScenarioRun:
    """Process the scenario's narrations in order with `process` (the plain loop, or a behaviour
    tree) on a freshly seeded graph."""
    kg = seed_graph(scenario, config)
    outcomes = tuple(process(kg, item.narration()) for item in scenario.narrations)
    return ScenarioRun(scenario_id=scenario.id, outcomes=outcomes, final_foods=tuple(food_table(kg)))


def location_label(food: FoodView) -> str:
    """Where a food is, in the eval set's words: "left hand", a zone or object name, or "unknown"."""
    return food.place_name


def _same_location(expected: str, food: FoodView) -> bool:
    if expected == IN_HAND:
        return food.hand is not None
    return normalise_phrase(expected) == normalise_phrase(location_label(food))


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else 1.0


def evaluate(scenarios: Sequence[Scenario], runs: Sequence[ScenarioRun], names: NameResolver) -> EvalReport:
    """Score runs against their scenarios (matched by id); `names` folds synonyms for matching."""
    by_id = {run.scenario_id: run for run in runs}
    mismatches: list[str] = []
    counts: Counter[str] = Counter()
    for scenario in scenarios:
        run = by_id.get(scenario.id)
        if run is None:
            mismatches.append(f"{scenario.id}: no run")
            continue
        found, wrong = score_scenario(scenario, run, names)
        counts.update(found)
        mismatches.extend(wrong)
    return report_from_counts(len(scenarios), counts, mismatches)


def score_scenario(
    scenario: Scenario, run: ScenarioRun, names: NameResolver
) -> tuple[Counter[str], list[str]]:
    """One scenario's counts (what :func:`report_from_counts` adds up over scenarios) and mismatches."""
    counts: Counter[str] = Counter()
    mismatches: list[str] = []
    _score_steps(scenario, run, names, counts, mismatches)
    _score_final(scenario, run, names, counts, mismatches)
    return counts, mismatches


def report_from_counts(scenarios: int, counts: Counter[str], mismatches: Sequence[str]) -> EvalReport:
    """The metrics of `scenarios` scenarios from their summed :func:`score_scenario` counts."""
    return EvalReport(
        scenarios=scenarios,
        narrations=counts["narrations"],
        update_type_accuracy=_ratio(counts["type_ok"], counts["narrations"]),
        target_accuracy=_ratio(counts["target_ok"], counts["targets"]),
        step_accuracy=_ratio(counts["step_ok"], counts["narrations"]),
        location_accuracy=_ratio(counts["location_ok"], counts["final_foods"]),
        state_accuracy=_ratio(counts["state_ok"], counts["final_foods"]),
        duplicate_node_rate=_ratio(counts["duplicates"], counts["actual_foods"])
        if counts["actual_foods"]
        else 0.0,
        retries_per_narration=counts["retries"] / counts["narrations"] if counts["narrations"] else 0.0,
        low_confidence_rate=counts["low_confidence"] / counts["narrations"] if counts["narrations"] else 0.0,
        mismatches=tuple(mismatches),
    )


def _score_steps(
    scenario: Scenario, run: ScenarioRun, names: NameResolver, counts: Counter[str], mismatches: list[str]
) -> None:
    outcomes = {outcome.narration.id: outcome for outcome in run.outcomes}
    for item in scenario.narrations:
        counts["narrations"] += 1
        outcome = outcomes.get(item.id)
        if outcome is None:
            mismatches.append(f"{item.id}: no outcome")
            continue
        counts["retries"] += outcome.retries
        counts["low_confidence"] += outcome.report.confidence == "low"
        type_ok = outcome.report.outcome == item.expect.update_type
        counts["type_ok"] += type_ok
        target_ok = item.expect.food_id is None or outcome.report.food_id == item.expect.food_id
        counts["targets"] += item.expect.food_id is not None
        counts["target_ok"] += item.expect.food_id is not None and target_ok
        wrong = _wrong_effects(item.expect, outcome.after, names)
        if not type_ok:
            wrong.insert(
                0, f"update type {outcome.report.outcome.value} (expected {item.expect.update_type.value})"
            )
        if not target_ok:
            wrong.insert(0, f"food {outcome.report.food_id} (expected {item.expect.food_id})")
        counts["step_ok"] += not wrong
        if wrong:
            mismatches.append(f"{item.id}: {'; '.join(wrong)}")


def _wrong_effects(expect: ExpectedStep, after: FoodView | None, names: NameResolver) -> list[str]:
    """The labelled effects of a step that the touched food does not show."""
    if after is None:
        return [] if expect.food_id is None else ["no food was touched"]
    wrong: list[str] = []
    if expect.name and names.canonical(expect.name) != names.canonical(after.name):
        wrong.append(f"name {after.name!r} (expected {expect.name!r})")
    if expect.location and not _same_location(expect.location, after):
        wrong.append(f"location {location_label(after)!r} (expected {expect.location!r})")
    exact = (("state", expect.state, after.state), ("quantity", expect.quantity, after.quantity))
    for field, wanted, actual in (*exact, ("hand", expect.hand, after.hand)):
        if wanted is not None and wanted != actual:
            wrong.append(f"{field} {actual!r} (expected {wanted!r})")
    return wrong


def _score_final(
    scenario: Scenario, run: ScenarioRun, names: NameResolver, counts: Counter[str], mismatches: list[str]
) -> None:
    actual = {food.food_id: food for food in run.final_foods}
    unmatched = dict(actual)
    for expected in scenario.final_foods:
        counts["final_foods"] += 1
        food = unmatched.pop(expected.food_id, None)
        if food is None:
            wanted = names.canonical(expected.name)
            food = next((f for f in unmatched.values() if names.canonical(f.name) == wanted), None)
            if food is None:
                mismatches.append(f"{scenario.id}: {expected.food_id} ({expected.name}) is missing")
                continue
            del unmatched[food.food_id]
        if _same_location(expected.location, food):
            counts["location_ok"] += 1
        else:
            label = location_label(food)
            mismatches.append(
                f"{scenario.id}: {food.food_id} is at {label!r} (expected {expected.location!r})"
            )
        if expected.state == food.state:
            counts["state_ok"] += 1
        else:
            mismatches.append(
                f"{scenario.id}: {food.food_id} is {food.state!r} (expected {expected.state!r})"
            )
    expected_names = Counter(names.canonical(food.name) for food in scenario.final_foods)
    actual_names = Counter(names.canonical(food.name) for food in run.final_foods)
    counts["actual_foods"] += len(run.final_foods)
    counts["duplicates"] += sum(
        max(0, count - expected_names[name]) for name, count in actual_names.items() if name in expected_names
    )
