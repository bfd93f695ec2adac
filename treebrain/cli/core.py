"""Commands that read tree files: validate, show, list-behaviours."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from treebrain.behaviours.registry import CORE_GROUP, BehaviourRegistry
from treebrain.cli.common import EXIT_BAD_INPUT, EXIT_OK, print_problems
from treebrain.errors import Problem
from treebrain.extras import MissingExtra
from treebrain.schema import json_schema
from treebrain.trees import compile_file, shared_registry, validate_file
from treebrain.trees.render import ascii_tree, dot_tree, svg_tree
from treebrain.trees.structural import STRUCTURAL_KINDS


def cmd_validate(args: argparse.Namespace) -> int:
    problems: list[Problem] = []
    valid: list[Path] = []
    missing_extras = 0
    for path in args.files:
        try:
            found = validate_file(path)
        except MissingExtra as missing:
            print(f"treebrain: {missing}", file=sys.stderr)
            missing_extras += 1
            continue
        problems.extend(found)
        if not found:
            valid.append(path)
    if problems:
        print_problems(problems)
    for path in valid:
        print(f"{path}: ok")
    return EXIT_BAD_INPUT if problems or missing_extras else EXIT_OK


def cmd_show(args: argparse.Namespace) -> int:
    compiled = compile_file(args.file)
    compiled.raise_for_problems()
    assert compiled.root is not None
    render = {"ascii": ascii_tree, "dot": dot_tree, "svg": svg_tree}[args.format]
    text = render(compiled.root)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        print(text)
    return EXIT_OK


def describe_behaviours() -> list[dict[str, Any]]:
    """Every node type with its ports and params as JSON Schema (for tools and docs), by group: the
    framework's (``core``, composites and decorators included, and ``llm``), then each domain's."""
    registry = shared_registry()
    described: list[dict[str, Any]] = []
    for kind in STRUCTURAL_KINDS.values():
        described.append(
            {
                "name": kind.name,
                "group": CORE_GROUP,
                "kind": "composite" if kind.arity == "many" else "decorator",
                "summary": kind.summary,
                "params": json_schema(kind.options),
                "inputs": {},
                "outputs": {},
            }
        )
    for group, names in sorted(registry.groups().items(), key=lambda item: item[0] != CORE_GROUP):
        described.extend(_describe_leaf(registry, group, name) for name in names)
    return described


def _describe_leaf(registry: BehaviourRegistry, group: str, name: str) -> dict[str, Any]:
    leaf = registry.get(name)
    assert leaf is not None
    return {
        "name": name,
        "group": group,
        "kind": "leaf",
        "summary": leaf.summary(),
        "params": json_schema(leaf.Params),
        "inputs": {port: spec.schema() for port, spec in leaf.inputs.items()},
        "outputs": {port: spec.schema() for port, spec in leaf.outputs.items()},
        "variadic_inputs": leaf.variadic_inputs,
    }


def cmd_list_behaviours(args: argparse.Namespace) -> int:
    described = describe_behaviours()
    for missing in shared_registry().unavailable().values():
        print(f"treebrain: not listed: {missing}", file=sys.stderr)
    if args.json:
        print(json.dumps(described, indent=2))
        return EXIT_OK
    groups: dict[str, list[dict[str, Any]]] = {}
    for entry in described:
        groups.setdefault(entry["group"], []).append(entry)
    for group, entries in groups.items():
        print(f"{group}:")
        for entry in entries:
            ports = ", ".join(
                [*(f"in:{p}" for p in entry["inputs"]), *(f"out:{p}" for p in entry["outputs"])]
            )
            line = f"  {entry['name']:<22} {entry['kind']:<10} {entry['summary']}"
            print(line + (f"  [{ports}]" if ports else ""))
    return EXIT_OK


def configure_validate(validate: argparse.ArgumentParser) -> None:
    validate.add_argument("files", nargs="+", type=Path)
    validate.set_defaults(handler=cmd_validate)


def configure_show(show: argparse.ArgumentParser) -> None:
    show.add_argument("file", type=Path)
    show.add_argument("--format", choices=["ascii", "dot", "svg"], default="ascii")
    show.add_argument("--output", "-o", type=Path, help="write to a file instead of standard output")
    show.set_defaults(handler=cmd_show)


def configure_list_behaviours(listing: argparse.ArgumentParser) -> None:
    listing.add_argument("--json", action="store_true", help="JSON Schema of params and ports")
    listing.set_defaults(handler=cmd_list_behaviours)
