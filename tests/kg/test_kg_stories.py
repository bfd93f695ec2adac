"""The story-consistency suite: long EPIC-style sessions whose true end is known, and its scorer.

Rules only (no LLM), every story ends with every object where the story leaves it, no node a
narration did not name, no event on an object a narration is not about, no narration lost."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.kg.conftest import entry
from treebrain.kg.config import KitchenConfig
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import Interaction, Narration, OutcomeKind
from treebrain.kg.narrations import read_narrations
from treebrain.kg.pipeline import process_narration
from treebrain.kg.stories import (
    LoadedStory,
    StoryReport,
    load_stories,
    run_story,
    score_story,
    story_markdown,
)


@pytest.fixture(scope="module")
def stories(kitchen_dir: Path) -> list[LoadedStory]:
    return load_stories(kitchen_dir / "stories")


def test_the_suite_is_long_real_looking_and_fully_labelled(
    stories: list[LoadedStory], kitchen: KitchenConfig
) -> None:
    assert len(stories) >= 3
    for loaded in stories:
        narrations = read_narrations(loaded.narrations_path, kitchen.columns)
        assert len(narrations) >= 100
        ids = [narration.id for narration in narrations]
        assert ids == sorted(ids) and ids != sorted(ids, key=lambda n: int(n.rpartition("_")[2])), (
            "sorted by id as text, as the dataset's files are"
        )
        story = loaded.story
        aliases = {alias for item in story.objects for alias in (item.name, *item.also)}
        aliases |= {alias for item in story.places for alias in (item.name, *item.also)}
        nouns = set(loaded.nouns.values())
        assert nouns <= {*aliases, *story.others} | {noun + "s" for noun in aliases}, nouns - aliases


def test_rules_only_every_story_ends_right(stories: list[LoadedStory], kitchen: KitchenConfig) -> None:
    def rules_only(kg: KitchenGraph, narration: Narration) -> object:
        return process_narration(kg, narration, kitchen, None)

    report = StoryReport(stories=tuple(run_story(loaded, kitchen, rules_only) for loaded in stories))
    for score in report.stories:
        assert (score.invented, score.duplicates, score.misattributed, score.lost, score.wrong) == (
            (),
        ) * 5, score.story
    assert (report.location_accuracy, report.state_accuracy) == (1.0, 1.0)
    assert report.unattributed_share == report.expected_unattributed_share, "only the hands are unattributed"
    assert report.narrations_per_second > 100


def test_the_scorer_finds_each_kind_of_mistake(stories: list[LoadedStory], kitchen: KitchenConfig) -> None:
    loaded = next(item for item in stories if item.story.id == "P91_01")
    narrations = read_narrations(loaded.narrations_path, kitchen.columns)
    by_id = {narration.id: narration for narration in narrations}
    kg = kitchen.new_graph()

    def taken(narration_id: str) -> Interaction:
        narration = by_id[narration_id]
        return entry(narration.id, narration.start, narration.text, OutcomeKind.TAKE)

    milk = kg.add_food("milk")  # "grab the bowl" made a milk node: invented, and the event misattributed
    kg.record(milk, taken("P91_01_1"))
    bowl_zone = kg.add_zone("bowl", "container")  # the bowl as a zone beside nothing else: a duplicate later
    bowl = kg.add_food("bowl")
    kg.record(bowl, taken("P91_01_1"))
    kg.put_at(bowl, kg.add_zone("table", "surface"))
    kg.record_zone(bowl_zone, taken("P91_01_21"))  # "put spoon in bowl" recorded on the bowl zone
    score = score_story(loaded, narrations, kg, kitchen.vocabulary.names, seconds=2.0)
    assert score.invented == ("food_milk_1 ('milk') was created by 'take bowl', which does not name it",)
    assert score.duplicates == ("bowl: food_bowl_1, zone_bowl_1",)
    assert score.misattributed == (
        "P91_01_1 'take bowl' is in the history of food_milk_1",
        "P91_01_21 'put spoon in bowl' is in the history of zone_bowl_1",
    )
    assert (score.location_ok, score.objects, len(score.lost)) == (1, 19, 128 - 2)
    assert "milk (food_milk_1) is at 'unknown', truly at 'fridge'" in score.wrong
    table = story_markdown(StoryReport(stories=(score,)), "a broken run")
    assert "| invented nodes | 1 | 1 |" in table and "| narrations per second | 64.0 | 64.0 |" in table
