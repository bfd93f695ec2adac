"""The story-consistency suite: long narrated sessions and the true end of each story, scored.

A story is an EPIC-KITCHENS-style narration file (``config/kitchen/stories/*.csv``, sorted by
narration id as the dataset's files are) and a truth file beside it (``*.yaml``): every object the
narrations handle with the names they use for it, where it truly is at the end and its state, the
places (zones) with their final state, and the nouns that are neither ("hand"). The file's ``noun``
column says what each narration is about, as the dataset's own column does.

Scoring reads only the final graph, so it judges what a user would see:

- location accuracy: each object's node is where the story leaves it (a zone, a hand, another object
  such as the plate, or unknown);
- state accuracy: objects' and places' final states;
- invented nodes: nodes that are no object or place of the story, or that the narration creating
  them does not name;
- duplicates: one thing as several nodes ("pan" and "frying pan", a plate that is also a zone);
- misattributed events: history entries on a node the narration is not about;
- unattributed share: narrations kept as unattributed events (and how many the story expects:
  those about the person's own hands);
- lost narrations: narrations that left no trace at all.
"""

from __future__ import annotations

import csv
import io
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from pydantic import Field

from treebrain.documents import load_located
from treebrain.errors import InputError
from treebrain.kg.classes import dataset_words
from treebrain.kg.config import KitchenConfig
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.ingest import plan_ingest
from treebrain.kg.models import FoodView, Frozen, Interaction, Narration
from treebrain.kg.names import NameResolver, normalise_phrase, singular_phrase, words
from treebrain.kg.narrations import read_narrations
from treebrain.yaml_source import read_text

IN_HAND = "hand"
UNKNOWN = "unknown"


class StoryObject(Frozen):
    """A thing the narrations handle, every name they use for it, and how the story leaves it."""

    name: str = Field(min_length=1)
    also: list[str] = []
    location: str = Field(min_length=1, description="a place, another object, 'hand' or 'unknown'")
    state: str = "unknown"
    instances: int = Field(
        1, ge=1, description="things going by these names: a bottle and the portion poured from it are 2"
    )


class StoryPlace(Frozen):
    """A zone the narrations name, with its final state when the story changes it."""

    name: str = Field(min_length=1)
    also: list[str] = []
    state: str | None = None


class Story(Frozen):
    """One truth file: the narration file it describes and the true end of the story."""

    id: str = Field(min_length=1)
    description: str
    narrations: str = Field(min_length=1, description="the narration file, relative to this file")
    noun_column: str = "noun"
    objects: list[StoryObject] = Field(min_length=1)
    places: list[StoryPlace] = []
    others: list[str] = []


class LoadedStory(Frozen):
    """A story with its narration file's path and what each narration is about (by narration id)."""

    story: Story
    narrations_path: Path
    nouns: dict[str, str]


class StoryScore(Frozen):
    """How one run of a story ended, against the story's truth."""

    story: str
    narrations: int
    seconds: float
    objects: int
    location_ok: int
    states: int
    state_ok: int
    invented: tuple[str, ...] = ()
    duplicates: tuple[str, ...] = ()
    misattributed: tuple[str, ...] = ()
    unattributed: int = 0
    expected_unattributed: int = 0
    lost: tuple[str, ...] = ()
    wrong: tuple[str, ...] = ()

    def count(self, field: str) -> int:
        """A number field, or how many findings a list field holds ("invented", "misattributed")."""
        value = getattr(self, field)
        return len(value) if isinstance(value, tuple) else int(value)


class StoryReport(Frozen):
    """Every story's score and the totals."""

    stories: tuple[StoryScore, ...]

    def total(self, field: str) -> int:
        return sum(score.count(field) for score in self.stories)

    @property
    def narrations(self) -> int:
        return self.total("narrations")

    @property
    def location_accuracy(self) -> float:
        return _ratio(self.total("location_ok"), self.total("objects"))

    @property
    def state_accuracy(self) -> float:
        return _ratio(self.total("state_ok"), self.total("states"))

    @property
    def unattributed_share(self) -> float:
        return _ratio(self.total("unattributed"), self.narrations)

    @property
    def expected_unattributed_share(self) -> float:
        return _ratio(self.total("expected_unattributed"), self.narrations)

    @property
    def narrations_per_second(self) -> float:
        seconds = sum(score.seconds for score in self.stories)
        return self.narrations / seconds if seconds > 0 else 0.0


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else 1.0


