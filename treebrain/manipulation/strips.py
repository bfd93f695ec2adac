"""The skills' symbolic models as STRIPS operators, and one scene's planning problem: what a
classical planner (:mod:`treebrain.manipulation.task_planner`) is given.

Each skill of :mod:`treebrain.manipulation.symbolic` is written here as the operators a planner may
use: typed parameters (the skill's own arguments, then those the state binds, such as the held
object), the atoms it requires, deletes and adds. Only positive preconditions, adds and deletes are
used, so every engine that reads STRIPS (pyperplan, Fast Downward) can plan with them. A relation
that holds of one thing at most (what is held, what the gripper is over, where an object is) always
holds of exactly one, :data:`NOTHING` standing for "none", so an operator can delete the old value.

The operators are a sound part of the Python models: every step they allow is allowed by
:func:`~treebrain.manipulation.symbolic.simulate` and leads to the same state (the tests check a
task of every LIBERO suite, ``benchmarks/bench_planner.py`` all 130). They leave out what a shortest plan never needs: approaching twice,
carrying twice, placing twice, letting go in the air after carrying, ``lift`` and ``go_home`` (their
symbolic effects change nothing a goal can ask for).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from treebrain.manipulation.symbolic import SKILL_SETS, Scene, SymbolicState

NOTHING = "nothing"
"""The value of a relation that holds of nothing: ``holding(nothing)`` is a free hand."""
OPEN_AIR = "open_air"
"""The container of a place nothing encloses: never closed."""
TYPES = {"location": "", "item": "location", "fixture": "location"}
"""Type → its parent: every object and fixture is also a place something can be put."""
KIND_TYPES = {"object": "item", "region": "location", "target": "fixture"}
"""A skill argument's kind (``Scene.names``) → its type."""

RELATIONS: dict[str, tuple[str, ...]] = {
    "holding": ("item",),
    "busy": (),
    "free_of": ("location",),
    "over": ("item",),
    "above": ("location",),
    "placed": (),
    "not_placed": (),
    "gripper_open": (),
    "gripper_closed": (),
    "in": ("item", "location"),
    "opened": ("fixture",),
    "closed": ("fixture",),
    "not_closed": ("fixture",),
    "switched_on": ("fixture",),
    "switched_off": ("fixture",),
    "hemmed": ("item",),
    "roomy": ("item",),
    "object": ("item",),
    "region": ("location",),
    "target": ("fixture",),
    "container": ("location", "fixture"),
}
"""Every relation and its arguments' types. ``object``, ``region``, ``target`` and ``container``
are static (the scene's names; a region's enclosing fixtures); the rest change."""

Atom = tuple[str, ...]
"""A relation and its arguments: ``("in", "?object", "?at")``; ``?name`` is a parameter."""


@dataclass(frozen=True)
class Operator:
    """One way a skill can be used by a planner."""

    name: str
    """The operator's own name (a skill with several has ``release_placed``, ``release_dropped``)."""
    skill: str
    params: tuple[tuple[str, str], ...]
    """(name, type): the skill's own arguments (named as the skill names them) first."""
    requires: tuple[Atom, ...]
    deletes: tuple[Atom, ...]
    adds: tuple[Atom, ...]
    unenclosed: str = ""
    """A parameter naming a place: no fixture enclosing it may be closed (``move_to_region``)."""


def _articulation(skill: str, deletes: tuple[Atom, ...], adds: tuple[Atom, ...]) -> Operator:
    """open, close, turn_on, turn_off: a fixture, with the hand free and over no object (the Python
    model lets the hand leave an object it approached; a shortest plan never approaches first)."""
    requires = (("target", "?target"), ("holding", NOTHING), ("over", NOTHING))
    return Operator(skill, skill, (("target", "fixture"),), requires, deletes, adds)


