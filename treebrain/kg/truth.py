"""Hand-labelled truth about real narrated videos, and how a graph built from them is scored.

A truth file (one JSON file per video, ``config/kitchen/epic/truth/``) says, for one video of a
dataset's *train* split, every object its narrations handle: the names the narrations use for it, the
narrations about it (by id only: the dataset's text is not ours to copy), where it is at the end (a
place, another object's id, ``hand``, or ``unknown`` when the narrations do not show it), whether
that place is *sure* (a narration names it) or *likely* (the context shows it: an open fridge, a run
of things put onto the rack), and its state when a narration says one. It also lists the fixed places
(zones, fixtures) and the nouns that are no object at all (hands, tap water, the light).

Scoring reads only the final graph, as a user's question would:

- objects found: truth objects some graph node stands for. A node stands for the truth object whose
  narrations its history shares most, among those whose names fit the node's name ("knive" fits no
  "knife"); each object gets one node first, further nodes of it are duplicates;
- place right: over objects with a known place, the newest of its nodes is there (the place, one of
  its aliases, or the object named as the place, anywhere up the chain of what the node is in:
  "in the bowl, in the fridge" is right for "fridge"); sure and likely places are counted apart;
- invented objects: nodes that are no object, place or non-object of the truth;
- non-objects made objects: nodes named after a non-object ("hand", "water");
- duplicates: truth objects with more than one node.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from treebrain.documents import load_located
from treebrain.errors import InputError, Problem
from treebrain.kg.config import KitchenConfig
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.ingest import plan_ingest
from treebrain.kg.models import Frozen, Narration
from treebrain.kg.names import normalise_phrase, singular
from treebrain.kg.stories import StoryProcessor

HAND = "hand"
UNKNOWN = "unknown"
Certainty = Literal["sure", "likely"]


class TruthObject(Frozen):
    """One thing of the video, the narrations about it and where they leave it."""

    id: str = Field(min_length=1)
    names: list[str] = Field(min_length=1)
    narrations: list[str] = Field(min_length=1)
    place: str = Field(min_length=1, description="a place, another object's id, 'hand' or 'unknown'")
    place_aliases: list[str] = []
    certainty: Certainty | None = None
    placed_by: str | None = None
    state: str | None = None
    note: str = ""

    @model_validator(mode="after")
    def _certainty_with_place(self) -> TruthObject:
        if (self.place == UNKNOWN) != (self.certainty is None):
            raise ValueError("certainty (sure or likely) is given exactly when the place is known")
        return self


class NotObject(Frozen):
    """A noun the narrations use for something that is no object (hands, tap water, the light)."""

    noun: str = Field(min_length=1)
    narrations: list[str] = []
    reason: str = ""


class VideoTruth(Frozen):
    """One video's truth file."""

    video: str = Field(min_length=1)
    split: Literal["train"] = Field(description="labelled from the train split only, never validation")
    summary: str = ""
    places: dict[str, list[str]] = {}
    objects: list[TruthObject] = Field(min_length=1)
    fixed_places: list[str] = []
    not_objects: list[NotObject] = []

    @model_validator(mode="after")
    def _unique_ids(self) -> VideoTruth:
        ids = [item.id for item in self.objects]
        repeated = sorted({name for name in ids if ids.count(name) > 1})
        if repeated:
            raise ValueError(f"object ids must be unique: {', '.join(repeated)}")
        return self


class LoadedTruth(Frozen):
    """A truth file and where it is."""

    path: Path
    truth: VideoTruth


def load_truth(directory: str | Path) -> list[LoadedTruth]:
    """Every truth file (``*.json``) in `directory`, sorted; every problem located."""
    files = sorted(Path(directory).glob("*.json"))
    if not files:
        raise InputError.single("no truth files (*.json) here", directory)
    loaded: list[LoadedTruth] = []
    problems: list[Problem] = []
    for path in files:
        try:
            truth, _ = load_located(path, VideoTruth, as_json=True)
        except InputError as error:
            problems.extend(error.problems)
            continue
        loaded.append(LoadedTruth(path=path, truth=truth))
    if problems:
        raise InputError(problems)
    return loaded


