"""What every voice leaf shares: the voice kit as a per-tree service (loaded once by
``voice.load_kit``, reloaded when its memory files change, after the memory writer learned something
or another process did), the base class of voice leaves, and the blackboard types they use.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from treebrain.behaviours.base import Leaf
from treebrain.behaviours.context import RobotSettings, TreeContext
from treebrain.behaviours.llm.service import LLMService
from treebrain.blackboard import register_type
from treebrain.robots.arm.workcell import ArmScene
from treebrain.voice.classify import Classification
from treebrain.voice.creative import CreativeAssignment
from treebrain.voice.isa import InstructionSet
from treebrain.voice.kit import VoiceKit, load_voice_kit
from treebrain.voice.passes import Generation, Pass2Outcome, Pass3Outcome
from treebrain.voice.plan_check import PlanContext, plan_context
from treebrain.voice.result import InterpretResult, RepairPolicy
from treebrain.voice.trace import Trace

Stamp = tuple[tuple[int, int], ...]


def _stamp(*paths: Path) -> Stamp:
    """Size and modification time of each file: cheap enough to compare on every command."""
    stamps = []
    for path in paths:
        try:
            info = path.stat()
            stamps.append((info.st_size, info.st_mtime_ns))
        except OSError:
            stamps.append((-1, -1))
    return tuple(stamps)


class VoiceRobotSettings(BaseModel):
    """The robot file's ``voice:`` section."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    repair: RepairPolicy = "refuse"
    """``refuse``: a plan validation had to change is not run; ``allow``: it runs with every change
    listed, below the strict-mode threshold."""


def robot_voice_settings(robot: RobotSettings) -> VoiceRobotSettings:
    """The ``voice:`` section of the robot file (defaults when it has none); ValueError if invalid."""
    try:
        return VoiceRobotSettings.model_validate(robot.data.get("voice") or {})
    except ValidationError as error:
        details = "; ".join(
            f"voice.{'.'.join(map(str, issue['loc']))}: {issue['msg']}" for issue in error.errors()
        )
        raise ValueError(details) from None


class VoiceKitService:
    """The loaded :class:`VoiceKit` of one tree."""

    def __init__(self, context: TreeContext) -> None:
        self.context = context
        self._kit: VoiceKit | None = None
        self._source: tuple[Path, str | None, Path | None] | None = None
        self._stamp: Stamp = ()

    @classmethod
    def from_context(cls, context: TreeContext) -> VoiceKitService:
        return cls(context)

    def provider_kind(self) -> str:
        """The kind of provider of the tree's default LLM profile (``local``, ``anthropic``, ...)."""
        llm = self.context.service(LLMService)
        return llm.section.profiles[llm.profile_name(None)].provider

    def load(self, config: Path, memory_dir: Path | None) -> VoiceKit:
        """The kit for `config` adapted to the default provider, (re)loaded only when something changed."""
        source = (config, self.provider_kind(), memory_dir)
        kit = self._kit
        if kit is None or source != self._source or self._stamp != self._memory_stamp(kit):
            kit = load_voice_kit(config, provider=source[1], memory_dir=memory_dir)
            self._kit, self._source, self._stamp = kit, source, self._memory_stamp(kit)
        return kit

    @property
    def kit(self) -> VoiceKit:
        if self._kit is None:
            raise RuntimeError("the voice kit is not loaded: a voice.load_kit leaf must run first")
        return self._kit

    @staticmethod
    def _memory_stamp(kit: VoiceKit) -> Stamp:
        return _stamp(kit.instruction_set_path, kit.phrase_bank_path)

    def close(self) -> None:
        self._kit = None


for _name, _model in (
    ("VoiceClassification", Classification),
    ("VoiceCreative", CreativeAssignment),
    ("VoiceGeneration", Generation),
    ("VoicePass2", Pass2Outcome),
    ("VoicePass3", Pass3Outcome),
    ("VoiceTrace", Trace),
    ("VoiceInstructionSet", InstructionSet),
    ("ArmScene", ArmScene),  # the cell the compiler plans in; the arm leaves register it too
):
    register_type(_name, _model)

RESULT = "optional[dict[str, any]]"
RESULT_DOC = "the seed's result dict (None for trivial input)"


class VoiceLeaf(Leaf):
    """A leaf that uses the tree's loaded voice kit."""

    @property
    def kit(self) -> VoiceKit:
        return self.context.service(VoiceKitService).kit

    def publish(self, result: InterpretResult, route: str) -> None:
        self.write("result", result.as_dict())
        self.write("route", route)

    def plan_context(self, generation: Generation | None = None) -> PlanContext:
        """What a plan is checked in: the active zone and scene inputs (when the leaf has them) and
        the layers the model's interpretation says a dish has."""
        stated = (
            [] if generation is None else self.kit.classifier.reader.stated_layers(generation.interpretation)
        )
        active_zone = self.read("active_zone") if "active_zone" in self.inputs else None
        scene = self.read("scene") if "scene" in self.inputs else None
        return plan_context(scene, active_zone, stated)
