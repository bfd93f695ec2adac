"""Skills driven step by step against the kinematic stand-in: a whole pick and place, the results,
precondition failures (nothing moves), slips, running out of steps and being halted."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest

from tests.conftest import WriteFile
from tests.manipulation.conftest import box, observe
from treebrain.manipulation.control import CartesianController, ControllerSettings
from treebrain.manipulation.geometry import axis_angle, heading, wrap_half_turn
from treebrain.manipulation.skills import SKILLS, SkillContext, SkillResult, SkillRun, SkillSettings
from treebrain.manipulation.skills import hemmed as hemmed_in
from treebrain.manipulation.tasks import TaskSpec, load_tasks
from treebrain.manipulation.world import WorldState, update_world
from treebrain.robots.manipulator.kinematic import (
    KinematicDriver,
    KinematicObject,
    KinematicParams,
    SuccessBox,
)
from treebrain.robots.manipulator.limits import Interval, ManipulatorLimits, Workspace
from treebrain.robots.manipulator.observation import Contact, ManipulatorObservation, Vec3

TASKS = """
tasks:
  CubeToBin:
    description: put the cube in the bin, or on the block
    objects: [cube, block]
    regions:
      bin: {kind: box, x: {min: 0.1, max: 0.3}, y: {min: -0.3, max: -0.1}, z: {min: 0.79, max: 1.2}, surface_z: 0.8}
      on_block: {kind: on_object, object: block}
    home: [-0.1, 0.0, 1.0]
    goal: ["in(cube, bin)", "not holding(cube)"]