def check_narrations(loaded: LoadedTruth, narrations: Sequence[Narration]) -> list[str]:
    """Narration ids the truth cites that the video's narrations do not have (a truth for another file)."""
    known = {narration.id for narration in narrations}
    truth = loaded.truth
    cited = [
        *(n for item in truth.objects for n in item.narrations),
        *(n for item in truth.not_objects for n in item.narrations),
    ]
    return sorted({narration for narration in cited if narration not in known})


#: The fewest words a narration quoted in a truth file must have to count as copied text.
QUOTED_WORDS = 3


def quoted_narrations(loaded: LoadedTruth, narrations: Sequence[Narration]) -> list[str]:
    """Ids of narrations (of 3 or more words) whose text the truth file contains: the dataset's text
    is not ours to copy (CC BY-NC), so a truth file says what happened in its own words."""
    text = f" {' '.join(normalise_phrase(loaded.path.read_text(encoding='utf-8')).split())} "
    quoted: list[str] = []
    for narration in narrations:
        phrase = " ".join(normalise_phrase(narration.text).split())
        if len(phrase.split()) >= QUOTED_WORDS and f" {phrase} " in text:
            quoted.append(narration.id)
    return quoted


# ----- scoring ------------------------------------------------------------------------------------
class VideoScore(Frozen):
    """How the graph of one video ended, against its truth."""

    video: str
    narrations: int
    seconds: float = 0.0
    objects: int
    found: int
    sure: int
    sure_right: int
    likely: int
    likely_right: int
    marked_likely: int = Field(0, description="right places the graph itself marks as likely")
    states: int = 0
    state_right: int = 0
    invented: tuple[str, ...] = ()
    non_objects: tuple[str, ...] = ()
    duplicates: tuple[str, ...] = ()
    wrong: tuple[str, ...] = ()

    @property
    def places(self) -> int:
        return self.sure + self.likely

    @property
    def place_right(self) -> int:
        return self.sure_right + self.likely_right

    def count(self, field: str) -> int:
        """A number field or property, or how many findings a list field holds."""
        value = getattr(self, field)
        return len(value) if isinstance(value, tuple) else int(value)


def _key(name: str) -> tuple[str, ...]:
    """A name as compared: lower case, articles dropped, every word singular ("the Tongs" -> tong)."""
    return tuple(singular(word) for word in normalise_phrase(name).split())


def _fits(node_name: str, names: Iterable[str]) -> bool:
    """Whether a node's name can stand for a thing called `names`: the same words, or one's words all
    among the other's ("board" for "cutting board", "chicken" for "chicken breast")."""
    node = set(_key(node_name))
    if not node:
        return False
    return any(node <= set(_key(name)) or set(_key(name)) <= node for name in names if _key(name))


