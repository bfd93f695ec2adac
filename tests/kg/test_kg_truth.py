"""Scoring a graph against hand-labelled truth about a narrated video (narrations written here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from treebrain.errors import InputError
from treebrain.kg.config import KitchenConfig
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import Narration
from treebrain.kg.narrations import read_narrations
from treebrain.kg.pipeline import process_narration
from treebrain.kg.truth import VideoTruth, load_truth, run_video, score_video

NARRATIONS = [
    "open fridge",
    "take butter",
    "put butter",
    "close fridge",
    "take knife",
    "put knife on chopping board",
    "wash hands",
    "take plate",
    "throw away plate",
    "take plate",
]
TRUTH = {
    "video": "P90_01",
    "split": "train",
    "places": {"bin": ["trash"]},
    "objects": [
        {
            "id": "butter",
            "names": ["butter"],
            "narrations": ["P90_01_1", "P90_01_2"],
            "place": "fridge",
            "certainty": "likely",
        },
        {
            "id": "knife",
            "names": ["knife"],
            "narrations": ["P90_01_4", "P90_01_5"],
            "place": "board",
            "certainty": "sure",
        },
        {"id": "board", "names": ["chopping board", "board"], "narrations": ["P90_01_5"], "place": "unknown"},
        {
            "id": "plate",
            "names": ["plate"],
            "narrations": ["P90_01_7", "P90_01_8"],
            "place": "bin",
            "certainty": "sure",
        },
        {
            "id": "plate 2",
            "names": ["plate"],
            "narrations": ["P90_01_9"],
            "place": "hand",
            "certainty": "sure",
        },
    ],
    "fixed_places": ["fridge", "bin"],
    "not_objects": [{"noun": "hand", "narrations": ["P90_01_6"]}],
}


@pytest.fixture
def video(tmp_path: Path) -> tuple[Path, Path]:
    csv_path = tmp_path / "narrations.csv"
    rows = [
        f"P90_01_{i},P90_01,00:00:{2 * i:02d}.00,00:00:{2 * i + 1:02d}.00,{text}"
        for i, text in enumerate(NARRATIONS)
    ]
    csv_path.write_text(
        "narration_id,video_id,start_timestamp,stop_timestamp,narration\n" + "\n".join(rows) + "\n"
    )
    truth = tmp_path / "truth"
    truth.mkdir()
    (truth / "P90_01.json").write_text(json.dumps(TRUTH))
    return csv_path, truth


def test_a_video_is_ingested_and_scored_place_by_place(
    kitchen: KitchenConfig, video: tuple[Path, Path]
) -> None:
    csv_path, truth = video
    (loaded,) = load_truth(truth)

    def process(kg: KitchenGraph, narration: Narration) -> None:
        process_narration(kg, narration, kitchen, None)

    score = run_video(loaded, read_narrations(csv_path), kitchen, process)
    counts = {field: score.count(field) for field in ("narrations", "objects", "found", "sure", "sure_right")}
    assert counts == {"narrations": 10, "objects": 5, "found": 5, "sure": 3, "sure_right": 3}
    assert (score.likely, score.likely_right, score.marked_likely) == (1, 1, 1)
    assert (score.invented, score.non_objects, score.duplicates, score.wrong) == ((), (), (), ())


def test_invented_objects_non_objects_and_duplicates_are_named(kitchen: KitchenConfig) -> None:
    kg = kitchen.new_graph()
    for seen, name in enumerate(("butter", "butter", "hand", "spoon", "knife")):
        kg.add_food(name, seen_at=seen)
    fridge, _ = kg.ensure_zone("fridge", "appliance")
    kg.put_at("food_butter_2", fridge)
    score = score_video(VideoTruth.model_validate(TRUTH), kg, narrations=0)
    assert score.invented == ("food_spoon_1 ('spoon')",)
    assert score.non_objects == ("food_hand_1 ('hand')",)
    assert score.duplicates == ("butter: food_butter_1, food_butter_2",)
    assert (score.likely, score.likely_right, score.marked_likely) == (1, 1, 0)
    assert "knife (food_knife_1) is at 'unknown', truly at 'board' (sure)" in score.wrong


def test_truth_from_the_validation_split_or_for_another_file_is_refused(
    kitchen: KitchenConfig, video: tuple[Path, Path]
) -> None:
    truth = video[1]
    (truth / "P90_02.json").write_text(json.dumps({**TRUTH, "video": "P90_02", "split": "validation"}))
    with pytest.raises(InputError, match=r"P90_02\.json") as raised:
        load_truth(truth)
    assert "split" in str(raised.value)
    (truth / "P90_02.json").unlink()
    (loaded,) = load_truth(truth)
    other = [Narration(id="P90_01_0", start=0, end=1, text="open fridge", video="P90_01")]
    with pytest.raises(InputError, match="has no P90_01_1, P90_01_2"):
        run_video(loaded, other, kitchen, lambda kg, narration: None)


def test_a_truth_quoting_a_narration_is_refused(kitchen: KitchenConfig, video: tuple[Path, Path]) -> None:
    csv_path, truth = video
    quoting = {**TRUTH, "summary": "then: put knife on chopping board."}
    (truth / "P90_01.json").write_text(json.dumps(quoting))
    (loaded,) = load_truth(truth)
    with pytest.raises(InputError, match=r"P90_01\.json.*quotes the text of narration\(s\) P90_01_5"):
        run_video(loaded, read_narrations(csv_path), kitchen, lambda kg, narration: None)


def test_a_node_fits_the_truth_by_the_narrations_noun_or_by_its_class(kitchen: KitchenConfig) -> None:
    truth = VideoTruth.model_validate(
        {
            "video": "P90_02",
            "split": "train",
            "objects": [
                {
                    "id": "saucepan",
                    "names": ["saucepan"],
                    "narrations": ["a"],
                    "place": "rack",
                    "certainty": "sure",
                },
                {"id": "lid", "names": ["lid"], "narrations": ["b"], "place": "pot", "certainty": "sure"},
            ],
            "fixed_places": ["rack"],
        }
    )
    kg = kitchen.new_graph()
    rack, _ = kg.ensure_zone("rack", "surface")
    saucepan = kg.add_food("pot", said="saucepan", seen_at=1.0)  # shown as said, found as a pot
    kg.put_at(saucepan, rack)
    kg.put_at(kg.add_food("lid", seen_at=2.0), saucepan)
    score = score_video(truth, kg, narrations=0)
    assert (score.invented, score.found, score.sure_right, score.wrong) == ((), 2, 2, ())