OPERATORS: dict[str, tuple[Operator, ...]] = {
    "approach": (
        Operator(
            "approach",
            "approach",
            (("object", "item"),),
            requires=(("object", "?object"), ("holding", NOTHING), ("over", NOTHING)),
            deletes=(("over", NOTHING), ("gripper_closed",)),
            adds=(("over", "?object"), ("gripper_open",)),
        ),
    ),
    "grasp": (
        Operator(
            "grasp",
            "grasp",
            (("object", "item"), ("at", "location")),
            requires=(
                ("object", "?object"),
                ("holding", NOTHING),
                ("over", "?object"),
                ("gripper_open",),
                ("roomy", "?object"),
                ("in", "?object", "?at"),
            ),
            deletes=(
                ("holding", NOTHING),
                ("free_of", "?object"),
                ("over", "?object"),
                ("gripper_open",),
                ("in", "?object", "?at"),
            ),
            adds=(
                ("holding", "?object"),
                ("busy",),
                ("over", NOTHING),
                ("gripper_closed",),
                ("in", "?object", NOTHING),
            ),
        ),
    ),
    "lift": (),
    "move_to_region": (
        Operator(
            "move_to_region",
            "move_to_region",
            (("region", "location"),),
            requires=(("region", "?region"), ("busy",), ("free_of", "?region"), ("above", NOTHING)),
            deletes=(("above", NOTHING),),
            adds=(("above", "?region"),),
            unenclosed="?region",
        ),
    ),
    "place": (
        Operator(
            "place",
            "place",
            (("region", "location"),),
            requires=(("region", "?region"), ("busy",), ("above", "?region"), ("not_placed",)),
            deletes=(("not_placed",),),
            adds=(("placed",),),
        ),
    ),
    "release": (
        Operator(
            "release_placed",
            "release",
            (("held", "item"), ("at", "location")),
            requires=(("gripper_closed",), ("holding", "?held"), ("above", "?at"), ("placed",)),
            deletes=(
                ("holding", "?held"),
                ("busy",),
                ("above", "?at"),
                ("placed",),
                ("gripper_closed",),
                ("in", "?held", NOTHING),
            ),
            adds=(
                ("holding", NOTHING),
                ("free_of", "?held"),
                ("above", NOTHING),
                ("not_placed",),
                ("gripper_open",),
                ("in", "?held", "?at"),
            ),
        ),
        Operator(
            "release_dropped",
            "release",
            (("held", "item"),),
            requires=(("gripper_closed",), ("holding", "?held"), ("above", NOTHING), ("not_placed",)),
            deletes=(("holding", "?held"), ("busy",), ("gripper_closed",)),
            adds=(("holding", NOTHING), ("free_of", "?held"), ("gripper_open",)),
        ),
    ),
    "go_home": (),
    "make_room": (
        Operator(
            "make_room",
            "make_room",
            (("object", "item"),),
            requires=(("object", "?object"), ("hemmed", "?object"), ("holding", NOTHING), ("over", NOTHING)),
            deletes=(("hemmed", "?object"),),
            adds=(("roomy", "?object"),),
        ),
    ),
    "open": (
        _articulation("open", (("closed", "?target"),), (("opened", "?target"), ("not_closed", "?target"))),
    ),
    "close": (
        _articulation("close", (("opened", "?target"), ("not_closed", "?target")), (("closed", "?target"),)),
    ),
    "turn_on": (_articulation("turn_on", (("switched_off", "?target"),), (("switched_on", "?target"),)),),
    "turn_off": (_articulation("turn_off", (("switched_on", "?target"),), (("switched_off", "?target"),)),),
}
"""Each registered skill's operators (none for a skill no goal needs)."""


def enclosures(scene: Scene) -> dict[str, tuple[str, ...]]:
    """Each place's enclosing fixtures: those whose name starts its own (a drawer's region and its
    cabinet), as the Python model's precondition of ``move_to_region`` reads them."""
    return {
        place: tuple(fixture for fixture in scene.fixtures if place.startswith(fixture))
        for place in scene.regions
    }