class _Matcher:
    """The truth's things by name, and which graph node stands for which truth object."""

    def __init__(self, truth: VideoTruth) -> None:
        self.truth = truth
        self.objects = {item.id: item for item in truth.objects}
        self.not_objects = {_key(item.noun) for item in truth.not_objects}
        place_names = [
            *truth.fixed_places,
            *truth.places,
            *(a for aliases in truth.places.values() for a in aliases),
        ]
        self.place_names = {_key(name) for name in place_names}

    def assign(self, kg: KitchenGraph) -> tuple[dict[str, list[str]], list[str], list[str]]:
        """Truth object id -> its nodes (the first one chosen first), invented nodes, non-object nodes."""
        nodes = sorted(kg.food_ids())
        names = {node: _node_names(kg, node) for node in nodes}
        heard = {node: {entry.narration_id for entry in kg.history(node)} for node in nodes}
        pairs: list[tuple[int, bool, int, str, str]] = []
        fitting: dict[str, list[str]] = {}
        for node in nodes:
            for order, item in enumerate(self.truth.objects):
                if not any(_fits(name, item.names) for name in names[node]):
                    continue
                fitting.setdefault(node, []).append(item.id)
                shared = len(heard[node] & set(item.narrations))
                exact = any(_key(said) == _key(name) for said in names[node] for name in item.names)
                pairs.append((shared, exact, -order, node, item.id))
        pairs.sort(reverse=True)
        nodes_of: dict[str, list[str]] = {}
        placed: set[str] = set()
        for shared, _, _, node, item_id in pairs:
            if shared and node not in placed and item_id not in nodes_of:
                nodes_of[item_id] = [node]
                placed.add(node)
        invented: list[str] = []
        not_objects: list[str] = []
        for node in nodes:
            if node in placed:
                continue
            options = [pair for pair in pairs if pair[3] == node]
            if options:
                free = [pair for pair in options if pair[4] not in nodes_of]
                best = (free or options)[0][4]
                nodes_of.setdefault(best, []).append(node)
            elif any(_key(name) in self.not_objects for name in names[node]):
                not_objects.append(f"{node} ({names[node][0]!r})")
            elif not any(_key(name) in self.place_names for name in names[node]):
                invented.append(f"{node} ({names[node][0]!r})")
        return nodes_of, invented, not_objects

    def place_names_of(self, item: TruthObject) -> tuple[set[tuple[str, ...]], set[str]]:
        """The names a right place may have, and the truth objects it may be."""
        accepted = [item.place, *item.place_aliases]
        names: set[tuple[str, ...]] = set()
        ids: set[str] = set()
        for place in accepted:
            names.add(_key(place))
            names.update(_key(alias) for alias in self.truth.places.get(place, []))
            if place in self.objects:
                ids.add(place)
                names.update(_key(name) for name in self.objects[place].names)
        return names, ids


def score_video(truth: VideoTruth, kg: KitchenGraph, narrations: int, seconds: float = 0.0) -> VideoScore:
    """Score the graph a run of the video's narrations left behind."""
    matcher = _Matcher(truth)
    nodes_of, invented, not_objects = matcher.assign(kg)
    truth_of = {node: item_id for item_id, nodes in nodes_of.items() for node in nodes}
    counts = {
        "sure": 0,
        "sure_right": 0,
        "likely": 0,
        "likely_right": 0,
        "marked": 0,
        "states": 0,
        "state_right": 0,
    }
    wrong: list[str] = []
    for item in truth.objects:
        nodes = nodes_of.get(item.id, [])
        newest = max(nodes, key=kg.last_seen) if nodes else None
        if item.state is not None:
            counts["states"] += 1
            if newest is not None and normalise_phrase(kg.view(newest, 0).state) == normalise_phrase(
                item.state
            ):
                counts["state_right"] += 1
        if item.certainty is None:
            continue
        counts[item.certainty] += 1
        if newest is None:
            wrong.append(f"{item.id}: no node (truly at {item.place}, {item.certainty})")
            continue
        where = _chain(kg, newest)
        if _right_place(item, where, matcher, truth_of, kg, newest):
            counts[f"{item.certainty}_right"] += 1
            counts["marked"] += kg.place_certainty(newest) == "likely"
        else:
            shown = " in ".join(kg_name(kg, node) for node in where) or (
                "hand" if kg.hand_of(newest) else "unknown"
            )
            wrong.append(f"{item.id} ({newest}) is at {shown!r}, truly at {item.place!r} ({item.certainty})")
    duplicates = [f"{item_id}: {', '.join(nodes)}" for item_id, nodes in nodes_of.items() if len(nodes) > 1]
    return VideoScore(
        video=truth.video,
        narrations=narrations,
        seconds=seconds,
        objects=len(truth.objects),
        found=len(nodes_of),
        sure=counts["sure"],
        sure_right=counts["sure_right"],
        likely=counts["likely"],
        likely_right=counts["likely_right"],
        marked_likely=counts["marked"],
        states=counts["states"],
        state_right=counts["state_right"],
        invented=tuple(invented),
        non_objects=tuple(not_objects),
        duplicates=tuple(duplicates),
        wrong=tuple(wrong),
    )


def kg_name(kg: KitchenGraph, node: str) -> str:
    """A node's name as shown, zone or object."""
    return _node_names(kg, node)[0]


def _node_names(kg: KitchenGraph, node: str) -> tuple[str, ...]:
    """A node's names: a zone's; an object's own noun, then its class ("saucepan", "pot")."""
    if kg.has_zone(node):
        return (kg.zone_view(node).name,)
    food = kg.view(node, 0)
    return (food.said, food.name) if food.said and food.said != food.name else (food.name,)


