"""LIBERO's task files (BDDL, a PDDL dialect) as data: objects, fixtures, regions, the initial and
the goal predicates (``On``, ``In``, ``Open``, ``Close``, ``TurnOn``, ``TurnOff``), and the scene a
planner sees for one of them.

The files ship in the PyPI package ``libero==0.1.1`` (the ``sim`` extra); they are found on disk and
read as text, never imported: LIBERO's modules ask for a config path when imported.
"""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass, field
from pathlib import Path

from treebrain.manipulation.place_relations import Footprint
from treebrain.manipulation.symbolic import Scene, SymbolicState

SUITES = ("spatial", "object", "goal", "10", "90")
"""The LIBERO suites, as ``treebrain eval planning --suite`` names them (``libero_<suite>`` on disk)."""

GOAL_RELATIONS = {
    "on": "On",
    "in": "In",
    "open": "Open",
    "close": "Close",
    "turnon": "TurnOn",
    "turnoff": "TurnOff",
}
_TOKEN = re.compile(r"\(|\)|[^\s()]+")

Expr = str | list["Expr"]


class BddlError(ValueError):
    """A task file that cannot be read."""


@dataclass(frozen=True)
class Predicate:
    relation: str
    """One of GOAL_RELATIONS' values."""
    args: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.relation}({', '.join(self.args)})"


@dataclass(frozen=True)
class BddlTask:
    name: str
    suite: str
    language: str
    objects: dict[str, str]
    """Movable objects and their category."""
    fixtures: dict[str, str]
    regions: tuple[str, ...]
    """Full region names: ``<target>_<region>`` (``wooden_cabinet_1_top_region``)."""
    init: tuple[Predicate, ...]
    goal: tuple[Predicate, ...]
    footprints: dict[str, Footprint] = field(default_factory=dict)
    """The extents of the regions on a table (x, y ranges in the table's frame), by full name."""

    def scene(self) -> Scene:
        """What a planner sees at the start: objects, where they can go, the fixtures, what holds."""
        articulated = tuple(
            sorted({p.args[0] for p in (*self.init, *self.goal) if p.relation not in ("On", "In")})
        )
        inside = {
            p.args[0]: p.args[1]
            for p in self.init
            if p.relation in ("On", "In") and p.args[0] in self.objects
        }
        return Scene(
            objects=tuple(self.objects),
            regions=tuple(dict.fromkeys((*self.regions, *self.objects, *self.fixtures))),
            fixtures=tuple(dict.fromkeys((*articulated, *self.fixtures))),
            footprints=dict(self.footprints),
            positions=self.positions(),
            skill_set="libero",
            inside=inside,
            opened=tuple(p.args[0] for p in self.init if p.relation == "Open"),
            closed=tuple(p.args[0] for p in self.init if p.relation == "Close"),
            switched_on=tuple(p.args[0] for p in self.init if p.relation == "TurnOn"),
        )

    def positions(self) -> dict[str, Footprint]:
        """Where each object and fixture starts: the extent of the table region it is put in, or of
        the thing (or a part of it: ``wooden_cabinet_1_top_side``) it is put on or in."""
        standing = {
            p.args[0]: p.args[1] for p in self.init if p.relation in ("On", "In") and len(p.args) == 2
        }
        found = {name: self.footprints[place] for name, place in standing.items() if place in self.footprints}
        for _ in range(len(standing)):  # a bowl on a plate on a tray: one level more each round
            for name, place in standing.items():
                holder = next(
                    (other for other in found if place == other or place.startswith(f"{other}_")), ""
                )
                if name not in found and holder:
                    found[name] = found[holder]
        return found


def goal_holds(goal: Predicate, state: SymbolicState) -> bool:
    """Whether a goal predicate holds in a symbolic state."""
    target = goal.args[-1]
    match goal.relation:
        case "On" | "In":
            return state.inside.get(goal.args[0]) == target
        case "Open":
            return target in state.opened
        case "Close":
            return target in state.closed
        case "TurnOn":
            return target in state.switched_on
        case _:
            return target not in state.switched_on


def parse_expression(text: str) -> list[Expr]:
    """The file's top-level s-expressions (``;`` comments dropped)."""
    text = "\n".join(line.split(";", 1)[0] for line in text.splitlines())
    stack: list[list[Expr]] = [[]]
    for token in _TOKEN.findall(text):
        if token == "(":
            stack.append([])
        elif token == ")":
            if len(stack) == 1:
                raise BddlError("unbalanced ')'")
            closed = stack.pop()
            stack[-1].append(closed)
        else:
            stack[-1].append(token)
    if len(stack) != 1:
        raise BddlError("unbalanced '('")
    return stack[0]