def load_stories(directory: str | Path) -> list[LoadedStory]:
    """Every truth file (``*.yaml``) in `directory`, sorted, with its narration file's nouns."""
    files = sorted(Path(directory).glob("*.yaml"))
    if not files:
        raise InputError.single("no story files (*.yaml) here", directory)
    loaded: list[LoadedStory] = []
    for path in files:
        story, source = load_located(path, Story)
        narrations = path.parent / story.narrations
        if not narrations.is_file():
            raise InputError([source.problem_at(("narrations",), f"no narration file {narrations}")])
        loaded.append(
            LoadedStory(story=story, narrations_path=narrations, nouns=_nouns(narrations, story.noun_column))
        )
    return loaded


def _nouns(path: Path, column: str) -> dict[str, str]:
    rows = csv.DictReader(io.StringIO(read_text(path), newline=""))
    if column not in (rows.fieldnames or []):
        raise InputError.single(
            f"no {column!r} column: the story needs what each narration is about", path, 1
        )
    return {row["narration_id"]: dataset_words(row[column]) for row in rows}


def _key(name: str) -> str:
    phrase = normalise_phrase(name)
    return singular_phrase(phrase) if phrase else phrase


class _Entities:
    """The story's things by every name they go by; a graph node is matched to one of them."""

    def __init__(self, story: Story, names: NameResolver) -> None:
        self.names = names
        self.aliases = {item.name: (item.name, *item.also) for item in story.objects}
        self.aliases.update({item.name: (item.name, *item.also) for item in story.places})
        self.by_key: dict[str, str] = {}
        self.canonical: dict[str, str] = {}
        for name, aliases in self.aliases.items():
            for alias in aliases:
                self.by_key.setdefault(_key(alias), name)
                self.canonical.setdefault(names.canonical(alias), name)
        self.others = {_key(other) for other in story.others}

    def of(self, name: str) -> str | None:
        """The story's thing `name` denotes (its own name or an alias, synonyms folded), if any."""
        return self.by_key.get(_key(name)) or self.canonical.get(self.names.canonical(name))

    def named_in(self, thing: str, text: str) -> bool:
        """Whether the narration text names `thing` by one of its names."""
        tokens = f" {' '.join(_key(word) for word in words(text))} "
        return any(f" {_key(alias)} " in tokens for alias in self.aliases.get(thing, (thing,)))


#: Processes one narration on a graph (updating it): the plain loop, or the kitchen tree.
StoryProcessor = Callable[[KitchenGraph, Narration], object]


def run_story(loaded: LoadedStory, config: KitchenConfig, process: StoryProcessor) -> StoryScore:
    """Ingest a story into an empty graph as ``kg ingest`` does (time order), timed, and score it."""
    kg = config.new_graph()
    narrations = plan_ingest(
        read_narrations(loaded.narrations_path, config.columns), kg, loaded.narrations_path
    ).todo
    started = time.perf_counter()
    for narration in narrations:
        process(kg, narration)
    elapsed = time.perf_counter() - started
    return score_story(loaded, narrations, kg, config.vocabulary.names, elapsed)


def score_story(
    loaded: LoadedStory,
    narrations: Sequence[Narration],
    kg: KitchenGraph,
    names: NameResolver,
    seconds: float,
) -> StoryScore:
    """Score the graph a run of `narrations` (the story's, as ingested) left behind."""
    story = loaded.story
    entities = _Entities(story, names)
    nodes: dict[str, list[str]] = {}
    invented: list[str] = []
    misattributed: list[str] = []
    events = kg.events()
    traced = {event.narration_id for event in events}
    for node_id, name, history in _nodes(kg):
        thing = entities.of(name)
        traced.update(entry.narration_id for entry in history)
        if thing is None:
            invented.append(f"{node_id} ({name!r}) is no object or place of the story")
        else:
            nodes.setdefault(thing, []).append(node_id)
            first = history[0] if history else None
            if first is not None and kg.has_food(node_id) and not entities.named_in(thing, first.narration):
                invented.append(
                    f"{node_id} ({name!r}) was created by {first.narration!r}, which does not name it"
                )
        for entry in history:
            if thing is None or entities.of(loaded.nouns.get(entry.narration_id, "")) != thing:
                misattributed.append(
                    f"{entry.narration_id} {entry.narration!r} is in the history of {node_id}"
                )
    instances = {item.name: item.instances for item in story.objects}
    duplicates = [
        f"{thing}: {', '.join(ids)}" for thing, ids in nodes.items() if len(ids) > instances.get(thing, 1)
    ]
    wrong: list[str] = []
    location_ok = state_ok = states = 0
    for item in story.objects:
        food = _newest_food(kg, nodes.get(item.name, []))
        if food is None:
            wrong.append(f"{item.name}: no node")
            states += 1
            continue
        where = _location(food, entities)
        if _same_place(where, item.location, entities) or _guessed_unknown(food, item.location):
            location_ok += 1
        else:
            wrong.append(f"{item.name} ({food.food_id}) is at {where!r}, truly at {item.location!r}")
        states += 1
        if food.state == item.state:
            state_ok += 1
        else:
            wrong.append(f"{item.name} ({food.food_id}) is {food.state!r}, truly {item.state!r}")
    for place in story.places:
        if place.state is None:
            continue
        states += 1
        zone = next((node for node in nodes.get(place.name, []) if kg.has_zone(node)), None)
        zone_state = kg.zone_view(zone).state if zone else "no node"
        if zone_state == place.state:
            state_ok += 1
        else:
            wrong.append(f"{place.name} is {zone_state!r}, truly {place.state!r}")
    return StoryScore(
        story=story.id,
        narrations=len(narrations),
        seconds=seconds,
        objects=len(story.objects),
        location_ok=location_ok,
        states=states,
        state_ok=state_ok,
        invented=tuple(invented),
        duplicates=tuple(duplicates),
        misattributed=tuple(misattributed),
        unattributed=len(events),
        expected_unattributed=sum(
            _key(loaded.nouns.get(narration.id, "")) in entities.others for narration in narrations
        ),
        lost=tuple(narration.id for narration in narrations if narration.id not in traced),
        wrong=tuple(wrong),
    )


