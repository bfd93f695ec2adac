"""Loading ``instruction_set.json`` and checking that it is consistent before anything uses it.

Beyond the shape (pydantic), the loader checks what a model cannot: the documented primitives are
exactly the arm's, place names are unique, every placeholder and call in an expansion resolves, no
composite calls itself through others, and every learned sequence uses valid composites. Every
problem is reported with its line, all at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from treebrain.documents import Document, PathPart, read_document
from treebrain.robots.arm.commands import DIRECTIONS, PRIMITIVE_MODELS
from treebrain.voice.isa import (
    CONTEXT_NAMES,
    LOOP_NAME,
    PLACE_ATTRIBUTES,
    PLACE_KINDS,
    PLACEHOLDER,
    ExpansionStep,
    InstructionSet,
    ParamKind,
    ParamSpec,
)
from treebrain.voice.params import signature_problems, step_problems, value_problem
from treebrain.voice.steps import ParamValue, Step


def load_instruction_set(path: str | Path) -> InstructionSet:
    """The validated instruction set, or InputError listing every located problem."""
    document = read_document(path)
    iset = document.validate(InstructionSet)
    if iset is not None:
        check_instruction_set(iset, document)
    document.raise_problems()
    assert iset is not None
    return iset


def check_instruction_set(iset: InstructionSet, document: Document) -> None:
    """Record every cross-reference problem of `iset` on `document`."""
    _check_primitives(iset, document)
    _check_places(iset, document)
    for name, composite in iset.composites.items():
        where: list[PathPart] = ["composites", name]
        if name in PRIMITIVE_MODELS:
            document.problem(where, "a composite cannot take the name of a primitive")
        for key, spec in composite.params.items():
            if key in CONTEXT_NAMES or key == LOOP_NAME:
                document.problem(
                    [*where, "params", key], f"{key!r} is a context name and cannot be a parameter"
                )
            if spec.default is not None and (problem := value_problem(spec, spec.default, iset)):
                document.problem([*where, "params", key, "default"], problem)
        scope = {**CONTEXT_NAMES, **{key: spec.kind for key, spec in composite.params.items()}}
        _check_expansion(iset, document, composite.expansion, scope, [*where, "expansion"])
    _check_calls_are_acyclic(iset, document)
    _check_learned(iset, document)


def _check_primitives(iset: InstructionSet, document: Document) -> None:
    for name in iset.primitives.keys() - PRIMITIVE_MODELS.keys():
        document.problem(
            ["primitives", name], f"the arm has no primitive {name!r} ({', '.join(PRIMITIVE_MODELS)})"
        )
    for name in PRIMITIVE_MODELS.keys() - iset.primitives.keys():
        document.problem(["primitives"], f"primitive {name!r} is missing")
    for name, doc in iset.primitives.items():
        model = PRIMITIVE_MODELS.get(name)
        if model is None:
            continue
        expected = set(model.model_fields) - {"name"}
        if set(doc.args) != expected:
            document.problem(
                ["primitives", name, "args"], f"arguments must be exactly {', '.join(sorted(expected))}"
            )
    for index, direction in enumerate(iset.directions):
        if direction not in DIRECTIONS:
            document.problem(
                ["directions", index],
                f"{direction!r} is not a direction the arm knows ({', '.join(DIRECTIONS)})",
            )


def _check_places(iset: InstructionSet, document: Document) -> None:
    seen: dict[str, str] = {}
    for section, places in (
        ("items", iset.items),
        ("assembly_zones", iset.assembly_zones),
        ("locations", iset.locations),
    ):
        for name in places:
            if name in seen:
                document.problem([section, name], f"{name!r} is already a name in {seen[name]}")
            seen[name] = section
    for name, place in iset.items.items():
        for index, alias in enumerate(place.aliases):
            other = iset.item_names_by_alias().get(alias.lower())
            if other is not None and other != name:
                document.problem(["items", name, "aliases", index], f"{alias!r} already names {other}")
    if iset.default_zone not in iset.assembly_zones:
        document.problem(["default_zone"], f"{iset.default_zone!r} is not an assembly zone")


def _check_expansion(
    iset: InstructionSet,
    document: Document,
    steps: Sequence[ExpansionStep],
    scope: dict[str, ParamKind],
    where: list[PathPart],
) -> None:
    for index, step in enumerate(steps):
        here = [*where, index]
        if step.primitive is not None:
            _check_primitive_step(iset, document, step, scope, here)
        elif step.call is not None:
            _check_call_step(iset, document, step, scope, here)
        elif step.set_active_zone is not None:
            _check_value(
                iset,
                document,
                ParamSpec(kind="zone"),
                step.set_active_zone,
                scope,
                [*here, "set_active_zone"],
            )
        elif step.for_each_layer is not None:
            _check_expansion(
                iset, document, step.for_each_layer, {**scope, LOOP_NAME: "item"}, [*here, "for_each_layer"]
            )


def _check_primitive_step(
    iset: InstructionSet,
    document: Document,
    step: ExpansionStep,
    scope: dict[str, ParamKind],
    here: list[PathPart],
) -> None:
    model = PRIMITIVE_MODELS.get(step.primitive or "")
    if model is None:
        document.problem(
            [*here, "primitive"], f"{step.primitive!r} is not a primitive ({', '.join(PRIMITIVE_MODELS)})"
        )
        return
    fields = {key: info for key, info in model.model_fields.items() if key != "name"}
    for key, value in step.args.items():
        if key not in fields:
            document.problem([*here, "args", key], f"{step.primitive} has no argument {key!r}")
        elif isinstance(value, str):
            _check_placeholder(document, value, scope, [*here, "args", key], literal_ok=True)
    for key, info in fields.items():
        if info.is_required() and key not in step.args:
            document.problem([*here, "args"], f"{step.primitive} needs the argument {key!r}")


def _check_call_step(
    iset: InstructionSet,
    document: Document,
    step: ExpansionStep,
    scope: dict[str, ParamKind],
    here: list[PathPart],
) -> None:
    target = step.call or ""
    signature = iset.composites[target].params if target in iset.composites else None
    if signature is None:
        document.problem([*here, "call"], f"{target!r} is not a tier-1 composite")
        return
    for problem in signature_problems(Step(instruction=target, params=step.params), iset):
        document.problem([*here, "params"], problem)
    for key, value in step.params.items():
        spec = signature.get(key)
        if spec is not None:
            _check_value(iset, document, spec, value, scope, [*here, "params", key])


def _check_value(
    iset: InstructionSet,
    document: Document,
    spec: ParamSpec,
    value: ParamValue,
    scope: dict[str, ParamKind],
    where: list[PathPart],
) -> None:
    if isinstance(value, str) and _is_placeholder(value):
        kind = _check_placeholder(document, value, scope, where, literal_ok=False)
        if kind is not None and kind != spec.kind and not (spec.kind == "place" and kind in PLACE_KINDS):
            document.problem(where, f"{value} is a {kind} but a {spec.kind} is expected")
    elif (problem := value_problem(spec, value, iset)) is not None:
        document.problem(where, problem)


def _check_placeholder(
    document: Document, value: str, scope: dict[str, ParamKind], where: list[PathPart], *, literal_ok: bool
) -> ParamKind | None:
    """The kind the placeholder refers to (None for a literal or a bad placeholder, which is recorded)."""
    match = PLACEHOLDER.match(value)
    if match is None:
        if not literal_ok and "{" in value:
            document.problem(where, f"{value!r} is not a placeholder like '{{item}}' or '{{item.x_mm}}'")
        return None
    name, attribute = match.groups()
    kind = scope.get(name)
    if kind is None:
        document.problem(where, f"{value}: no parameter or context value named {name!r} here")
        return None
    if attribute is not None and (kind not in PLACE_KINDS or attribute not in PLACE_ATTRIBUTES):
        document.problem(where, f"{value}: a {kind} has no attribute {attribute!r}")
        return None
    return kind if attribute is None else None


def _is_placeholder(value: ParamValue) -> bool:
    return isinstance(value, str) and PLACEHOLDER.match(value) is not None


def _check_calls_are_acyclic(iset: InstructionSet, document: Document) -> None:
    calls = {name: set(_called(composite.expansion)) for name, composite in iset.composites.items()}
    calls.update(
        {
            name: {step.instruction for step in learned.sequence}
            for name, learned in iset.learned_composites.items()
        }
    )
    section = dict.fromkeys(iset.composites, "composites") | dict.fromkeys(
        iset.learned_composites, "learned_composites"
    )
    for start in calls:
        path = _find_cycle(start, calls)
        if path is not None:
            document.problem([section[start], start], f"calls itself: {' -> '.join(path)}")


def _called(steps: Sequence[ExpansionStep]) -> list[str]:
    names: list[str] = []
    for step in steps:
        if step.call is not None:
            names.append(step.call)
        if step.for_each_layer is not None:
            names.extend(_called(step.for_each_layer))
    return names


def _find_cycle(start: str, calls: dict[str, set[str]]) -> list[str] | None:
    stack: list[tuple[str, list[str]]] = [
        (callee, [start, callee]) for callee in sorted(calls.get(start, ()))
    ]
    seen: set[str] = set()
    while stack:
        name, path = stack.pop()
        if name == start:
            return path
        if name in seen:
            continue
        seen.add(name)
        stack.extend((callee, [*path, callee]) for callee in sorted(calls.get(name, ())))
    return None


def _check_learned(iset: InstructionSet, document: Document) -> None:
    for name, learned in iset.learned_composites.items():
        where: list[PathPart] = ["learned_composites", name]
        if name in iset.composites or name in PRIMITIVE_MODELS:
            document.problem(where, f"{name!r} would overwrite a built-in instruction")
        for index, step in enumerate(learned.sequence):
            for problem in step_problems(step, iset):
                document.problem([*where, "sequence", index], problem)
