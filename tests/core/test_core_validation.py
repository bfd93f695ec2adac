"""Every bad-input case of the tree format is reported with its exact file, line, column and node."""

from __future__ import annotations

from pathlib import Path

import pytest

import treebrain
from treebrain.blackboard import registered_types
from treebrain.cli import main
from treebrain.trees import validate_file


def messages(path: Path) -> list[str]:
    return [str(problem) for problem in validate_file(path)]


def test_valid_file_has_no_problems(write):
    path = write(
        "ok.yaml",
        """
        version: 1
        root: {type: succeed}
        """,
    )
    assert messages(path) == []
    assert main(["validate", str(path)]) == 0


def test_yaml_syntax_error_is_located(write):
    path = write(
        "bad.yaml",
        """
        version: 1
        root:
          type: sequence
            memory: true
        """,
    )
    assert messages(path) == [f"{path}:4:11: YAML syntax error: mapping values are not allowed here"]


def test_duplicate_yaml_key_is_not_silently_dropped(write):
    path = write(
        "dup.yaml",
        """
        version: 1
        root:
          type: wait
          params: {seconds: 1}
          params: {seconds: 2}
        """,
    )
    assert messages(path) == [f"{path}:5:3: duplicate key 'params' (first at line 4)"]


def test_unknown_type_suggests_the_closest_name(write):
    path = write(
        "typo.yaml",
        """
        version: 1
        root:
          type: sequence
          memory: false
          children:
            - type: wiat
              params: {seconds: 1}
            - {type: selectr, memory: true, children: [{type: succeed}]}
            - type: frobnicate
        """,
    )
    assert messages(path) == [
        f"{path}:6:13: sequence/wiat: unknown node type 'wiat' (did you mean 'wait'?)",
        f"{path}:8:14: sequence/selectr: unknown node type 'selectr' (did you mean 'selector'?)",
        f"{path}:9:13: sequence/frobnicate: unknown node type 'frobnicate' (see 'treebrain list-behaviours')",
    ]


def test_missing_unknown_and_ill_typed_params(write):
    path = write(
        "params.yaml",
        """
        version: 1
        root:
          type: sequence
          memory: true
          children:
            - type: wait
              name: no_seconds
            - type: wait
              name: bad_seconds
              params: {seconds: soon}
            - type: wait
              name: extra
              params: {seconds: 1, colour: red}
            - type: retry
              attempts: 0
              child: {type: succeed}
            - type: parallel
              memory: true
              policy: sometimes
              children: [{type: succeed}]
        """,
    )
    assert messages(path) == [
        f"{path}:6:7: sequence/no_seconds: params.seconds: required (float) but missing",
        f"{path}:10:25: sequence/bad_seconds: params.seconds: expected float, got str 'soon'",
        f"{path}:13:36: sequence/extra: params.colour: unknown param",
        f"{path}:15:17: sequence/retry: attempts: expected int >= 1 (got 0)",
        f"{path}:19:15: sequence/parallel: policy: expected one of 'success_on_all', 'success_on_one', 'success_on_selected' (got 'sometimes')",
    ]


def test_composites_require_explicit_memory(write):
    path = write(
        "memory.yaml",
        """
        version: 1
        root:
          type: selector
          children: [{type: succeed}]
        """,
    )
    assert messages(path) == [f"{path}:3:3: selector: memory: required (bool) but missing"]


def test_wrong_child_counts(write):
    path = write(
        "children.yaml",
        """
        version: 1
        root:
          type: sequence
          memory: true
          children:
            - type: sequence
              name: empty
              memory: true
              children: []
            - type: inverter
              name: two
              children: [{type: succeed}, {type: fail}]
            - type: inverter
              name: none
            - type: succeed
              name: leafy
              children: [{type: fail}]
        """,
    )
    assert messages(path) == [
        f"{path}:9:7: sequence/empty: sequence needs a non-empty list under 'children:'",
        f"{path}:12:7: sequence/two: inverter takes exactly one node under 'child:', not 'children:'",
        f"{path}:13:7: sequence/none: inverter needs exactly one node under 'child:'",
        f"{path}:17:7: sequence/leafy: unknown key 'children' for leaf succeed (leaves take inputs, outputs, params; leaves have no children)",
    ]


def test_duplicate_sibling_names(write):
    path = write(
        "names.yaml",
        """
        version: 1
        root:
          type: sequence
          memory: true
          children:
            - {type: succeed, name: step}
            - {type: fail, name: step}
            - {type: succeed}
            - {type: succeed}
        """,
    )
    assert messages(path) == [f"{path}:7:26: sequence/step: duplicate name 'step' among siblings"]


def test_port_mapped_to_a_key_of_incompatible_type(write):
    path = write(
        "ports.yaml",
        """
        version: 1
        blackboard:
          /label: str
        root:
          type: sequence
          memory: true
          children:
            - type: add
              inputs: {value: /label}
              outputs: {result: /label}
        """,
    )
    assert messages(path) == [
        f"{path}:9:23: sequence/add: input 'value' (float) cannot read key /label of type str",
        f"{path}:10:25: sequence/add: output 'result' (float) cannot write key /label of type str",
    ]


def test_unknown_port_and_unmapped_required_input(write):
    path = write(
        "unmapped.yaml",
        """
        version: 1
        root:
          type: add
          inputs: {valu: /x}
          outputs: {result: /y}
        """,
    )
    assert messages(path) == [
        f"{path}:3:3: add: required input 'value' (float) is not mapped: add it under 'inputs:'",
        f"{path}:4:12: add: add has no input port 'valu' (ports: amount, value)",
    ]


