"""Error injection: turn a correct program into a labelled negative example.

Syntax, safety and consistency errors are edits of the program text at token positions found by the
lexer and the analysis, so the injected line is known exactly (semantic errors change the task
instead: :mod:`treebrain.tdl.semantic_errors`). Every injector returns None when the program offers
no place for its error (e.g. no named pose to misspell); callers then pick another program.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict

from treebrain.tdl.analysis import analyse_program
from treebrain.tdl.commands import CommandSet
from treebrain.tdl.lexer import Token, tokenize
from treebrain.tdl.model import ProgramModel
from treebrain.tdl.nodes import NumberLit, StringLit
from treebrain.tdl.parser import parse_program
from treebrain.tdl.robots import RobotSpec
from treebrain.tdl.tasks import LOCATION_LABELS

Category = Literal["syntax", "semantic", "safety", "consistency"]
SUBTYPES: dict[Category, tuple[str, ...]] = {
    "syntax": ("missing_semicolon", "missing_bracket", "wrong_keyword", "missing_parameter"),
    "semantic": ("swap_objects", "swap_locations", "reverse_sequence", "change_velocity"),
    "safety": ("exceed_reach", "negative_z", "excessive_velocity", "excessive_acceleration"),
    "consistency": ("undefined_reference", "duplicate_definition"),
}


class Injection(BaseModel):
    """A negative example: the faulty program, what was injected and (for text edits) on which line."""

    model_config = ConfigDict(frozen=True)

    category: Category
    subtype: str
    program: str
    line: int | None
    description: str


class _Text:
    """A program with its tokens and analysis, and character offsets for token-precise edits."""

    def __init__(self, program: str, commands: CommandSet) -> None:
        self.program = program
        self.tokens: list[Token] = tokenize(program)[0]
        self.model: ProgramModel = analyse_program(parse_program(program), commands)
        self.line_starts = [0]
        self.line_starts.extend(index + 1 for index, char in enumerate(program) if char == "\n")

    def offset(self, token: Token) -> int:
        return self.line_starts[token.line - 1] + token.column - 1

    def token_at(self, line: int, column: int) -> int:
        for index, token in enumerate(self.tokens):
            if token.line == line and token.column == column:
                return index
        raise ValueError(f"no token starts at {line}:{column}")

    def closing(self, opener: int) -> int:
        """Index of the token closing the bracket at `opener`."""
        depth = 0
        for index in range(opener, len(self.tokens)):
            text = self.tokens[index].text
            if self.tokens[index].kind == "op" and text in "([{":
                depth += 1
            elif self.tokens[index].kind == "op" and text in ")]}":
                depth -= 1
                if depth == 0:
                    return index
        return len(self.tokens) - 2

    def replace(self, first: int, last: int, text: str) -> str:
        """The program with tokens first..last (inclusive) replaced by `text`."""
        end_token = self.tokens[last]
        start, end = self.offset(self.tokens[first]), self.offset(end_token) + len(end_token.text)
        return self.program[:start] + text + self.program[end:]


def _ops(text: _Text, symbols: str) -> list[int]:
    return [i for i, token in enumerate(text.tokens) if token.kind == "op" and token.text in symbols]


# --- syntax --------------------------------------------------------------------------------------
def _drop_symbol(
    rng: random.Random, text: _Text, symbols: str, subtype: str, name: str | None
) -> Injection | None:
    """Delete one of the operator tokens in `symbols`, chosen at random (`name` describes it, else its text)."""
    candidates = _ops(text, symbols)
    if not candidates:
        return None
    index = rng.choice(candidates)
    token = text.tokens[index]
    return Injection(
        category="syntax",
        subtype=subtype,
        program=text.replace(index, index, ""),
        line=token.line,
        description=f"Missing {name or repr(token.text)} at line {token.line}",
    )


def _missing_semicolon(rng: random.Random, text: _Text) -> Injection | None:
    return _drop_symbol(rng, text, ";", "missing_semicolon", "semicolon")


def _missing_bracket(rng: random.Random, text: _Text) -> Injection | None:
    return _drop_symbol(rng, text, "(){}", "missing_bracket", None)


def _misspell(rng: random.Random, word: str) -> str:
    style = rng.randrange(4)
    if style == 0:
        return word.lower()
    position = rng.randrange(1, len(word) - 1)
    if style == 1:
        return word[:position] + word[position + 1] + word[position] + word[position + 2 :]
    if style == 2:
        return word[:position] + word[position + 1 :]
    return word[:position] + word[position] + word[position:]


def _wrong_keyword(rng: random.Random, text: _Text) -> Injection | None:
    candidates = [
        i
        for i, t in enumerate(text.tokens)
        if t.kind == "keyword" and t.text in ("SPAWN", "DEFINE", "GOAL", "WITH", "WAIT")
    ]
    if not candidates:
        return None
    index = rng.choice(candidates)
    token = text.tokens[index]
    wrong = _misspell(rng, token.text)
    return Injection(
        category="syntax",
        subtype="wrong_keyword",
        program=text.replace(index, index, wrong),
        line=token.line,
        description=f"Keyword {token.text} written as '{wrong}' at line {token.line}",
    )


def _argument_spans(text: _Text, opener: int) -> list[tuple[int, int]]:
    """Token index ranges of the top-level arguments of the call whose '(' is at `opener`."""
    spans: list[tuple[int, int]] = []
    start, depth = opener + 1, 0
    for index in range(opener + 1, text.closing(opener) + 1):
        token = text.tokens[index]
        if token.kind == "op" and token.text in "([{":
            depth += 1
        elif token.kind == "op" and token.text in ")]}":
            if depth == 0:
                if index > start:
                    spans.append((start, index - 1))
                break
            depth -= 1
        elif depth == 0 and token.kind == "op" and token.text == ",":
            spans.append((start, index - 1))
            start = index + 1
    return spans


def _missing_parameter(rng: random.Random, text: _Text, commands: CommandSet) -> Injection | None:
    candidates = []
    for invocation in text.model.invocations:
        spec = commands.commands.get(invocation.resolved or "")
        if spec is None or invocation.via != "spawn" or not any(p.required for p in spec.params):
            continue
        name_index = text.token_at(invocation.line, invocation.column) + 1
        spans = _argument_spans(text, name_index + 1)
        required = {p.name for p in spec.params if p.required}
        for position, (first, _last) in enumerate(spans):
            keyword = (
                text.tokens[first].text
                if text.tokens[first + 1 : first + 2] and text.tokens[first + 1].text == "="
                else None
            )
            param = keyword or (spec.params[position].name if position < len(spec.params) else "")
            if param in required and (keyword or position == len(spans) - 1):
                candidates.append((invocation.command, param, spans, position))
    if not candidates:
        return None
    command, param, spans, position = rng.choice(candidates)
    first, last = spans[position]
    if position < len(spans) - 1:
        last = spans[position + 1][0] - 1  # drop the argument and the comma after it
    elif position > 0:
        first = spans[position - 1][1] + 1  # drop the comma before the last argument
    line = text.tokens[first].line
    return Injection(
        category="syntax",
        subtype="missing_parameter",
        program=text.replace(first, last, ""),
        line=line,
        description=f"Required parameter '{param}' of {command} removed at line {line}",
    )


# --- safety --------------------------------------------------------------------------------------
def _cartesian_poses(text: _Text) -> list[int]:
    return [
        i for i, pose in enumerate(text.model.poses) if pose.xyz is not None and pose.pose_type is not None
    ]


def _rewrite_pose(text: _Text, pose_index: int, values: list[float]) -> tuple[str, int]:
    pose = text.model.poses[pose_index]
    start = text.token_at(pose.line, pose.column)
    end = text.closing(start + 1)
    shown = ", ".join(str(round(v)) if float(v).is_integer() or abs(v) > 100 else f"{v:.1f}" for v in values)
    return text.replace(start, end, f"{text.tokens[start].text}({shown})"), pose.line


def _exceed_reach(rng: random.Random, text: _Text, robot: RobotSpec) -> Injection | None:
    candidates = _cartesian_poses(text)
    if not candidates:
        return None
    index = rng.choice(candidates)
    values = [v or 0.0 for v in text.model.poses[index].values]
    x, y, z = values[:3]
    target = robot.reach_mm * rng.uniform(1.15, 2.0)
    horizontal = math.sqrt(max(target**2 - z**2, 1.0))
    angle = math.atan2(y, x) if (x or y) else 0.0
    values[0], values[1] = round(horizontal * math.cos(angle)), round(horizontal * math.sin(angle))
    program, line = _rewrite_pose(text, index, values)
    distance = math.hypot(values[0], values[1], z)
    return Injection(
        category="safety",
        subtype="exceed_reach",
        program=program,
        line=line,
        description=f"Position at line {line} is {distance:.0f} mm from the base, beyond the {robot.reach_mm:.0f} mm reach",
    )


def _negative_z(rng: random.Random, text: _Text, robot: RobotSpec) -> Injection | None:
    candidates = _cartesian_poses(text)
    if not candidates:
        return None
    index = rng.choice(candidates)
    values = [v or 0.0 for v in text.model.poses[index].values]
    values[2] = -round(rng.uniform(5, 120))
    program, line = _rewrite_pose(text, index, values)
    return Injection(
        category="safety",
        subtype="negative_z",
        program=program,
        line=line,
        description=f"Z-coordinate {values[2]:.0f} mm below the floor at line {line}",
    )


def _excessive_limit(
    rng: random.Random, text: _Text, robot: RobotSpec, commands: CommandSet, quantity: str
) -> Injection | None:
    candidates = []
    for invocation in text.model.invocations:
        spec = commands.commands.get(invocation.resolved or "")
        param = spec.param_with_role(quantity) if spec else None
        value = invocation.args.get(param.name) if param else None
        if spec is not None and isinstance(value, NumberLit | StringLit):
            candidates.append((invocation.command, spec.space or "cartesian", value))
    if not candidates:
        return None
    command, space, value = rng.choice(candidates)
    limit = getattr(robot.limits(space), quantity).max
    excessive = round(limit * rng.uniform(1.2, 3.0) / 10) * 10
    start = text.token_at(value.line, value.column)
    end = start + 1 if text.tokens[start].text == "-" else start
    new_text = f'"{round(100 * excessive / limit)}%"' if isinstance(value, StringLit) else str(excessive)
    unit = "deg/s" if space == "joint" else "mm/s"
    suffix = "²" if quantity == "acceleration" else ""
    return Injection(
        category="safety",
        subtype=f"excessive_{quantity}",
        program=text.replace(start, end, new_text),
        line=value.line,
        description=f"{quantity.capitalize()} of {command} raised to {excessive:g} {unit}{suffix} (limit {limit:g}) at line {value.line}",
    )


# --- consistency ---------------------------------------------------------------------------------
def _undefined_reference(rng: random.Random, text: _Text) -> Injection | None:
    targets = [t for inv in text.model.invocations for t in inv.targets if t.status == "defined" and t.name]
    if not targets:
        return None
    target = rng.choice(targets)
    name = target.name or ""
    defined = set(text.model.named_poses) | set(text.model.other_names)
    labels = [label for label in LOCATION_LABELS if not any(n.startswith(f"{label}_") for n in defined)]
    options = [name[:-1], f"{name}_2"] + ([f"{labels[0]}{name[1:]}"] if labels and name[1:2] == "_" else [])
    new_name = next(option for option in rng.sample(options, len(options)) if option not in defined)
    index = text.token_at(target.line, target.column)
    return Injection(
        category="consistency",
        subtype="undefined_reference",
        program=text.replace(index, index, new_name),
        line=target.line,
        description=f"Reference to undefined position '{new_name}' at line {target.line}",
    )


def _duplicate_definition(rng: random.Random, text: _Text, robot: RobotSpec) -> Injection | None:
    defines = {d.name: d for d in text.model.defines if d.value_kind == "pose"}
    candidates = [
        i for i, pose in enumerate(text.model.poses) if pose.origin == "define" and pose.name in defines
    ]
    if not candidates:
        return None
    pose = text.model.poses[rng.choice(candidates)]
    values = [v or 0.0 for v in pose.values]
    if pose.space == "cartesian":
        shift = rng.choice([-1, 1]) * round(rng.uniform(20, 60))
        values[0] += (
            shift
            if math.hypot(values[0] + shift, values[1], values[2]) < 0.95 * robot.reach_mm
            else -abs(shift)
        )
    else:
        low, high = robot.joint_limits_deg[0]
        values[0] = values[0] + 10 if values[0] + 10 <= high else max(low, values[0] - 10)
    literal = f"{pose.pose_type}({', '.join(f'{v:g}' for v in values)})"
    define = defines[pose.name or ""]
    line_start = text.line_starts[define.line - 1]
    program = f"{text.program[:line_start]}DEFINE {pose.name} = {literal};\n{text.program[line_start:]}"
    return Injection(
        category="consistency",
        subtype="duplicate_definition",
        program=program,
        line=define.line,
        description=f"'{pose.name}' defined twice with different values (lines {define.line} and {define.line + 1})",
    )


def inject_text_error(
    rng: random.Random, program: str, category: Category, subtype: str, robot: RobotSpec, commands: CommandSet
) -> Injection | None:
    """Inject a syntax, safety or consistency error of `subtype` into a correct `program`."""
    text = _Text(program, commands)
    injectors: dict[str, Callable[[], Injection | None]] = {
        "missing_semicolon": lambda: _missing_semicolon(rng, text),
        "missing_bracket": lambda: _missing_bracket(rng, text),
        "wrong_keyword": lambda: _wrong_keyword(rng, text),
        "missing_parameter": lambda: _missing_parameter(rng, text, commands),
        "exceed_reach": lambda: _exceed_reach(rng, text, robot),
        "negative_z": lambda: _negative_z(rng, text, robot),
        "excessive_velocity": lambda: _excessive_limit(rng, text, robot, commands, "velocity"),
        "excessive_acceleration": lambda: _excessive_limit(rng, text, robot, commands, "acceleration"),
        "undefined_reference": lambda: _undefined_reference(rng, text),
        "duplicate_definition": lambda: _duplicate_definition(rng, text, robot),
    }
    if subtype not in SUBTYPES[category] or subtype not in injectors:
        raise ValueError(f"unknown {category} error subtype '{subtype}'")
    return injectors[subtype]()
