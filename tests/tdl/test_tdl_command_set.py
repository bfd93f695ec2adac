"""config/tdl/commands.yaml against the published TDL command set (tests/tdl/data/published_command_set.tdl):
the same 57 entries, every signature the same, in order, with the same optional parameters."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from treebrain.tdl.commands import CommandSet
from treebrain.tdl.findings import Level
from treebrain.tdl.nodes import CommandDecl
from treebrain.tdl.parser import parse_program

Run = Callable[..., list[tuple[str, str, int, str]]]
PUBLISHED_FILE = Path(__file__).parent / "data" / "published_command_set.tdl"


def published() -> dict[str, CommandDecl]:
    parsed = parse_program(PUBLISHED_FILE.read_text(encoding="utf-8"))
    assert parsed.issues == ()
    declarations = [item for item in parsed.items if isinstance(item, CommandDecl)]
    return {declaration.name: declaration for declaration in declarations}


PUBLISHED = published()


def table_signature(commands: CommandSet, name: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(parameters in order, the optional ones) of an entry of commands.yaml."""
    if name in commands.pose_types:
        pose = commands.pose_types[name]
        return (*pose.params, *pose.optional), pose.optional
    spec = commands.commands[name]
    return tuple(p.name for p in spec.params), tuple(p.name for p in spec.params if not p.required)


def test_the_table_holds_exactly_the_57_published_entries_plus_marked_extensions(
    commands: CommandSet,
) -> None:
    assert len(PUBLISHED) == 57
    own = {name for name, spec in commands.commands.items() if spec.extension is None}
    own |= {name for name, pose in commands.pose_types.items() if pose.extension is None}
    assert own == set(PUBLISHED)
    extensions = {name for name, spec in commands.commands.items() if spec.extension}
    extensions |= {name for name, pose in commands.pose_types.items() if pose.extension}
    assert extensions == {"SetTCP", "PosY"}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_every_signature_matches_the_published_one(commands: CommandSet, name: str) -> None:
    declaration = PUBLISHED[name]
    assert table_signature(commands, name) == (declaration.params, declaration.optional)


def test_calls_with_fewer_arguments_than_a_signature_needs_fail(commands: CommandSet, findings: Run) -> None:
    """Every required parameter is enforced: dropping the last one of each command is reported."""
    calls = []
    for name, spec in sorted(commands.commands.items()):
        required = [param.name for param in spec.params if param.required]
        if required:
            calls.append((name, required[-1], ", ".join(f"{p}=0" for p in required[:-1])))
    body = "\n".join(f"  SPAWN {name}({args}) WITH WAIT;" for name, _, args in calls)
    found = findings(f"GOAL G() {{\n{body}\n}}\n", Level.SYNTAX)
    missing = {(line, message) for rule, _, line, message in found if rule == "R-SYN-006"}
    assert missing == {
        (number, f"Missing required parameter '{param}' for command '{name}'")
        for number, (name, param, _) in enumerate(calls, start=2)
    }


def test_the_commands_the_old_table_lacked_are_accepted(findings: Run) -> None:
    source = (
        "GOAL G() {\n"
        "  SPAWN SetArcCondition(1, 180, 22.5, 8.0, 0.3, 0.5) WITH WAIT;\n"
        '  SPAWN ConfigureArcWeaving("zigzag", 3.0, 2.0, 80) WITH WAIT;\n'
        "  h = AMoveCircular(PosX(500, 0, 200, 180, 0, 180), PosX(450, 50, 200, 180, 0, 180), 20, 40, 0, 0);\n"
        "  SPAWN MotionWait(h) WITH WAIT;\n"
        "}\n"
    )
    assert findings(source, Level.SYNTAX) == []


def test_an_extension_command_is_named_as_one(findings: Run) -> None:
    assert findings('GOAL G() {\n  SPAWN SetTCP("gripper_tcp") WITH WAIT;\n}\n', Level.SYNTAX) == [
        (
            "R-SYN-005",
            "INFO",
            2,
            "SetTCP is not in the published TDL command set (accepted as an extension: the team's "
            "TDL -> Doosan mapping rules (5.2 Pose & frames), not in the published set)",
        )
    ]


def test_print_log_takes_one_message_as_published(findings: Run) -> None:
    assert findings('GOAL G() {\n  SPAWN PrintLog("count", 3) WITH WAIT;\n}\n', Level.SYNTAX) == [
        ("R-SYN-006", "CRITICAL", 2, "Too many arguments for command 'PrintLog' (argument 2)")
    ]