"""
LIMITS = ManipulatorLimits(
    workspace=Workspace(
        x=Interval(min=-1.0, max=1.0), y=Interval(min=-1.0, max=1.0), z=Interval(min=0.5, max=2.0)
    )
)
CUBE = KinematicObject(name="cube", position=(0.0, 0.0, 0.82), half_extents=(0.02, 0.02, 0.02))
BLOCK = KinematicObject(name="block", position=(0.1, 0.15, 0.825), half_extents=(0.025, 0.025, 0.025))
IN_BIN = SuccessBox(object="cube", x=Interval(min=0.1, max=0.3), y=Interval(min=-0.3, max=-0.1))
PICK_AND_PLACE = [
    ("approach", {"object": "cube"}),
    ("grasp", {"object": "cube"}),
    ("lift", {}),
    ("move_to_region", {"region": "bin"}),
    ("place", {"region": "bin"}),
    ("release", {}),
]


class Scene:
    """The kinematic driver, the task and a controller, stepped the way the manipulation leaves do."""

    def __init__(self, task: TaskSpec, settings: SkillSettings | None = None, **params: object) -> None:
        self.task = task
        self.settings = settings or SkillSettings()
        kinematic = KinematicParams.model_validate(
            {"task": "CubeToBin", "objects": [CUBE, BLOCK], "success": IN_BIN, **params}
        )
        self.driver = KinematicDriver(kinematic, LIMITS)
        self.observation: ManipulatorObservation = self.driver.reset()
        self.world: WorldState = update_world(self.observation, task.regions)
        self.controller = CartesianController(ControllerSettings(), self.driver.control_period_s)
        self.controller.begin_episode(self.observation.gripper)

    def finger_heading(self) -> float:
        return heading(self.observation.gripper.finger_axis)

    def start(self, skill: str, attempt: int = 1, /, **args: str) -> SkillRun | str:
        context = SkillContext(self.task, self.settings, self.controller, attempt)
        return SKILLS[skill].start(self.world, args, context)

    def step(self, run: SkillRun) -> SkillResult | None:
        """One control step of `run`; its result once it has ended."""
        out = run.step(self.observation, self.world)
        if isinstance(out, SkillResult):
            return out
        self.driver.act(out)
        self.observation = self.driver.observe()
        self.world = update_world(self.observation, self.task.regions, self.world)
        return None

    def finish(self, run: SkillRun) -> SkillResult:
        for _ in range(10_000):
            result = self.step(run)
            if result is not None:
                return result
        raise AssertionError(f"{run.name} never ended")

    def run(self, skill: str, attempt: int = 1, /, **args: str) -> SkillResult:
        started = self.start(skill, attempt, **args)
        assert isinstance(started, SkillRun), started
        return self.finish(started)

    def run_all(self, skills: list[tuple[str, dict[str, str]]]) -> list[SkillResult]:
        results = []
        for skill, args in skills:
            results.append(self.run(skill, **args))
            assert results[-1].success, results[-1]
        return results


@pytest.fixture
def task(write: WriteFile) -> TaskSpec:
    return load_tasks(write("tasks.yaml", TASKS)).task("CubeToBin")


@pytest.fixture
def scene(task: TaskSpec) -> Scene:
    return Scene(task)


def approached(scene: Scene) -> Scene:
    scene.run_all(PICK_AND_PLACE[:1])
    return scene


def holding(scene: Scene) -> Scene:
    scene.run_all(PICK_AND_PLACE[:3])
    assert scene.world.holding == "cube"
    return scene


# -- a whole pick and place -----------------------------------------------------------------------


def test_pick_and_place_into_a_bin(scene: Scene) -> None:
    results = scene.run_all(PICK_AND_PLACE)
    assert [result.skill for result in results] == [skill for skill, _ in PICK_AND_PLACE]
    world = scene.world
    assert world.inside["cube"] == "bin"
    assert world.holding is None
    assert world.gripper_open
    assert world.on["cube"] == "table"
    assert {"in(cube, bin)", "on(cube, table)", "gripper_open"} <= set(world.facts())
    assert scene.observation.task_success
    # the bin's corner nearest the robot's base, kept the cube's half width plus the wall clearance inside
    assert world.objects["cube"].center[:2] == pytest.approx((0.15, -0.15), abs=0.005)


def test_each_step_of_the_way_shows_in_the_facts(scene: Scene) -> None:
    facts = [set(result.facts) for result in scene.run_all(PICK_AND_PLACE)]
    approach, grasp, lift, move, place, release = facts
    assert {"gripper_open", "on(cube, table)"} <= approach
    assert {"holding(cube)", "gripper_closed"} <= grasp
    assert {"holding(cube)", "lifted(cube)"} <= lift
    assert {"holding(cube)", "in(cube, bin)"} <= move & place
    assert "holding(cube)" not in release


def test_stacking_on_an_object_region(scene: Scene) -> None:
    scene.run_all(
        [
            *PICK_AND_PLACE[:3],
            ("move_to_region", {"region": "on_block"}),
            ("place", {"region": "on_block"}),
            ("release", {}),
        ]
    )
    assert scene.world.on["cube"] == "block"
    assert scene.world.inside["cube"] == "on_block"
    assert "on(cube, block)" in scene.world.facts()


@pytest.mark.parametrize(
    ("thing", "line"),
    [
        (
            KinematicObject(name="cube", position=(0.0, 0.0, 0.82), half_extents=(0.02, 0.02, 0.02), yaw=1.2),
            1.2 + math.pi / 2,
        ),
        (
            KinematicObject(name="cube", position=(0.0, 0.0, 0.82), half_extents=(0.05, 0.02, 0.02), yaw=0.3),
            0.3 + math.pi / 2,
        ),
    ],
    ids=["turned-cube-smaller-wrist-turn", "turned-bar-narrow-side"],
)
def test_turned_objects_are_gripped_along_their_own_axes(
    task: TaskSpec, thing: KinematicObject, line: float
) -> None:
    turned = Scene(task, objects=[thing, BLOCK])
    turned.run_all(PICK_AND_PLACE[:2])
    assert abs(wrap_half_turn(turned.finger_heading() - line)) < 0.01
    turned.run_all(PICK_AND_PLACE[2:])
    assert turned.world.inside["cube"] == "bin"


@pytest.mark.parametrize(("attempt", "line"), [(1, math.pi / 2), (2, 0.0)])
def test_the_fingers_avoid_a_close_neighbour_until_a_retry(task: TaskSpec, attempt: int, line: float) -> None:
    beside = KinematicObject(name="block", position=(0.065, 0.0, 0.825), half_extents=(0.025, 0.025, 0.025))
    crowded = Scene(task, objects=[CUBE, beside])
    assert crowded.run("approach", attempt, object="cube").success
    assert abs(wrap_half_turn(crowded.finger_heading() - line)) < 0.01
    assert crowded.run("grasp", attempt, object="cube").success


def test_go_home_after_the_job(scene: Scene) -> None:
    scene.run_all([*PICK_AND_PLACE, ("go_home", {})])
    x, y, z = scene.world.gripper_position
    home: Vec3 = scene.task.home
    assert abs(x - home[0]) + abs(y - home[1]) + abs(z - home[2]) <= 2 * scene.settings.waypoint_tolerance_m


# -- results --------------------------------------------------------------------------------------


def test_a_result_says_what_the_skill_did(scene: Scene) -> None:
    before = scene.observation.step
    result = scene.run("approach", object="cube")
    assert result == SkillResult(
        skill="approach",
        args={"object": "cube"},
        success=True,
        reason="",
        steps=scene.observation.step - before,
        final_position=scene.observation.gripper.position,
        final_quaternion=scene.observation.gripper.quaternion,
        facts=scene.world.facts(),
    )
    assert result.steps > 0
    cube = scene.world.objects["cube"].center
    assert result.final_position is not None
    assert result.final_position[:2] == pytest.approx(cube[:2], abs=scene.settings.over_object_m)


def test_an_ended_run_keeps_giving_its_result(scene: Scene) -> None:
    run = scene.start("approach", object="cube")
    assert isinstance(run, SkillRun)
    result = scene.finish(run)
    assert run.step(scene.observation, scene.world) is result


# -- preconditions --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("setup", "skill", "args", "reason"),
    [
        (
            None,
            "grasp",
            {"object": "cube"},
            "precondition of grasp: the gripper is not over cube (approach it first)",
        ),
        (
            None,
            "approach",
            {"object": "ball"},
            "precondition of approach: no object 'ball' in the scene (objects: block, cube)",
        ),
        (
            None,
            "grasp",
            {"object": "ball"},
            "precondition of grasp: no object 'ball' in the scene (objects: block, cube)",
        ),
        (
            None,
            "move_to_region",
            {"region": "shelf"},
            "precondition of move_to_region: no region 'shelf' in this task (regions: bin, on_block)",
        ),
        (None, "move_to_region", {"region": "bin"}, "precondition of move_to_region: holding nothing"),
        (None, "lift", {}, "precondition of lift: holding nothing"),
        (None, "place", {"region": "bin"}, "precondition of place: holding nothing"),
        (None, "approach", {}, "approach needs object"),
        (None, "place", {"region": ""}, "place needs region"),
        (approached, "release", {}, "precondition of release: the gripper is already open"),
        (holding, "approach", {"object": "block"}, "precondition of approach: already holding cube"),
        (holding, "grasp", {"object": "cube"}, "precondition of grasp: already holding cube"),
        (
            holding,
            "place",
            {"region": "bin"},
            "precondition of place: cube is not over bin (move_to_region first)",
        ),
        (
            holding,
            "place",
            {"region": "hole"},
            "precondition of place: no region 'hole' in this task (regions: bin, on_block)",
        ),
    ],
)
def test_a_failed_precondition_is_named_and_nothing_moves(
    scene: Scene, setup: Callable[[Scene], Scene] | None, skill: str, args: dict[str, str], reason: str
) -> None:
    if setup is not None:
        setup(scene)
    steps = scene.observation.step
    assert scene.start(skill, **args) == reason
    assert scene.driver.observe().step == steps


def test_grasp_needs_an_open_gripper(scene: Scene) -> None:
    """At reset the stand-in's fingers are half closed (4 cm): over the cube is not enough."""
    scene.world = scene.world.model_copy(update={"gripper_position": (0.0, 0.0, 0.9)})
    assert scene.start("grasp", object="cube") == "precondition of grasp: the gripper is not open"


