from __future__ import annotations

from pathlib import Path

import pytest

from treebrain.documents import parse_document
from treebrain.errors import InputError
from treebrain.tdl.commands import CommandSet, load_command_set
from treebrain.tdl.datafile import default_config_dir
from treebrain.tdl.robots import RobotSpec, load_robot_spec, robot_names
from treebrain.tdl.rules.table import IMPLEMENTED, load_rule_table

BAD_ROBOT = """\
robot: ur10e
name: Test
reach_mm: -5
reach_mm: 3
payload_kg: 1
joint_limits_deg: [[0, 1]]
home_deg: [0]
cartesian:
  velocity: {min: 10, max: 1000, recommended: [50, 5000]}
  acceleration: {min: 10, max: 500, recommended: [20, 200]}
joint:
  velocity: {min: 1, max: 120, recommended: [5, 90]}
gripper: {port: one}
"""


def problems(error: pytest.ExceptionInfo[InputError]) -> list[str]:
    return [str(problem) for problem in error.value.problems]


def test_shipped_robot_specs() -> None:
    assert robot_names() == ["abb_gofa", "doosan_m1013", "ur10e"]
    ur10e = load_robot_spec("ur10e")
    assert (ur10e.reach_mm, ur10e.cartesian.velocity.max, ur10e.cartesian.acceleration.max) == (
        1300,
        1000,
        500,
    )
    assert load_robot_spec("doosan_m1013").joint_limits_deg[2] == (-160, 160)
    assert load_robot_spec("abb_gofa").reach_mm == 950
    path = default_config_dir() / "robots" / "ur10e.yaml"
    assert load_robot_spec(str(path)) == ur10e


def test_every_problem_of_a_robot_file_is_located() -> None:
    with pytest.raises(InputError) as error:
        parse_document(BAD_ROBOT, "r.yaml").validated(RobotSpec)
    assert problems(error) == [
        "r.yaml:3:11: reach_mm: Input should be greater than 0 (got -5)",
        "r.yaml:4:1: duplicate key 'reach_mm' (first at line 3)",
        "r.yaml:9:13: cartesian.velocity: Value error, need min <= recommended low <= recommended high <= max, "
        "got min=10.0 max=1000.0 recommended=(50.0, 5000.0)",
        "r.yaml:12:3: joint.acceleration: Field required",
        "r.yaml:13:17: gripper.port: Input should be a valid integer, unable to parse string as an integer (got 'one')",
    ]


def test_yaml_syntax_errors_and_unknown_robots_are_located(tmp_path: Path) -> None:
    with pytest.raises(InputError) as error:
        parse_document("a: [1, 2\nb: 3", "bad.yaml").validated(RobotSpec)
    assert problems(error) == [
        "bad.yaml:2:2: YAML syntax error: while parsing a flow sequence expected ',' or ']', but got ':'"
    ]
    (tmp_path / "robots").mkdir()
    with pytest.raises(InputError) as error:
        load_robot_spec("kuka", tmp_path)
    assert problems(error) == [f"{tmp_path}/robots/kuka.yaml: unknown robot 'kuka' (known: none)"]
    (tmp_path / "robots" / "other.yaml").write_text(
        (default_config_dir() / "robots" / "ur10e.yaml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    with pytest.raises(InputError) as error:
        load_robot_spec("other", tmp_path)
    assert problems(error) == [
        f"{tmp_path}/robots/other.yaml:1:1: file declares robot 'ur10e' but is named 'other'"
    ]


def test_robots_are_found_by_alias_and_unreadable_data_files_say_what_they_should_hold(
    tmp_path: Path,
) -> None:
    assert load_robot_spec("M1013").robot == "doosan_m1013"
    assert load_robot_spec("gofa") == load_robot_spec("abb_gofa")
    with pytest.raises(InputError) as error:
        load_robot_spec("kuka")
    assert problems(error)[0].endswith(
        "unknown robot 'kuka' (known: abb_gofa (gofa, crb15000), doosan_m1013 (m1013), ur10e)"
    )
    with pytest.raises(InputError) as error:
        load_command_set(tmp_path / "none.yaml")
    assert problems(error) == [f"{tmp_path}/none.yaml: file not found (expected CommandSet data)"]
    (tmp_path / "empty.yaml").write_text("# nothing\n", encoding="utf-8")
    with pytest.raises(InputError) as error:
        load_command_set(tmp_path / "empty.yaml")
    assert problems(error) == [f"{tmp_path}/empty.yaml:1:1: empty file: expected a mapping for CommandSet"]


def test_command_set_signatures() -> None:
    commands = load_command_set()
    move = commands.commands["MoveLinear"]
    assert [param.name for param in move.params if param.required] == [
        "target_pose",
        "velocity",
        "acceleration",
        "tool",
        "blending_radius",
    ]
    assert commands.canonical_command("movelinear") == "MoveLinear"
    assert commands.canonical_command("Teleport") is None
    assert commands.pose_type("posx") == "PosX"
    assert commands.commands["Else"].flow is not None and commands.commands["Else"].flow.reopens == "If"


def test_a_bad_command_set_is_reported_at_the_value() -> None:
    text = "version: 1\npose_types: {}\ncommands:\n  Move:\n    category: motion\n    params: [{name: a, role: speed}]\n"
    with pytest.raises(InputError) as error:
        parse_document(text, "c.yaml").validated(CommandSet)
    assert len(problems(error)) == 1
    assert problems(error)[0].startswith(
        "c.yaml:6:30: commands.Move.params[0].role: Input should be 'target_pose'"
    )


def test_rule_table_matches_the_implementations() -> None:
    table = load_rule_table()
    configured = set(table.config.rules)
    assert configured == {impl.rule_id for impl in IMPLEMENTED}
    assert len(configured) == 25  # R-SYN-000..008, R-SAF-001..007, R-CON-001..006, R-DOM-001..003
    assert table.scoring.pass_threshold == 0.85


def test_rule_table_mismatches_are_all_reported_with_lines(tmp_path: Path) -> None:
    text = (default_config_dir() / "rules.yaml").read_text(encoding="utf-8")
    text = text.replace("  R-SYN-000:\n    level: syntax", "  R-SYN-000:\n    level: safety", 1)
    text = text.replace(
        "{severity: CRITICAL, message: \"Undefined position reference '{name}' at line {line}{hint}\"}",
        '{severity: CRITICAL, message: "Undefined {pose} at line {line}"}',
        1,
    )
    text = text.replace("    params: {min_safe_z_mm: 100}\n", "    params: {min_safe_z: 100}\n", 1)
    text = text.replace("      close_without_open:", "      close_without_opening:", 1)
    text += "  R-XYZ-001:\n    level: domain\n    title: Nothing\n    variants: {}\n"
    path = tmp_path / "rules.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as error:
        load_rule_table(path)
    found = problems(error)
    assert len(found) == 7
    assert any(p.endswith("R-SYN-000 is a syntax rule, not safety") for p in found)
    assert any(
        "unknown placeholder(s) pose (available: column, command, hint, line, name)" in p for p in found
    )
    assert any(p.endswith("R-DOM-002 needs parameter 'min_safe_z_mm'") for p in found)
    assert any(p.endswith("R-DOM-002 has no parameter 'min_safe_z'") for p in found)
    assert any(p.endswith("R-SAF-005 lacks variant 'close_without_open'") for p in found)
    assert any(p.endswith("R-SAF-005 has no variant 'close_without_opening'") for p in found)
    assert any(p.endswith("rule R-XYZ-001 has no implementation") for p in found)
    assert all(p.startswith(f"{path}:") and p.split(":")[1] != "0" for p in found)
