"""Composites and decorators as YAML node types: their options, child counts and constructors.

Unlike leaves (whose settings live under ``params:``), structural nodes take their few options
directly on the node (``{type: sequence, memory: true, children: [...]}``) because they are read
far more often than written and ``params:`` would only add noise.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta
from py_trees.behaviour import Behaviour
from py_trees.common import ParallelPolicy, Status

from treebrain.blackboard import Blackboard, parse_condition
from treebrain.blackboard.conditions import ConditionText
from treebrain.clock import Clock
from treebrain.schema import Settings
from treebrain.trees import composites, decorators


class Options(Settings):
    """Base of a structural node's options: unknown keys are errors."""


class SequenceOptions(Options):
    memory: Annotated[
        bool,
        Meta(description="true: resume at the RUNNING child; false: re-check earlier children each tick"),
    ]


class ParallelOptions(Options):
    memory: Annotated[
        bool, Meta(description="true: children that succeeded are not ticked again until all finish")
    ]
    policy: Literal["success_on_all", "success_on_one", "success_on_selected"]
    selected: Annotated[list[str], Meta(description="child names, for success_on_selected")] = msgspec.field(
        default_factory=list
    )

    def __post_init__(self) -> None:
        if self.policy == "success_on_selected" and not self.selected:
            raise ValueError(
                "policy success_on_selected needs 'selected': the names of the children that must succeed"
            )
        if self.policy != "success_on_selected" and self.selected:
            raise ValueError(f"'selected' only applies to policy success_on_selected, not {self.policy}")
        if self.policy == "success_on_one" and self.memory:
            raise ValueError("policy success_on_one finishes on the first success: use memory: false")


class RetryOptions(Options):
    attempts: Annotated[int, Meta(ge=1, description="runs in all, the first included")]


class RepeatOptions(Options):
    count: Annotated[int, Meta(ge=1, description="successful runs needed")]


class TimeoutOptions(Options):
    seconds: Annotated[float, Meta(gt=0, description="on the tree's clock")]


class OneShotOptions(Options):
    policy: Literal["on_completion", "on_success"] = "on_completion"


class GuardOptions(Options):
    condition: Annotated[ConditionText, Meta(description="condition on one key, e.g. '/battery/level > 0.2'")]


class RateLimitOptions(Options):
    hz: Annotated[float, Meta(gt=0, description="maximum child ticks per second")]


class SubtreeOptions(Options):
    file: Annotated[str, Meta(description="tree file, relative to the including file")]
    ports: Annotated[dict[str, str], Meta(description="subtree key -> parent key")] = msgspec.field(
        default_factory=dict
    )
    params: Annotated[dict[str, dict[str, Any]], Meta(description="node path in the subtree -> params")] = (
        msgspec.field(default_factory=dict)
    )
    slots: Annotated[dict[str, Any], Meta(description="slot name -> node that fills it")] = msgspec.field(
        default_factory=dict
    )


@dataclass
class BuildEnv:
    """What constructors need besides options and children."""

    path: str
    clock: Clock
    blackboard: Blackboard
    resolve_key: Callable[[str], str]
    child_names: list[str] = field(default_factory=list)


Builder = Callable[[str, Any, list[Behaviour], BuildEnv], Behaviour]


@dataclass(frozen=True)
class StructuralKind:
    name: str
    options: type[Options]
    arity: Literal["many", "one"]
    build: Builder
    summary: str

    def reads(self, options: Options) -> list[str]:
        """Keys the node itself reads (not its children), for the data-flow check."""
        if isinstance(options, GuardOptions):
            return [parse_condition(options.condition).key]
        return []


def _parallel_policy(options: ParallelOptions, children: list[Behaviour]) -> ParallelPolicy.Base:
    if options.policy == "success_on_all":
        return ParallelPolicy.SuccessOnAll(synchronise=options.memory)
    if options.policy == "success_on_one":
        return ParallelPolicy.SuccessOnOne()
    chosen = [child for child in children if child.name in options.selected]
    return ParallelPolicy.SuccessOnSelected(children=chosen, synchronise=options.memory)


def _guard(name: str, options: GuardOptions, children: list[Behaviour], env: BuildEnv) -> Behaviour:
    condition = parse_condition(options.condition)
    condition = condition.with_key(env.resolve_key(condition.key))
    return decorators.Guard(name, children[0], condition, env.blackboard, env.path)


STRUCTURAL_KINDS: dict[str, StructuralKind] = {
    kind.name: kind
    for kind in (
        StructuralKind(
            "sequence",
            SequenceOptions,
            "many",
            lambda name, o, children, env: composites.Sequence(name, memory=o.memory, children=children),
            "ticks children in order while they succeed",
        ),
        StructuralKind(
            "selector",
            SequenceOptions,
            "many",
            lambda name, o, children, env: composites.Selector(name, memory=o.memory, children=children),
            "ticks children in priority order until one does not fail",
        ),
        StructuralKind(
            "parallel",
            ParallelOptions,
            "many",
            lambda name, o, children, env: composites.Parallel(
                name, policy=_parallel_policy(o, children), children=children
            ),
            "ticks all children every tick; the policy decides success",
        ),
        StructuralKind(
            "retry",
            RetryOptions,
            "one",
            lambda name, o, children, env: decorators.Retry(name, children[0], o.attempts),
            "re-runs a failing child, up to `attempts` runs",
        ),
        StructuralKind(
            "repeat",
            RepeatOptions,
            "one",
            lambda name, o, children, env: decorators.Repeat(name, children[0], o.count),
            "runs a child to success `count` times",
        ),
        StructuralKind(
            "timeout",
            TimeoutOptions,
            "one",
            lambda name, o, children, env: decorators.Timeout(name, children[0], o.seconds, env.clock),
            "fails and halts the child after `seconds`",
        ),
        StructuralKind(
            "inverter",
            Options,
            "one",
            lambda name, o, children, env: decorators.Inverter(name=name, child=children[0]),
            "swaps SUCCESS and FAILURE",
        ),
        StructuralKind(
            "force_success",
            Options,
            "one",
            lambda name, o, children, env: decorators.ForceStatus(name, children[0], Status.SUCCESS),
            "a finished child always counts as SUCCESS",
        ),
        StructuralKind(
            "force_failure",
            Options,
            "one",
            lambda name, o, children, env: decorators.ForceStatus(name, children[0], Status.FAILURE),
            "a finished child always counts as FAILURE",
        ),
        StructuralKind(
            "oneshot",
            OneShotOptions,
            "one",
            lambda name, o, children, env: decorators.OneShot(name, children[0], o.policy == "on_success"),
            "runs the child once (to completion or success), then repeats its result",
        ),
        StructuralKind("guard", GuardOptions, "one", _guard, "ticks the child only while a condition holds"),
        StructuralKind(
            "rate_limit",
            RateLimitOptions,
            "one",
            lambda name, o, children, env: decorators.RateLimit(name, children[0], o.hz, env.clock),
            "ticks the child at most `hz` times a second",
        ),
        StructuralKind(
            "subtree",
            SubtreeOptions,
            "one",
            lambda name, o, children, env: decorators.PassThrough(name=name, child=children[0]),
            "includes another tree file with its own key namespace",
        ),
    )
}