def test_key_read_that_nothing_writes_seeds_or_declares(write):
    path = write(
        "orphan.yaml",
        """
        version: 1
        root:
          type: sequence
          memory: true
          children:
            - type: check_blackboard
              params: {condition: "/door/open"}
            - type: guard
              condition: "/battery > 0.2"
              child: {type: succeed}
        """,
    )
    assert messages(path) == [
        f"{path}:7:27: sequence/check_blackboard: key /door/open is read by 'value' but nothing writes, seeds or declares it",
        f"{path}:9:18: sequence/guard: key /battery is read by 'condition' but nothing writes, seeds or declares it",
    ]


def test_override_path_that_matches_no_node(write):
    write(
        "trees/t.yaml",
        """
        version: 1
        root:
          type: sequence
          memory: true
          children: [{type: wait, params: {seconds: 1}}]
        """,
    )
    robot = write(
        "robot.yaml",
        """
        robot: r1
        tree: trees/t.yaml
        overrides:
          sequence/wiat: {seconds: 2}
          sequence/wait: {seconds: fast}
        """,
    )
    assert messages(robot) == [
        f"{robot}:4:3: override names no node: 'sequence/wiat' (did you mean 'sequence/wait'?)",
        f"{robot}:5:28: sequence/wait: params.seconds: expected float, got str 'fast'",
    ]


def test_cyclic_subtree_includes(write):
    first = write(
        "a.yaml",
        """
        version: 1
        root: {type: subtree, name: to_b, file: b.yaml}
        """,
    )
    second = write(
        "b.yaml",
        """
        version: 1
        root: {type: subtree, name: to_a, file: a.yaml}
        """,
    )
    assert messages(first) == [f"{second}:2:41: to_b/to_a: subtree include cycle: a.yaml -> b.yaml -> a.yaml"]


def test_missing_files(write, tmp_path):
    tree = write(
        "t.yaml",
        """
        version: 1
        root: {type: subtree, file: parts/missing.yaml}
        """,
    )
    robot = write("robot.yaml", "robot: r1\ntree: nowhere.yaml\n")
    assert messages(tree) == [
        f"{tree}:2:29: subtree: subtree file not found: parts/missing.yaml (looked for {tmp_path / 'parts/missing.yaml'})"
    ]
    assert messages(robot) == [f"{robot}:2:7: tree file not found: nowhere.yaml (looked in {tmp_path})"]
    absent = tmp_path / "absent.yaml"
    assert messages(absent) == [f"{absent}: file not found"]


def test_file_layout_problems(write):
    registered = "".join(f", {name}" for name in sorted(registered_types()))
    path = write(
        "layout.yaml",
        """
        version: 2
        rooot: {type: succeed}
        blackboard:
          /speed: velocity
          /count: {type: int, initial: many}
        """,
    )
    assert messages(path) == [
        f"{path}:1:1: missing 'root:' node in layout.yaml",
        f"{path}:1:10: unsupported version 2 (expected 1)",
        f"{path}:2:1: unknown top-level key 'rooot' (expected one of: blackboard, description, root, version)",
        f"{path}:4:11: unknown type 'velocity' (known: any, bool, dict, float, int, list, optional, str{registered})",
        f"{path}:5:11: initial value of /count: expected int, got str 'many'",
    ]


def test_robot_file_references_and_blackboard_values(write):
    write(
        "t.yaml",
        """
        version: 1
        blackboard:
          /speed: float
        root:
          type: wait
          params: {seconds: "${limits.settle_s}"}
        """,
    )
    robot = write(
        "robot.yaml",
        """
        robot: r1
        tree: t.yaml
        limits: {max_speed: 1.0}
        blackboard:
          /speed: fast
          /unused: 3
        """,
    )
    assert messages(robot) == [
        f"{robot}:5:11: value for /speed: expected float, got str 'fast'",
        f"{robot}:6:12: blackboard value for /unused, which the tree never uses (keys: /speed)",
        f"{robot.parent / 't.yaml'}:6:21: wait: ${{limits.settle_s}}: the robot file has no 'settle_s' there",
    ]


def test_subtree_port_must_name_a_declared_key(write):
    write(
        "sub.yaml",
        """
        version: 1
        blackboard:
          level: float
        root: {type: succeed}
        """,
    )
    main_tree = write(
        "main.yaml",
        """
        version: 1
        blackboard:
          /battery: float
        root: {type: subtree, file: sub.yaml, ports: {levl: /battery}}
        """,
    )
    assert messages(main_tree) == [
        f"{main_tree}:4:47: subtree: subtree sub.yaml declares no key 'levl' in its blackboard (declared: level)"
    ]


def test_api_raises_typed_error_with_every_problem(write):
    path = write(
        "two.yaml",
        """
        version: 1
        root:
          type: sequence
          memory: true
          children: [{type: nope}, {type: wait}]
        """,
    )
    with pytest.raises(treebrain.InputError) as raised:
        treebrain.load_tree(path)
    assert [problem.node_path for problem in raised.value.problems] == ["sequence/nope", "sequence/wait"]
    assert all(problem.location.file == str(path) for problem in raised.value.problems)


def test_cli_validate_exits_2_and_prints_every_problem(write, capsys):
    path = write("bad.yaml", "version: 1\nroot: {type: waitt}\n")
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:2:14: waitt: unknown node type 'waitt' (did you mean 'wait'?)" in err
    assert "1 problem found" in err