def _nodes(kg: KitchenGraph) -> Iterable[tuple[str, str, list[Interaction]]]:
    for food_id in kg.food_ids():
        yield food_id, kg.view(food_id, 0).name, kg.history(food_id)
    for zone_id in kg.zone_ids():
        yield zone_id, kg.zone_view(zone_id).name, kg.history(zone_id)


def _newest_food(kg: KitchenGraph, node_ids: Sequence[str]) -> FoodView | None:
    """The node a "where is" question answers with: the most recently seen food node."""
    foods = [kg.view(node_id, 0) for node_id in node_ids if kg.has_food(node_id)]
    return max(foods, key=lambda food: food.last_seen, default=None)


def _location(food: FoodView, entities: _Entities) -> str:
    """Where the object is, in the story's words: a place or object of the story, "hand", "unknown"."""
    if food.hand is not None:
        return IN_HAND
    name = food.location_name or UNKNOWN
    return entities.of(name) or name


def _guessed_unknown(food: FoodView, expected: str) -> bool:
    """A place the graph marks likely (inferred: "put sponge down" on the work surface) where the
    story says the narrations leave it unknown: a marked guess, not a wrong answer."""
    return expected == UNKNOWN and food.place_certainty == "likely"


def _same_place(actual: str, expected: str, entities: _Entities) -> bool:
    return (
        actual == expected
        or _key(actual) == _key(expected)
        or entities.of(actual) == entities.of(expected) is not None
    )


def story_markdown(report: StoryReport, label: str) -> str:
    """The suite's table: one column per story and the total."""
    columns = [*report.stories]
    header = ["metric", *(score.story for score in columns), "total"]

    def row(name: str, values: Iterable[str], total: str) -> str:
        return f"| {name} | {' | '.join(values)} | {total} |"

    def per(field: str) -> list[str]:
        return [str(score.count(field)) for score in columns]

    lines = [f"**{label}**", "", f"| {' | '.join(header)} |", "|" + "---|" * len(header)]
    lines.append(row("narrations", per("narrations"), str(report.narrations)))
    lines.append(
        row(
            "location accuracy",
            (f"{_ratio(s.location_ok, s.objects):.1%}" for s in columns),
            f"{report.location_accuracy:.1%}",
        )
    )
    lines.append(
        row(
            "state accuracy",
            (f"{_ratio(s.state_ok, s.states):.1%}" for s in columns),
            f"{report.state_accuracy:.1%}",
        )
    )
    for name, field in (
        ("invented nodes", "invented"),
        ("duplicate entities", "duplicates"),
        ("misattributed events", "misattributed"),
        ("lost narrations", "lost"),
    ):
        lines.append(row(name, per(field), str(report.total(field))))
    lines.append(
        row(
            "unattributed share (expected)",
            (
                f"{_ratio(s.unattributed, s.narrations):.1%} ({_ratio(s.expected_unattributed, s.narrations):.1%})"
                for s in columns
            ),
            f"{report.unattributed_share:.1%} ({report.expected_unattributed_share:.1%})",
        )
    )
    lines.append(
        row(
            "narrations per second",
            (f"{s.narrations / s.seconds:.1f}" if s.seconds > 0 else "-" for s in columns),
            f"{report.narrations_per_second:.1f}",
        )
    )
    return "\n".join(lines)
