"""Manipulation leaves: start an episode, look, run skills, check facts, finish the episode.

Each skill leaf (``manipulation.approach``, ``.grasp``, ``.lift``, ``.move_to_region``, ``.place``,
``.release``, ``.go_home``, ``.make_room``) is a stateful action: it checks the skill's preconditions
when it starts (a failed one sends nothing to the simulator), then sends one control step per tick
and returns RUNNING until the skill's postconditions are checked; halting it stops the arm. Its
``result`` is a :class:`~treebrain.manipulation.skills.SkillResult`, and every result goes into the
episode log.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from msgspec import Meta
from py_trees.common import Status

from treebrain.behaviours.base import AsyncAction, CheckEnv, Leaf, NodeSetup, NoParams, Params
from treebrain.behaviours.manipulation.service import ManipulationService, check_robot
from treebrain.behaviours.ports import Port
from treebrain.blackboard import register_type
from treebrain.manipulation.episode import EpisodeLog, failure_reason
from treebrain.manipulation.facts import FactError, parse_fact
from treebrain.manipulation.goals import judge_goal, placing_goal
from treebrain.manipulation.grounding import Grounding
from treebrain.manipulation.planning import validate_plan
from treebrain.manipulation.recovery import Failure, RecoveryRecord
from treebrain.manipulation.skills import SKILLS, Skill, SkillResult, SkillRun, hemmed
from treebrain.manipulation.symbolic import Scene
from treebrain.manipulation.world import WorldState, doubt
from treebrain.robots.manipulator.observation import ManipulatorObservation
from treebrain.schema import Check

for _name, _model in (
    ("ManipulationWorld", WorldState),
    ("ManipulationSkillResult", SkillResult),
    ("ManipulationEpisode", EpisodeLog),
    ("ManipulationObservation", ManipulatorObservation),
    ("ManipulationRecovery", RecoveryRecord),
    ("ManipulationFailure", Failure),
    ("ManipulationGrounding", Grounding),
):
    register_type(_name, _model)

WORLD = Port("ManipulationWorld", "the symbolic world state now", required=False)


def scene_of(service: ManipulationService) -> Scene:
    """What a planner sees now: the world state's objects and what holds, the task's regions, the
    objects hemmed in by a neighbour that may be moved, what the task says stays."""
    observation, world = service.look()
    task = service.task
    return Scene.from_world(
        world,
        {name: region.description for name, region in task.regions.items()},
        task.footprints(),
        hemmed(observation, world, service.skill_context(1)),
        service.kept,
    )


class UsesManipulator:
    """Load-time check shared by every leaf: the robot file must describe a manipulator and task."""

    @classmethod
    def check(cls, params: Any, env: CheckEnv) -> list[str]:
        return check_robot(env.robot)[1]


class Reset(UsesManipulator, Leaf):
    """Starts an episode: the simulator resets from the seed and the world state is rebuilt."""

    type_name = "manipulation.reset"
    inputs = {"seed": Port("int", "the episode's seed (the run's --seed wins)", required=False)}
    outputs = {"world": WORLD}

    def update(self) -> Status:
        world = self.context.service(ManipulationService).reset(self.read("seed"))
        self.write("world", world)
        self.feedback_message = f"objects: {', '.join(sorted(world.objects))}"
        return Status.SUCCESS


class PerceiveParams(Params):
    fresh: Annotated[
        bool, Meta(description="the cameras look again now (camera perception; after moving the arm away)")
    ] = False


class Perceive(UsesManipulator, Leaf):
    """Writes what perception sees (`perception`: poses, gripper, contacts) and the world state."""

    type_name = "manipulation.perceive"
    Params = PerceiveParams
    outputs = {
        "perception": Port(
            "ManipulationObservation", "object poses, gripper pose and width, contacts", required=False
        ),
        "world": WORLD,
    }

    def update(self) -> Status:
        assert isinstance(self.params, PerceiveParams)
        service = self.context.service(ManipulationService)
        observation, world = service.look_again() if self.params.fresh else service.look()
        self.write("perception", observation)
        self.write("world", world)
        self.feedback_message = ", ".join(world.facts())
        return Status.SUCCESS


class Seen(UsesManipulator, Leaf):
    """SUCCESS when `object`'s pose is trusted enough to act on (``manipulation.skills.
    min_confidence``; always, with the oracle), FAILURE saying why not."""

    type_name = "manipulation.seen"
    inputs = {"object": Port("str", "the object to be seen")}

    def update(self) -> Status:
        service = self.context.service(ManipulationService)
        _, world = service.look()
        name = str(self.read("object"))
        problem = doubt(world, name, service.settings.skills.min_confidence)
        if problem is not None:
            self.feedback_message = problem
            return Status.FAILURE
        state = world.objects[name]
        self.feedback_message = f"{name}: confidence {state.confidence:.3f} ({state.perceived_by})"
        return Status.SUCCESS


class SkillParams(Params):
    object: Annotated[str | None, Meta(description="the object, unless the `object` input gives it")] = None
    region: Annotated[str | None, Meta(description="the region, unless the `region` input gives it")] = None


class SkillLeaf(UsesManipulator, AsyncAction):
    """Base of the skill leaves; subclasses name their skill."""

    Params: ClassVar[type[Any]] = SkillParams
    skill: ClassVar[Skill]

    def __init__(self, setup: NodeSetup) -> None:
        super().__init__(setup)
        self.run: SkillRun | None = None

    @classmethod
    def check(cls, params: Any, env: CheckEnv) -> list[str]:
        task, problems = check_robot(env.robot)
        assert isinstance(params, SkillParams)
        known = {"object": task.objects if task else [], "region": list(task.regions) if task else []}
        for arg in cls.skill.params:
            value = getattr(params, arg)
            if value is None and arg not in env.key_types:
                problems.append(f"{cls.type_name} needs `{arg}`: a param or an input")
            elif task is not None and value is not None and value not in known[arg]:
                problems.append(
                    f"{arg}: the task has no {arg} {value!r} (known: {', '.join(known[arg]) or 'none'})"
                )
        return problems

    @property
    def service(self) -> ManipulationService:
        return self.context.service(ManipulationService)

    def _args(self) -> dict[str, str]:
        params = self.params
        assert isinstance(params, SkillParams)
        args: dict[str, str] = {}
        for arg in self.skill.params:
            value = self.read(arg) if self.is_bound(arg) else None
            args[arg] = str(value if value is not None else getattr(params, arg) or "")
        return args

    def next_call(self) -> tuple[Skill, dict[str, str]]:
        """The skill to start and its arguments."""
        return self.skill, self._args()

    def start(self) -> Status:
        service = self.service
        _, world = service.look()
        attempt = self.read("attempt") or 1
        skill, args = self.next_call()
        started = skill.start(world, args, service.skill_context(attempt))
        if isinstance(started, str):
            return self._ended(
                SkillResult(skill=skill.name, args=args, success=False, reason=started, facts=world.facts())
            )
        self.run = started
        return self.poll()

    def poll(self) -> Status:
        assert self.run is not None
        service = self.service
        observation, world = service.look()
        outcome = self.run.step(observation, world)
        if isinstance(outcome, SkillResult):
            return self._ended(outcome)
        refusal = service.step(outcome)
        if refusal is not None:
            service.stop()
            observation, world = service.look()
            self.run.steps += 1
            return self._ended(
                self.run.halted(observation, world).model_copy(update={"reason": f"refused: {refusal}"})
            )
        self.feedback_message = f"{self.run._phase.name if self.run._phase else ''} step {self.run.steps}"
        self._write_world(service.world)
        return Status.RUNNING

    def cancel(self) -> None:
        service = self.service
        service.stop()
        if self.run is not None:
            observation, world = service.look()
            self._ended(self.run.halted(observation, world))

    def _ended(self, result: SkillResult) -> Status:
        service = self.service
        service.skill_ended(result)
        self.write("result", result)
        self._write_world(service.world)
        self.context.emit("skill", self.path, result.model_dump(mode="json"))
        self.feedback_message = (
            f"{result.skill}: {'done' if result.success else result.reason} ({result.steps} steps)"
        )
        self.run = None
        return Status.SUCCESS if result.success else Status.FAILURE

    def _write_world(self, world: WorldState | None) -> None:
        if world is None or not self.is_bound("world"):
            return
        current = self.blackboard.get(self._output_keys["world"], self.path, None)
        if not isinstance(current, WorldState) or current.facts() != world.facts():
            self.write("world", world)


def _skill_leaf(skill: Skill) -> type[SkillLeaf]:
    inputs: dict[str, Port] = {
        arg: Port("str", f"the {arg} (overrides the `{arg}` param)", required=False) for arg in skill.params
    }
    inputs["attempt"] = Port("int", "which attempt this is (a retry picks another grasp)", required=False)
    body: dict[str, Any] = {
        "__doc__": f"Skill {skill.name}: {skill.summary}.",
        "type_name": f"manipulation.{skill.name}",
        "skill": skill,
        "inputs": inputs,
        "outputs": {
            "result": Port("ManipulationSkillResult", "the skill's structured result", required=False),
            "world": WORLD,
        },
    }
    return type(f"{skill.name.title().replace('_', '')}Leaf", (SkillLeaf,), body)


class ExecutePlan(SkillLeaf):
    """Runs a validated skill program step by step (each step as its skill leaf would), and stops at
    the first failed step. The plan is validated again against the scene when it starts: a plan that
    fails validation is never executed."""

    type_name = "manipulation.execute_plan"
    Params = NoParams
    inputs = {
        "plan": Port("list[dict[str, any]]", "the skill program: [{skill, args}, ...]"),
        "attempt": Port("int", "which attempt this is (a retry picks another grasp)", required=False),
    }
    outputs = {
        "result": Port("ManipulationSkillResult", "the last step's result", required=False),
        "world": WORLD,
        "executed": Port("int", "steps that succeeded", required=False),
    }

    def __init__(self, setup: NodeSetup) -> None:
        super().__init__(setup)
        self.index = 0

    @classmethod
    def check(cls, params: Any, env: CheckEnv) -> list[str]:
        return check_robot(env.robot)[1]

    def next_call(self) -> tuple[Skill, dict[str, str]]:
        step = self.read("plan")[self.index]
        return SKILLS[step["skill"]], {key: str(value) for key, value in step.get("args", {}).items()}

    def start(self) -> Status:
        self.index = 0
        self.write("executed", 0)
        service = self.service
        issues = validate_plan(
            {"steps": self.read("plan")}, scene_of(service), service.settings.planner.max_steps
        )
        if issues:
            reason = f"not executed: {'; '.join(map(str, issues))}"
            facts = service.look()[1].facts()
            return self._ended(SkillResult(skill="plan", args={}, success=False, reason=reason, facts=facts))
        return super().start()

    def _ended(self, result: SkillResult) -> Status:
        status = super()._ended(result)
        if status is Status.FAILURE:
            return status
        self.index += 1
        self.write("executed", self.index)
        return super().start() if self.index < len(self.read("plan")) else status


def _readable_facts(facts: list[str]) -> None:
    for text in facts:
        parse_fact(text.replace("{", "").replace("}", ""))


class ExpectParams(Params):
    facts: Annotated[
        list[str],
        Meta(min_length=1, description="facts that must all hold, e.g. holding({object})"),
        Check(_readable_facts),
    ]


class Expect(UsesManipulator, Leaf):
    """Succeeds when every fact holds in the world state now; `{name}` in a fact reads input `name`."""

    type_name = "manipulation.expect"
    Params = ExpectParams
    variadic_inputs = True
    outputs = {"unmet": Port("list[str]", "the facts that do not hold", required=False)}

    def update(self) -> Status:
        params = self.params
        assert isinstance(params, ExpectParams)
        _, world = self.context.service(ManipulationService).look()
        holding = set(world.facts())
        values = {port: self.read(port) for port in self.input_ports()}
        unmet: list[str] = []
        for template in params.facts:
            try:
                fact = parse_fact(template.format_map(values))
            except (FactError, KeyError) as error:
                self.feedback_message = f"cannot check {template!r}: {error}"
                return Status.FAILURE
            if not fact.holds_in(holding):
                unmet.append(str(fact))
        self.write("unmet", unmet)
        self.feedback_message = f"not true: {', '.join(unmet)}" if unmet else "all hold"
        return Status.FAILURE if unmet else Status.SUCCESS


class Finish(UsesManipulator, Leaf):
    """Ends the episode: SUCCESS when the simulator's own check passes, or for a language task (its
    `grounding` given) when the placing it asked for holds in the world state and the simulator's
    own check of it, where it has one, agrees. The log goes to `episode` and to the run's recording
    (an ``episode`` event), with the failure's reason when it failed and the execution monitor's
    repairs and replans when `recovery` is given."""

    type_name = "manipulation.finish"
    inputs = {
        "recovery": Port(
            "ManipulationRecovery", "the execution monitor's budget, repairs and replans", required=False
        ),
        "grounding": Port(
            "ManipulationGrounding",
            "a language task's source and target: its goal replaces the task catalogue's",
            required=False,
        ),
    }
    outputs = {"episode": Port("ManipulationEpisode", "the episode's log", required=False)}

    def update(self) -> Status:
        service = self.context.service(ManipulationService)
        observation, world = service.look()
        holding = set(world.facts())
        grounding = self.read("grounding")
        if isinstance(grounding, Grounding) and grounding.usable:
            goal = placing_goal(service.task, grounding.source, grounding.target)
            judged = judge_goal(
                goal, holding, service.task, observation.task_success, observation.objects_placed
            )
            success, unmet, agrees = judged.success, judged.unmet, judged.simulator_agrees
        else:
            goal = list(service.task.goal)
            unmet = [text for text in goal if not parse_fact(text).holds_in(holding)]
            success = agrees = observation.task_success
        recorder = service.episode
        recovery = self.read("recovery")
        recovery = recovery if isinstance(recovery, RecoveryRecord) else None
        gave_up = recovery.gave_up if recovery is not None else ""
        reason = failure_reason(recorder.skills if recorder else [], success, unmet, gave_up)
        log = service.finish(success, reason, recovery, goal, agrees)
        self.write("episode", log)
        self.context.emit("episode", self.path, log.model_dump(mode="json"))
        self.feedback_message = "task done" if success else reason
        return Status.SUCCESS if success else Status.FAILURE


BEHAVIOURS: tuple[type[Leaf], ...] = (
    Reset,
    Perceive,
    Seen,
    *(_skill_leaf(skill) for skill in SKILLS.values()),
    ExecutePlan,
    Expect,
    Finish,
)