def test_grasp_from_below_the_top_is_refused(scene: Scene) -> None:
    scene.world = scene.world.model_copy(update={"gripper_position": (0.0, 0.0, 0.83), "gripper_open": True})
    assert (
        scene.start("grasp", object="cube") == "precondition of grasp: the gripper is below the top of cube"
    )


def test_approaching_an_object_too_wide_to_grip_fails_with_the_reason(task: TaskSpec) -> None:
    crate = KinematicObject(name="cube", position=(0.0, 0.0, 0.85), half_extents=(0.05, 0.05, 0.05))
    result = Scene(task, objects=[crate, BLOCK]).run("approach", object="cube")
    assert not result.success and result.steps == 0  # at once: the arm never set off
    assert result.reason == "cube is 0.100 x 0.100 m across, wider than the gripper opens (0.072 m) both ways"


def test_approaching_a_carton_on_its_broad_side_fails_at_once(task: TaskSpec) -> None:
    """The world state's pose says it lies on its side, 10 cm across at its narrowest: no command."""
    lying = box(
        "cube", (0.0, 0.0, 0.815), (0.05, 0.015, 0.075), quaternion=axis_angle((1.0, 0.0, 0.0), math.pi / 2)
    )
    observation = observe([lying])
    world = update_world(observation, task.regions)
    context = SkillContext(task, SkillSettings(), CartesianController(ControllerSettings(), 0.05), 1)
    run = SKILLS["approach"].start(world, {"object": "cube"}, context)
    assert isinstance(run, SkillRun)
    result = run.step(observation, world)
    assert isinstance(result, SkillResult) and not result.success and result.steps == 0
    assert result.reason.startswith("cube lies on its side (90 degrees off upright) and is 0.100 m across")