def state_atoms(state: SymbolicState, scene: Scene) -> frozenset[Atom]:
    """The atoms of a symbolic state of `scene` (the static ones included)."""
    atoms: set[Atom] = {
        ("holding", state.holding or NOTHING),
        ("over", state.over_object or NOTHING),
        ("above", state.over_region or NOTHING),
        ("placed",) if state.placed else ("not_placed",),
        ("gripper_open",) if state.gripper_open else ("gripper_closed",),
        ("not_closed", OPEN_AIR),
    }
    if state.holding is not None:
        atoms.add(("busy",))
    atoms.update(("free_of", name) for name in _locations(scene) if name != state.holding)
    atoms.update(("object", name) for name in scene.objects)
    atoms.update(("region", name) for name in scene.regions)
    atoms.update(("target", name) for name in scene.fixtures)
    for place, fixtures in enclosures(scene).items():
        atoms.update(("container", place, fixture) for fixture in fixtures)
    for name in scene.objects:
        atoms.add(("in", name, state.inside.get(name, NOTHING)))
        atoms.add(("hemmed", name) if name in state.hemmed else ("roomy", name))
    for fixture in scene.fixtures:
        atoms.add(("closed", fixture) if fixture in state.closed else ("not_closed", fixture))
        atoms.add(("switched_on", fixture) if fixture in state.switched_on else ("switched_off", fixture))
        if fixture in state.opened:
            atoms.add(("opened", fixture))
    return frozenset(atoms)


def _locations(scene: Scene) -> list[str]:
    return list(dict.fromkeys((*scene.objects, *scene.regions, *scene.fixtures)))


def object_types(scene: Scene) -> dict[str, str]:
    """Every name of the scene (and the two stand-ins) and its type; a name that is both an object
    and a fixture cannot be typed (no LIBERO scene has one)."""
    both = sorted(set(scene.objects) & set(scene.fixtures))
    if both:
        raise ValueError(f"{', '.join(both)} is both an object and a fixture: the planner cannot type it")
    types = {NOTHING: "item", OPEN_AIR: "fixture"}
    types.update(dict.fromkeys(scene.inside.values(), "location"))  # where things start, named or not
    types.update(dict.fromkeys(scene.regions, "location"))
    types.update(dict.fromkeys(scene.fixtures, "fixture"))
    types.update(dict.fromkeys(scene.objects, "item"))
    return types


class OperatorSpec(BaseModel):
    """An operator with its enclosure requirement spelt out (what the planner is sent)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    skill: str
    params: list[tuple[str, str]]
    args: list[str]
    """The parameters that are the skill's own arguments (the step a plan gets)."""
    requires: list[list[str]]
    deletes: list[list[str]]
    adds: list[list[str]]


