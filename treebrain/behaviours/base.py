"""Base classes for leaves: typed ports, a validated params model, exception-safe ticking, and
stateful asynchronous actions that are always cancelled when halted.

A leaf subclass declares ``type_name`` (its registered name), ``Params`` (a settings model checked
at load time: a :class:`Params` Struct, or a pydantic model when they nest one), ``inputs`` and ``outputs`` (:class:`Port` by name) and implements :meth:`update`.
Anything a leaf raises becomes FAILURE with the error as feedback: a bad value never crashes a robot.
``tick`` and ``stop`` are re-implemented without py_trees' per-call debug-string formatting, which
is a quarter of py_trees' per-node cost even with logging off.
"""

from __future__ import annotations

import abc
import logging
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import py_trees
from py_trees.common import Status

from treebrain.behaviours.context import RobotSettings, TreeContext
from treebrain.behaviours.ports import MissingInput, Port
from treebrain.blackboard import MISSING, BlackboardError, KeyType
from treebrain.robots.errors import DriverError
from treebrain.schema import Settings
from treebrain.secrets import redact

_LOG = logging.getLogger("treebrain.behaviours")
_RUNNING = Status.RUNNING
_INVALID = Status.INVALID


class Params(Settings):
    """Base for behaviours' params models: unknown keys are errors, not silently ignored."""


class NoParams(Params):
    """Params model of a behaviour that takes none (any given param is an error)."""


@dataclass
class CheckEnv:
    """What a leaf's load-time :meth:`Leaf.check` may look at besides its params."""

    key_types: Mapping[str, KeyType] = field(default_factory=dict)
    robot: RobotSettings = field(default_factory=RobotSettings)
    option_files: Mapping[str, Path] = field(default_factory=dict)
    source_file: Path | None = None

    def resolve(self, option: str, relative: str) -> Path:
        """A path written in param `option`, relative to the file the param was written in."""
        return resolve_relative(self.option_files.get(option) or self.source_file, relative, self.robot)


def resolve_relative(written_in: Path | None, relative: str, robot: RobotSettings) -> Path:
    path = Path(relative)
    if path.is_absolute():
        return path
    base = written_in.parent if written_in is not None else robot.base_dir
    return (base / path).resolve()


@dataclass
class NodeSetup:
    """Everything the loader hands a behaviour: where it is, its params, its bound keys."""

    path: str
    params: Any
    context: TreeContext
    input_keys: Mapping[str, str] = field(default_factory=dict)
    output_keys: Mapping[str, str] = field(default_factory=dict)
    source_file: Path | None = None
    option_files: Mapping[str, Path] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    def resolve(self, option: str, relative: str) -> Path:
        """A path written in param `option`, relative to the file the param was written in."""
        return resolve_relative(
            self.option_files.get(option) or self.source_file, relative, self.context.robot
        )


class RemembersInvalidation(py_trees.behaviour.Behaviour):
    """A node that can show the status and feedback it had before a halt reset it to INVALID.

    A parent can halt a node later in the very tick that ticked it (a parallel finishing with
    children still RUNNING, a decorator giving up on a RUNNING child) and py_trees then shows
    INVALID. A recorder reads statuses once after the tick, which costs far less than visiting every
    node during it, and takes these for the nodes it finds reset. Only the two places where such a halt starts -- a parallel
    stopping its RUNNING children and a decorator stopping its RUNNING child -- call
    :func:`remember_before_halting`, so nothing is paid on the common path.
    """

    halted_status: Status = Status.INVALID
    halted_feedback: str = ""


def remember_before_halting(subtree: py_trees.behaviour.Behaviour) -> None:
    """Note the status and feedback of every node of `subtree` that a halt is about to reset."""
    for node in subtree.iterate():
        if isinstance(node, RemembersInvalidation) and node.status is not _INVALID:
            node.halted_status = node.status
            node.halted_feedback = node.feedback_message


