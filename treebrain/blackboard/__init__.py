"""Typed blackboard: declared keys, checked writes, snapshots and per-tick access activity."""

from treebrain.blackboard.conditions import Condition, ConditionError, parse_condition
from treebrain.blackboard.store import (
    MISSING,
    Access,
    Blackboard,
    BlackboardError,
    WriteTypeError,
    check_key_syntax,
    normalise_key,
)
from treebrain.blackboard.types import (
    KeyType,
    TypeMismatch,
    TypeSpecError,
    UnknownType,
    is_assignable,
    key_type,
    register_type,
    registered_types,
)

__all__ = [
    "MISSING",
    "Access",
    "Blackboard",
    "BlackboardError",
    "Condition",
    "ConditionError",
    "KeyType",
    "TypeMismatch",
    "TypeSpecError",
    "UnknownType",
    "WriteTypeError",
    "check_key_syntax",
    "is_assignable",
    "key_type",
    "normalise_key",
    "parse_condition",
    "register_type",
    "registered_types",
]