class PlanningProblem(BaseModel):
    """One scene's planning problem: typed names, operators, the true atoms now, the goal atoms."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    objects: dict[str, str]
    """Name → type (``item``, ``fixture`` or ``location``)."""
    relations: dict[str, list[str]]
    operators: list[OperatorSpec]
    init: list[list[str]]
    goal: list[list[str]]

    def describe(self) -> str:
        """The problem in a few lines, for records and logs."""
        init = ", ".join(_text(atom) for atom in self.init if atom[0].rstrip("0123456789") not in _STATIC)
        return (
            f"objects: {len(self.objects)}; operators: {', '.join(op.name for op in self.operators)}\n"
            f"init: {init}\ngoal: {', '.join(_text(atom) for atom in self.goal)}"
        )


_STATIC = ("object", "region", "target", "container", "free_of")
"""Relations that never change (``container0``, ``container1`` ... are ``container``)."""


def _text(atom: Iterable[str]) -> str:
    relation, *args = atom
    return f"{relation}({', '.join(args)})"


def _spelt_out(operator: Operator, skill_params: tuple[str, ...], depth: int) -> OperatorSpec:
    """`operator` with its enclosure requirement as `depth` extra fixture parameters, each an
    enclosing fixture (or the open air) that must not be closed: the i-th parameter is the place's
    i-th enclosure (``container<i>``), so no two can name the same one and leave a closed drawer
    unchecked (the cabinet twice, not the drawer)."""
    params = list(operator.params)
    requires = [list(atom) for atom in operator.requires]
    if operator.unenclosed:
        for index in range(depth):
            fixture = f"?enclosure{index}"
            params.append((fixture[1:], "fixture"))
            requires += [[f"container{index}", operator.unenclosed, fixture], ["not_closed", fixture]]
    return OperatorSpec(
        name=operator.name,
        skill=operator.skill,
        params=params,
        args=[name for name, _ in operator.params if name in skill_params],
        requires=requires,
        deletes=[list(atom) for atom in operator.deletes],
        adds=[list(atom) for atom in operator.adds],
    )


def relevant_scene(scene: Scene, goal: Iterable[Atom]) -> Scene:
    """The part of `scene` a plan for `goal` can use: the objects the goal places and the one held,
    the places they go to and are in now, the fixtures the goal switches and those enclosing those
    places. Nothing in the skills' models makes moving any other object useful (a neighbour that
    hems an object in is moved by that object's own ``make_room``), so a shortest plan is a plan of
    this part, and the planner searches far fewer steps."""
    goal = list(goal)
    movers = {atom[1] for atom in goal if atom[0] == "in"} | ({scene.holding} if scene.holding else set())
    places = {atom[2] for atom in goal if atom[0] == "in"}
    chains = enclosures(scene)
    fixtures = {atom[1] for atom in goal if atom[0] != "in"}
    fixtures.update(fixture for place in places for fixture in chains.get(place, ()))
    here = {scene.inside[name] for name in movers if name in scene.inside}
    objects = tuple(name for name in scene.objects if name in movers)
    return scene.model_copy(
        update={
            "objects": objects,
            "regions": tuple(name for name in scene.regions if name in places | here),
            "fixtures": tuple(name for name in scene.fixtures if name in fixtures),
            "inside": {name: place for name, place in scene.inside.items() if name in movers},
            "hemmed": {name: other for name, other in scene.hemmed.items() if name in movers},
            "opened": tuple(name for name in scene.opened if name in fixtures),
            "closed": tuple(name for name in scene.closed if name in fixtures),
            "switched_on": tuple(name for name in scene.switched_on if name in fixtures),
        }
    )


def planning_problem(scene: Scene, goal: Iterable[Atom]) -> PlanningProblem:
    """The problem of reaching `goal` (atoms such as ``("in", "Can", "bin_can")``) from the scene now
    with the scene's skills, over the scene's :func:`relevant_scene`. A place with fewer enclosing
    fixtures than the deepest one is enclosed by the open air in the remaining positions, so one
    operator covers every place."""
    goal = list(goal)
    scene = relevant_scene(scene, goal)
    chains = enclosures(scene)
    depth = max((len(chain) for chain in chains.values()), default=0)
    atoms = {atom for atom in state_atoms(SymbolicState.of(scene), scene) if atom[0] != "container"}
    for place, chain in chains.items():
        padded = (*chain, *(OPEN_AIR,) * (depth - len(chain)))
        atoms.update((f"container{index}", place, fixture) for index, fixture in enumerate(padded))
    relations = {name: list(types) for name, types in RELATIONS.items() if name != "container"}
    relations.update({f"container{index}": list(RELATIONS["container"]) for index in range(depth)})
    operators = [
        _spelt_out(operator, skill.params, depth)
        for name, skill in SKILL_SETS[scene.skill_set].items()
        for operator in OPERATORS[name]
    ]
    return PlanningProblem(
        objects=object_types(scene),
        relations=relations,
        operators=operators,
        init=sorted(list(atom) for atom in atoms),
        goal=[list(atom) for atom in goal],
    )