class Leaf(RemembersInvalidation):
    """A behaviour tree leaf with typed ports; subclasses implement :meth:`update`."""

    type_name: ClassVar[str] = ""
    Params: ClassVar[type[Any]] = NoParams
    inputs: ClassVar[Mapping[str, Port]] = {}
    outputs: ClassVar[Mapping[str, Port]] = {}
    variadic_inputs: ClassVar[bool] = False
    """When true, any extra input port name may be mapped (typed ``any``): e.g. template variables."""
    variadic_outputs: ClassVar[bool] = False
    """When true, any output port name may be mapped (typed ``any``)."""

    def __init__(self, setup: NodeSetup) -> None:
        super().__init__(setup.name)
        self.path = setup.path
        self.setup_info = setup
        self.context = setup.context
        self.params: Any = setup.params
        self.blackboard = setup.context.blackboard
        self.clock = setup.context.clock
        self._input_keys = dict(setup.input_keys)
        self._output_keys = dict(setup.output_keys)

    # class-level hooks used by the loader -----------------------------------------------------
    @classmethod
    def implied_inputs(cls, params: Any) -> dict[str, str]:
        """Input port -> key mappings that follow from params (e.g. a condition's key)."""
        return {}

    @classmethod
    def check(cls, params: Any, env: CheckEnv) -> list[str]:
        """Problems visible only with params, the bound keys' types and the robot (load time)."""
        return []

    @classmethod
    def summary(cls) -> str:
        return (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""

    # ports --------------------------------------------------------------------------------------
    def read(self, port: str) -> Any:
        """Read an input port; a required one without value raises :class:`MissingInput`."""
        key = self._input_keys.get(port)
        declared = self.inputs.get(port)
        if key is not None:
            value = self.blackboard.get(key, self.path, MISSING)
            if value is not MISSING:
                return value
        if declared is not None and declared.has_default:
            return declared.default
        if declared is not None and not declared.required:
            return None
        where = f"key {key} has no value" if key else "it is not mapped"
        raise MissingInput(f"input '{port}' is required but {where}")

    def input_ports(self) -> list[str]:
        return list(self._input_keys)

    def is_bound(self, port: str) -> bool:
        return port in self._input_keys or port in self._output_keys

    def write(self, port: str, value: Any) -> None:
        """Write an output port; an unmapped output is dropped by the tree author's choice."""
        key = self._output_keys.get(port)
        if key is not None:
            self.blackboard.set(key, value, self.path)

    # ticking ------------------------------------------------------------------------------------
    def tick(self) -> Iterator[py_trees.behaviour.Behaviour]:
        try:
            if self.status != _RUNNING:
                self.initialise()
            new_status = self.update()
        except (MissingInput, BlackboardError, DriverError, TypeError, ValueError) as error:
            new_status = self._failed(error, expected=True)
        except Exception as error:  # a leaf must never take the tree down
            new_status = self._failed(error, expected=False)
        if new_status != _RUNNING:
            self.stop(new_status)
        self.status = new_status
        yield self

    def stop(self, new_status: Status) -> None:
        try:
            self.terminate(new_status)
        except Exception as error:
            _LOG.exception("%s: terminate() raised", self.path)
            self.feedback_message = f"terminate failed: {type(error).__name__}: {error}"
        self.status = new_status

    def _failed(self, error: Exception, expected: bool) -> Status:
        self.feedback_message = redact(f"{type(error).__name__}: {error}")
        if expected:
            _LOG.warning("%s: %s", self.path, self.feedback_message)
        else:
            _LOG.exception("%s: unexpected error", self.path)
        return Status.FAILURE


class AsyncAction(Leaf):
    """A stateful action: :meth:`start` once, then :meth:`poll` each tick; :meth:`cancel` if halted.

    Halting (or a failure) while the action is in flight always calls :meth:`cancel`, so an LLM call,
    a robot motion or any other external work never outlives the branch that started it.
    """

    def __init__(self, setup: NodeSetup) -> None:
        super().__init__(setup)
        self._in_flight = False
        self._started = False

    def initialise(self) -> None:
        self._started = False
        self._in_flight = False

    @abc.abstractmethod
    def start(self) -> Status:
        """Begin the work; return RUNNING while it goes on, or a final status."""

    @abc.abstractmethod
    def poll(self) -> Status:
        """Check the work started by :meth:`start`; must not block."""

    def cancel(self) -> None:
        """Stop the work in flight; called at most once per start, never after completion."""

    def busy(self) -> bool:
        """Whether work started by this action is still going on in the background (tests wait on it)."""
        return False

    def update(self) -> Status:
        if not self._started:
            self._started = True
            status = self.start()
        else:
            status = self.poll()
        self._in_flight = status == _RUNNING
        return status

    def terminate(self, new_status: Status) -> None:
        if self._in_flight:
            self._in_flight = False
            self.cancel()