def test_a_retry_keeps_its_line_from_the_approach_to_the_close(task: TaskSpec) -> None:
    """A lone cube's two lines are equally clear; attempt 2 is the one further from the wrist's
    heading at the episode's start, not from where the wrist turned to, so the grasp does not turn
    the fingers back a quarter turn while they descend."""
    alone = Scene(task, objects=[CUBE])
    start = alone.finger_heading()
    assert alone.run("approach", 2, object="cube").success
    line = alone.finger_heading()
    assert abs(wrap_half_turn(line - start)) > 1.0
    assert alone.run("grasp", 2, object="cube").success
    assert abs(wrap_half_turn(alone.finger_heading() - line)) < 0.05


def test_a_move_that_comes_no_closer_ends_and_its_postcondition_judges(scene: Scene) -> None:
    """An arm at the edge of its reach hovers short of the target: each move ends after
    `no_progress_steps` steps without coming closer (the guarded last stretch down after
    `settle_steps` still ones), not at the step limit, and the skill's postcondition decides."""
    run = scene.start("approach", object="cube")
    assert isinstance(run, SkillRun)
    stuck = scene.observation
    for _ in range(scene.settings.max_steps):
        out = run.step(stuck, scene.world)
        if isinstance(out, SkillResult):
            break
    assert isinstance(out, SkillResult), "the approach never ended"
    assert out.reason == "postcondition: the gripper is not over cube"
    assert out.steps <= 2 * scene.settings.no_progress_steps + scene.settings.settle_steps + 1


class BrushedScene(Scene):
    """The kinematic stand-in with the hand touching `touched` on every step (it has no hand of its own)."""

    def __init__(self, task: TaskSpec, touched: str) -> None:
        super().__init__(task)
        self.touched = touched

    def step(self, run: SkillRun) -> SkillResult | None:
        result = super().step(run)
        contacts = (*self.observation.contacts, Contact(a="hand", b=self.touched))
        self.observation = self.observation.model_copy(update={"contacts": contacts})
        return result


def test_the_hand_may_brush_a_neighbouring_object_on_the_way_down_to_a_grasp(task: TaskSpec) -> None:
    """A short object between tall ones is reached only past their sides: a touch of the hand on
    another object does not stop the descent, so the fingers close as deep as they should."""
    brushed = BrushedScene(task, "block")
    brushed.run_all(PICK_AND_PLACE[:1])
    result = brushed.run("grasp", object="cube")
    assert result.success
    assert brushed.world.gripper_position[2] == pytest.approx(
        brushed.world.objects["cube"].center[2], abs=0.01
    )


CARTON = KinematicObject(name="block", position=(0.0, 0.057, 0.875), half_extents=(0.052, 0.027, 0.075))
"""A tall carton 1 cm beside the cube: the hand would come down on it along both lines."""


def test_make_room_stands_the_carton_aside_and_the_cube_is_then_picked(task: TaskSpec) -> None:
    hemmed = Scene(task, objects=[CUBE, CARTON])
    context = SkillContext(task, hemmed.settings, hemmed.controller)
    assert hemmed_in(hemmed.observation, hemmed.world, context) == {"cube": "block"}
    before = hemmed.world.objects["block"].center
    result = hemmed.run("make_room", object="cube")
    assert result.success, result
    after = hemmed.world.objects["block"].center
    assert math.dist(after[:2], before[:2]) >= 0.025 and after[1] > before[1]  # away from the cube
    assert after[2] == pytest.approx(before[2], abs=0.005)  # stood down, not dropped
    assert hemmed.world.holding is None and hemmed_in(hemmed.observation, hemmed.world, context) == {}
    hemmed.run_all(PICK_AND_PLACE)
    assert hemmed.world.inside["cube"] == "bin"


def test_make_room_with_nothing_in_the_way_moves_nothing(scene: Scene) -> None:
    result = scene.run("make_room", object="cube")
    assert (result.success, result.reason, result.steps) == (False, "nothing hems cube in", 0)


def test_a_touch_of_the_hand_on_a_fixture_stops_the_descent(task: TaskSpec) -> None:
    brushed = BrushedScene(task, "fixture:bin1")
    brushed.run_all(PICK_AND_PLACE[:1])
    top = brushed.world.objects["cube"].top
    result = brushed.run("grasp", object="cube")
    assert not result.success
    assert brushed.world.gripper_position[2] > top


