"""What follows the voice pipeline's interpretation: the strict-mode approval gate, the compiler
(composites to primitives, dry-run within the robot's limits) and the memory writer.
"""

from __future__ import annotations

from typing import Annotated, Any

from msgspec import Meta
from py_trees.common import Status
from pydantic import ValidationError

from treebrain.behaviours.base import AsyncAction, CheckEnv, NodeSetup, Params
from treebrain.behaviours.ports import Port
from treebrain.behaviours.voice.kit import RESULT, RESULT_DOC, VoiceLeaf
from treebrain.clock import TIME_EPSILON
from treebrain.errors import InputError
from treebrain.robots.arm.limits import ArmLimits
from treebrain.voice.classify import Classification
from treebrain.voice.compiler import CompileError, compile_sequence
from treebrain.voice.memory import LearningPlan, MemoryRefusedError, plan_learning, read_back, write_learning
from treebrain.voice.result import InterpretResult, needs_approval, strict_warning
from treebrain.voice.steps import Step


class ApproveParams(Params):
    timeout_s: Annotated[float, Meta(gt=0, description="how long to wait for a decision (tree clock)")] = 30.0


class Approve(VoiceLeaf, AsyncAction):
    """Strict mode: a non-creative result below the confidence threshold waits for a human decision.

    The decision is the `approval` key (true or false), set by the CLI prompt or the viewer; it is
    consumed, so it never approves a later command. Denied or timed out: FAILURE, nothing dispatched.
    """

    type_name = "voice.approve"
    Params = ApproveParams
    params: ApproveParams
    inputs = {
        "result": Port(RESULT, RESULT_DOC, required=False),
        "strict": Port("bool", "strict mode", default=False),
        "approval": Port("bool", "the human decision, once given", required=False),
    }
    outputs = {
        "approval": Port("bool", "unset when the decision is consumed", required=False),
        "needs_approval": Port("bool", required=False),
        "waiting": Port("bool", "true while a decision is awaited", required=False),
        "message": Port("str", "what the user is asked, or why nothing was dispatched", required=False),
    }

    def __init__(self, setup: NodeSetup) -> None:
        super().__init__(setup)
        self.deadline = 0.0

    def start(self) -> Status:
        data = self.read("result")
        result = None if data is None else InterpretResult.model_validate(data)
        threshold = self.kit.settings.strict_threshold
        needed = result is not None and needs_approval(
            result, strict=self.read("strict"), threshold=threshold
        )
        self.write("needs_approval", needed)
        if result is None or not needed:
            self._consume()
            self.feedback_message = "no approval needed"
            return Status.SUCCESS
        message = strict_warning(result)
        self.write("message", message)
        self.write("waiting", True)
        self.context.emit(
            "notification", self.path, {"message": message, "level": "warning", "approval": True}
        )
        self.deadline = self.clock.now() + self.params.timeout_s
        return self.poll()

    def poll(self) -> Status:
        decision = self.read("approval")
        if decision is not None:
            self._consume()
            if decision:
                self.feedback_message = "approved"
                return Status.SUCCESS
            return self._refused("not approved: the operator said no")
        if self.clock.now() >= self.deadline - TIME_EPSILON:
            return self._refused(f"not approved: no decision within {self.params.timeout_s:g} s")
        self.feedback_message = "waiting for approval"
        return Status.RUNNING

    def cancel(self) -> None:
        self.write("waiting", False)

    def _consume(self) -> None:
        """Forget the decision once it has been used (or was not needed)."""
        self.write("waiting", False)
        key = self._output_keys.get("approval")
        if key is not None:
            self.blackboard.unset(key, self.path)

    def _refused(self, reason: str) -> Status:
        self.write("waiting", False)
        self.write("message", reason)
        self.context.emit("notification", self.path, {"message": reason, "level": "warning"})
        self.feedback_message = reason
        return Status.FAILURE