def _sections(problem: list[Expr]) -> dict[str, list[Expr]]:
    return {
        str(item[0]).lower(): item[1:]
        for item in problem
        if isinstance(item, list) and item and isinstance(item[0], str)
    }


def _typed(entries: list[Expr]) -> dict[str, str]:
    words = [str(word) for word in entries]
    named: dict[str, str] = {}
    pending: list[str] = []
    index = 0
    while index < len(words):
        if words[index] == "-" and index + 1 < len(words):
            named.update(dict.fromkeys(pending, words[index + 1]))
            pending, index = [], index + 2
        else:
            pending.append(words[index])
            index += 1
    return named


def _predicates(entries: list[Expr]) -> tuple[Predicate, ...]:
    found: list[Predicate] = []
    for entry in entries:
        if not isinstance(entry, list) or not entry:
            continue
        head = str(entry[0]).lower()
        if head in ("and", "or"):
            found.extend(_predicates(entry[1:]))
        elif head in GOAL_RELATIONS:
            found.append(Predicate(GOAL_RELATIONS[head], tuple(str(arg) for arg in entry[1:])))
        else:
            raise BddlError(f"unknown predicate {entry[0]!r}")
    return tuple(found)


def _regions(entries: list[Expr]) -> tuple[str, ...]:
    names: list[str] = []
    for region in entries:
        if not isinstance(region, list) or not region:
            continue
        fields = _sections(region[1:])
        target = fields.get(":target", [])
        names.append(f"{target[0]}_{region[0]}" if target else str(region[0]))
    return tuple(dict.fromkeys(names))


def _footprints(entries: list[Expr]) -> dict[str, Footprint]:
    """The regions on a table and the box their ranges cover (ranges of other fixtures' regions are
    in those fixtures' own frames, so they are left out)."""
    found: dict[str, Footprint] = {}
    for region in entries:
        if not isinstance(region, list) or not region:
            continue
        fields = _sections(region[1:])
        target = fields.get(":target", [])
        boxes = _number_rows(fields.get(":ranges", []))
        if target and "table" in str(target[0]) and boxes:
            found[f"{target[0]}_{region[0]}"] = Footprint(
                x=(min(box[0] for box in boxes), max(box[2] for box in boxes)),
                y=(min(box[1] for box in boxes), max(box[3] for box in boxes)),
            )
    return found


def _number_rows(entries: list[Expr]) -> list[tuple[float, ...]]:
    """Every ``(x1 y1 x2 y2)`` in a nest of lists."""
    rows: list[tuple[float, ...]] = []
    for entry in entries:
        if isinstance(entry, list) and len(entry) == 4 and all(isinstance(item, str) for item in entry):
            try:
                rows.append(tuple(float(str(item)) for item in entry))
            except ValueError:
                continue
        elif isinstance(entry, list):
            rows.extend(_number_rows(entry))
    return rows


def parse_bddl(text: str, name: str = "task", suite: str = "") -> BddlTask:
    """One task file's content; BddlError names what is missing."""
    problems = [
        item for item in parse_expression(text) if isinstance(item, list) and item and item[0] == "define"
    ]
    if not problems:
        raise BddlError("no (define (problem ...)) in the file")
    sections = _sections(problems[0][1:])
    for required in (":objects", ":init", ":goal"):
        if required not in sections:
            raise BddlError(f"no {required} section")
    return BddlTask(
        name=name,
        suite=suite,
        language=" ".join(str(word) for word in sections.get(":language", [])),
        objects=_typed(sections[":objects"]),
        fixtures=_typed(sections.get(":fixtures", [])),
        regions=_regions(sections.get(":regions", [])),
        init=_predicates(sections[":init"]),
        goal=_predicates(sections[":goal"]),
        footprints=_footprints(sections.get(":regions", [])),
    )


def bddl_root() -> Path | None:
    """The directory of LIBERO's task files in the installed ``libero`` package (found without
    importing it), or None when it is not installed."""
    spec = importlib.util.find_spec("libero")
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations))) / "libero" / "bddl_files"
    return root if root.is_dir() else None


def suite_files(suite: str, root: Path) -> list[Path]:
    """The task files of one suite, sorted by name."""
    if suite not in SUITES:
        raise BddlError(f"no LIBERO suite {suite!r} (suites: {', '.join(SUITES)})")
    return sorted((root / f"libero_{suite}").glob("*.bddl"))


def load_suite(suite: str, root: Path) -> list[BddlTask]:
    """Every task of one suite, sorted by file name."""
    return [
        parse_bddl(path.read_text(encoding="utf-8"), path.stem, suite) for path in suite_files(suite, root)
    ]