def test_a_guarded_move_pressed_against_something_ends_where_it_is(scene: Scene) -> None:
    """Lowering onto a floor that is higher than believed: the gripper stops moving and the phase
    ends after `settle_steps` still steps, not at the step limit."""
    holding(scene)
    scene.run("move_to_region", region="bin")
    run = scene.start("place", region="bin")
    assert isinstance(run, SkillRun)
    stuck = scene.observation
    for _ in range(20):
        out = run.step(stuck, scene.world)
        if isinstance(out, SkillResult):
            break
    assert isinstance(out, SkillResult), "the place never ended"
    assert out.success
    assert out.steps == scene.settings.settle_steps + 1


# -- failures on the way --------------------------------------------------------------------------


def test_a_slip_makes_lift_fail(task: TaskSpec) -> None:
    slippery = Scene(task, slips={"cube": 1})
    slippery.run_all(PICK_AND_PLACE[:2])
    result = slippery.run("lift")
    assert not result.success
    assert "cube slipped out of the gripper" in result.reason
    assert result.reason.endswith(f"(step {result.steps} of lift)")
    assert slippery.world.holding is None
    assert "on(cube, table)" in result.facts


def test_after_a_slip_a_second_try_lifts(task: TaskSpec) -> None:
    slippery = Scene(task, slips={"cube": 1})
    slippery.run_all(PICK_AND_PLACE[:2])
    assert not slippery.run("lift").success
    slippery.run_all(PICK_AND_PLACE[:3])
    assert "lifted(cube)" in slippery.world.facts()


def test_losing_the_object_while_carrying_breaks_the_invariant(scene: Scene) -> None:
    holding(scene)
    run = scene.start("move_to_region", region="bin")
    assert isinstance(run, SkillRun)
    assert scene.step(run) is None
    scene.world = scene.world.model_copy(update={"holding": None})
    result = scene.step(run)
    assert result is not None
    assert result.reason == "cube slipped out of the gripper (step 1 of move_to_region)"


def test_a_postcondition_is_checked_against_the_world(scene: Scene) -> None:
    """At home already, a second go_home ends at once; its postcondition reads the world, not the scene."""
    assert scene.run("go_home").success
    run = scene.start("go_home")
    assert isinstance(run, SkillRun)
    scene.world = scene.world.model_copy(update={"gripper_position": (0.3, 0.3, 1.2)})
    result = scene.step(run)
    assert result is not None
    assert not result.success
    assert result.reason == "postcondition: the gripper is not at home"


def test_running_out_of_steps(task: TaskSpec) -> None:
    hurried = Scene(task, SkillSettings(max_steps=3))
    result = hurried.run("approach", object="cube")
    assert not result.success
    assert result.reason == "did not finish over within 3 steps"
    assert result.steps == 3
    assert hurried.observation.step == 3


def test_halted_part_way(scene: Scene) -> None:
    run = scene.start("approach", object="cube")
    assert isinstance(run, SkillRun)
    for _ in range(2):
        assert scene.step(run) is None
    result = run.halted(scene.observation, scene.world)
    assert not result.success
    assert result.reason == "halted during over"
    assert result.steps == 2
    assert run.step(scene.observation, scene.world) is result


def test_halted_before_the_first_step(scene: Scene) -> None:
    run = scene.start("approach", object="cube")
    assert isinstance(run, SkillRun)
    assert run.halted(scene.observation, scene.world).reason == "halted during approach"


# -- descriptions ---------------------------------------------------------------------------------


def test_the_skill_catalogue() -> None:
    assert list(SKILLS) == [
        "approach",
        "grasp",
        "lift",
        "move_to_region",
        "place",
        "release",
        "go_home",
        "make_room",
    ]


@pytest.mark.parametrize(
    ("skill", "args", "postcondition"),
    [
        ("approach", ["object"], "the gripper is over the object and open"),
        ("grasp", ["object"], "holding(object)"),
        ("lift", [], "lifted(it): nothing but the fingers touches it"),
        ("move_to_region", ["region"], "the held object is over the region"),
        ("place", ["region"], "still holding it, over the region"),
        ("release", [], "gripper_open"),
        ("go_home", [], "the gripper is at home"),
        (
            "make_room",
            ["object"],
            "the hand can get down to the object without coming down on a neighbour",
        ),
    ],
)
def test_describe_has_args_and_conditions(skill: str, args: list[str], postcondition: str) -> None:
    described = SKILLS[skill].describe()
    assert set(described) == {"skill", "args", "summary", "preconditions", "postconditions"}
    assert described["skill"] == skill
    assert described["args"] == args
    assert isinstance(described["summary"], str)
    assert described["summary"]
    assert isinstance(described["preconditions"], list)
    assert isinstance(described["postconditions"], list)
    assert postcondition in described["postconditions"]
    if skill != "go_home":
        assert described["preconditions"]
