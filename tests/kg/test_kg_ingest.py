"""Planning an ingest: time order, one video, what the graph already holds, when to save."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.kg.conftest import entry
from treebrain.errors import InputError
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.ingest import SavePolicy, plan_ingest
from treebrain.kg.models import Narration, OutcomeKind

FILE = Path("P05.csv")


def _narration(narration_id: str, start: float) -> Narration:
    video = narration_id.rpartition("_")[0]
    return Narration(id=narration_id, start=start, end=start + 1, text="open fridge", video=video)


def test_the_plan_is_in_time_order_without_what_the_graph_holds(kg: KitchenGraph) -> None:
    narrations = [_narration("P05_01_0", 1.0), _narration("P05_01_10", 30.0), _narration("P05_01_2", 5.0)]
    fresh = plan_ingest(narrations, kg, FILE)
    assert [narration.id for narration in fresh.todo] == ["P05_01_0", "P05_01_2", "P05_01_10"]
    assert (fresh.already, fresh.notes) == (
        0,
        (
            "the file is not in time order (P05_01_2 at 5 s comes after P05_01_10 at 30 s); "
            "2 narration(s) sorted by start time",
        ),
    )
    kg.record_zone(
        kg.add_zone("fridge", "appliance"), entry("P05_01_0", 1.0, "open fridge", OutcomeKind.ZONE_EVENT)
    )
    resumed = plan_ingest(sorted(narrations, key=lambda n: n.start), kg, FILE)
    assert [narration.id for narration in resumed.todo] == ["P05_01_2", "P05_01_10"]
    assert (resumed.already, resumed.notes) == (
        1,
        ("resuming: 1 of 3 narration(s) are already in the graph, skipped",),
    )


def test_one_video_or_all_of_them_with_a_note(kg: KitchenGraph) -> None:
    narrations = [_narration("P05_02_0", 1.0), _narration("P05_01_0", 9.0), _narration("P05_10_0", 0.5)]
    everything = plan_ingest(narrations, kg, FILE)
    assert [narration.id for narration in everything.todo] == ["P05_01_0", "P05_02_0", "P05_10_0"]
    assert everything.notes[-1] == (
        "3 videos (P05_01, P05_02, P05_10) go into one graph, one after the other; pass --video ID for one"
    )
    one = plan_ingest(narrations, kg, FILE, video="P05_02")
    assert ([narration.id for narration in one.todo], one.notes) == (["P05_02_0"], ())
    with pytest.raises(InputError, match="no narration of video 'P05_03'"):
        plan_ingest(narrations, kg, FILE, video="P05_03")


@pytest.mark.parametrize(
    ("policy", "since_save", "elapsed_s", "due"),
    [
        (SavePolicy(), 0, 60.0, False),  # nothing new to save
        (SavePolicy(), 40, 1.9, False),  # by default every 2 seconds, however many narrations
        (SavePolicy(), 1, 2.0, True),  # a slow LLM narration is saved as soon as it is done
        (SavePolicy(every=5), 5, 0.1, True),
        (SavePolicy(every=5), 4, 0.1, False),
        (SavePolicy(seconds=0), 1, 0.0, True),  # after every narration
    ],
)
def test_progress_is_saved_every_few_seconds_by_default(
    policy: SavePolicy, since_save: int, elapsed_s: float, due: bool
) -> None:
    assert policy.due(since_save, elapsed_s) is due


def test_a_graph_slow_to_save_is_saved_less_often() -> None:
    policy = SavePolicy()
    assert not policy.due(10, 5.0, save_cost_s=0.9), "saving may take a tenth of the time at most"
    assert policy.due(10, 8.2, save_cost_s=0.9)
    assert SavePolicy(seconds=0).due(1, 0.0, save_cost_s=5.0), "asked for every narration: every narration"