def _chain(kg: KitchenGraph, food_id: str) -> list[str]:
    """What the object is in, then what that is in, up to its zone."""
    chain: list[str] = []
    node = kg.location_of(food_id)
    while node is not None and node not in chain:
        chain.append(node)
        node = kg.location_of(node) if kg.has_food(node) else None
    return chain


def _right_place(
    item: TruthObject,
    where: list[str],
    matcher: _Matcher,
    truth_of: dict[str, str],
    kg: KitchenGraph,
    node: str,
) -> bool:
    if item.place == HAND:
        return kg.hand_of(node) is not None
    names, ids = matcher.place_names_of(item)
    return any(
        truth_of.get(place) in ids or any(_key(name) in names for name in _node_names(kg, place))
        for place in where
    )


# ----- the report ---------------------------------------------------------------------------------
class TruthReport(Frozen):
    """Every video's score and the totals."""

    videos: tuple[VideoScore, ...]

    def total(self, field: str) -> int:
        return sum(score.count(field) for score in self.videos)


def ratio(part: int, whole: int) -> str:
    return f"{part / whole:.1%} ({part}/{whole})" if whole else "-"


def truth_markdown(report: TruthReport, label: str) -> str:
    """One row per video and the total: found, places right (sure, likely), invented, non-objects,
    duplicates, states right, speed."""
    header = "| video | narrations | objects found | place right | sure | likely | invented | non-objects | duplicates | state right |"
    lines = [f"**{label}**", "", header, "|---|" + "---:|" * 9]
    for score in report.videos:
        lines.append(_row(score.video, score))
    total = VideoScore(
        video="total",
        narrations=report.total("narrations"),
        objects=report.total("objects"),
        found=report.total("found"),
        sure=report.total("sure"),
        sure_right=report.total("sure_right"),
        likely=report.total("likely"),
        likely_right=report.total("likely_right"),
        states=report.total("states"),
        state_right=report.total("state_right"),
        invented=tuple(item for score in report.videos for item in score.invented),
        non_objects=tuple(item for score in report.videos for item in score.non_objects),
        duplicates=tuple(item for score in report.videos for item in score.duplicates),
    )
    lines.append(_row("**total**", total))
    return "\n".join(lines)


def _row(name: str, s: VideoScore) -> str:
    cells = [
        name,
        str(s.narrations),
        ratio(s.found, s.objects),
        ratio(s.place_right, s.places),
        ratio(s.sure_right, s.sure),
        ratio(s.likely_right, s.likely),
        str(len(s.invented)),
        str(len(s.non_objects)),
        str(len(s.duplicates)),
        ratio(s.state_right, s.states),
    ]
    return "| " + " | ".join(cells) + " |"


def run_video(
    loaded: LoadedTruth, narrations: Sequence[Narration], config: KitchenConfig, process: StoryProcessor
) -> VideoScore:
    """Ingest the video's narrations (of a file of many videos) into an empty graph as ``kg ingest``
    does, timed, and score it; InputError when the truth cites narrations the file does not have or
    quotes a narration's text."""
    video = [narration for narration in narrations if narration.video == loaded.truth.video]
    missing = check_narrations(loaded, video)
    if missing:
        raise InputError.single(
            f"the narration file has no {_some(missing)} of video {loaded.truth.video}: a truth for another file?",
            loaded.path,
        )
    quoted = quoted_narrations(loaded, video)
    if quoted:
        raise InputError.single(
            f"the truth quotes the text of narration(s) {_some(quoted)}: say it in your own words "
            "(the dataset's text is CC BY-NC and is never committed)",
            loaded.path,
        )
    kg = config.new_graph()
    todo = plan_ingest(video, kg, loaded.path).todo
    started = time.perf_counter()
    for narration in todo:
        process(kg, narration)
    return score_video(loaded.truth, kg, len(todo), time.perf_counter() - started)


def _some(ids: Sequence[str]) -> str:
    """The first five ids and how many more."""
    return ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