class Compile(VoiceLeaf):
    """Compiles the result's composites to the arm's primitives, all or nothing.

    The program is dry-run on the current scene within the robot's limits; any problem is FAILURE
    with the reason in `error`, and no command at all.
    """

    type_name = "voice.compile"
    inputs = {
        "result": Port(RESULT, RESULT_DOC, required=False),
        "scene": Port("ArmScene", "the cell now (planned on an ample cell when unset)", required=False),
        "active_zone": Port("str", required=False),
    }
    outputs = {
        "commands": Port("list[dict[str, any]]", "the primitives to dispatch"),
        "planned_scene": Port("ArmScene", "the cell the program should leave", required=False),
        "active_zone": Port("str", "the assembly zone active after the program", required=False),
        "error": Port("str", "why the sequence cannot be compiled", required=False),
    }

    @classmethod
    def check(cls, params: Any, env: CheckEnv) -> list[str]:
        try:
            ArmLimits.model_validate(env.robot.limits)
        except ValidationError as error:
            return [f"limits: {issue['msg']}" for issue in error.errors()]
        return []

    def update(self) -> Status:
        result = self.read("result")
        sequence = [] if result is None else result["sequence"]
        if not sequence:
            self.write("commands", [])
            self.feedback_message = "nothing to dispatch"
            return Status.SUCCESS
        try:
            program = compile_sequence(
                sequence,
                self.kit.iset,
                scene=self.read("scene"),
                limits=ArmLimits.model_validate(self.context.robot.limits),
                active_zone=self.read("active_zone"),
            )
        except CompileError as error:
            self.write("error", f"refused: {error}")
            self.feedback_message = str(error)
            return Status.FAILURE
        self.write("commands", [command.model_dump() for command in program.commands])
        self.write("planned_scene", program.final_scene)
        self.write("active_zone", program.active_zone)
        self.feedback_message = f"{len(program.commands)} primitive(s)"
        return Status.SUCCESS


class NotePlan(VoiceLeaf):
    """Remembers the plan the arm just executed, for "do it again" and "save that as ..."."""

    type_name = "voice.note_plan"
    inputs = {
        "result": Port(RESULT, RESULT_DOC, required=False),
        "commands": Port("list[dict[str, any]]", "what was dispatched", required=False),
    }
    outputs = {"last_plan": Port("list[dict[str, any]]", "the steps of the last executed plan")}

    def update(self) -> Status:
        result = self.read("result")
        if result is None or not result["sequence"] or not self.read("commands"):
            self.feedback_message = "nothing was executed: the last plan stays"
            return Status.SUCCESS
        self.write("last_plan", result["sequence"])
        self.feedback_message = f"{len(result['sequence'])} step(s)"
        return Status.SUCCESS


class Remember(VoiceLeaf):
    """The memory writer: a confident learning command becomes a learned composite and aliases, and
    the user is told it was saved only once both files read back what was written."""

    type_name = "voice.remember"
    inputs = {
        "result": Port(RESULT, RESULT_DOC, required=False),
        "text": Port("str", "the command", required=False),
        "classification": Port("VoiceClassification", required=False),
        "last_plan": Port("list[dict[str, any]]", "the steps the arm last executed", required=False),
    }
    outputs = {
        "memory": Port("dict[str, any]", "saved (bool), what, and the message for the user, or why not")
    }

    def update(self) -> Status:
        data = self.read("result")
        classification: Classification | None = self.read("classification")
        if data is None or classification is None or not classification.is_learning:
            return self._report({"saved": False, "reason": "the command does not ask to remember anything"})
        kit = self.kit
        result = InterpretResult.model_validate(data)
        unanswered = result.refusal or result.clarification_question
        if unanswered:
            return self._refused(result.composite_name, unanswered)
        last = self.read("last_plan") if classification.uses_last_plan == "learn" else None
        plan = plan_learning(
            result,
            self.read("text") or "",
            kit.iset,
            kit.matcher,
            learned_phrase=classification.learned_phrase,
            policy=kit.settings.memory,
            sequence=None if last is None else [Step.model_validate(step) for step in last],
        )
        if not isinstance(plan, LearningPlan):
            return self._refused(result.composite_name, plan.reason)
        paths = {"instruction_set_path": kit.instruction_set_path, "phrase_bank_path": kit.phrase_bank_path}
        try:
            written = write_learning(plan, **paths)
            missing = read_back(plan, **paths)
        except (MemoryRefusedError, InputError) as error:
            return self._refused(plan.composite_name, str(error))
        if missing:
            return self._refused(plan.composite_name, f"the files do not read back: {'; '.join(missing)}")
        say = plan.aliases[0] if plan.aliases else plan.composite_name
        steps = len(plan.sequence)
        return self._report(
            {
                "saved": True,
                "composite": plan.composite_name,
                "composite_written": written.composite_written,
                "aliases_written": written.aliases_written,
                "message": f"Saved {plan.composite_name!r} ({steps} step{'s' if steps != 1 else ''}): "
                f"say {say!r} to do it again.",
            }
        )

    def _refused(self, name: str | None, reason: str) -> Status:
        what = f"{name!r}" if name else "it"
        ending = "" if reason.endswith((".", "?", "!")) else "."
        return self._report(
            {"saved": False, "reason": reason, "message": f"Not saved {what}: {reason}{ending}"}
        )

    def _report(self, memory: dict[str, Any]) -> Status:
        self.write("memory", memory)
        self.feedback_message = memory.get("message") or f"not saved: {memory['reason']}"
        return Status.SUCCESS


BEHAVIOURS = (Approve, Compile, NotePlan, Remember)
