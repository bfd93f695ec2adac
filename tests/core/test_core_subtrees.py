"""Subtrees: private key namespaces, port remapping, and per-robot overrides of nested nodes."""

from __future__ import annotations

from treebrain.testing import TreeHarness

COUNTER = """
version: 1
blackboard:
  total: float
  scratch: {type: float, initial: 10.0}
root:
  type: sequence
  name: body
  memory: true
  children:
    - {type: add, name: bump, params: {amount: 1.0}, inputs: {value: total}, outputs: {result: total}}
    - {type: add, name: private, params: {amount: 5.0}, inputs: {value: scratch}, outputs: {result: scratch}}
"""

MAIN = """
version: 1
blackboard:
  /total: {type: float, initial: 0.0}
  /scratch: {type: float, initial: 0.0}
root:
  type: sequence
  name: root
  memory: true
  children:
    - {type: subtree, name: first, file: parts/counter.yaml, ports: {total: /total}}
    - {type: subtree, name: second, file: parts/counter.yaml, ports: {total: /total}}
"""


def test_subtree_keys_are_private_except_remapped_ports():
    harness = TreeHarness.from_yaml(MAIN, files={"parts/counter.yaml": COUNTER})
    harness.assert_ticks(
        [{"root": "SUCCESS", "root/first/body/bump": "SUCCESS", "root/second/body/private": "SUCCESS"}]
    )
    harness.assert_blackboard(
        {"/total": 2.0, "/scratch": 0.0, "/@root/first/scratch": 15.0, "/@root/second/scratch": 15.0}
    )


def test_overrides_reach_nodes_inside_subtrees(tmp_path):
    (tmp_path / "parts").mkdir()
    (tmp_path / "parts/counter.yaml").write_text(COUNTER)
    (tmp_path / "main.yaml").write_text(MAIN)
    (tmp_path / "robot.yaml").write_text(
        "robot: r\ntree: main.yaml\nlimits: {step: 2.5}\noverrides:\n  root/second/body/bump: {amount: '${limits.step}'}\n"
    )
    harness = TreeHarness.from_file(tmp_path / "robot.yaml")
    harness.tick()
    harness.assert_blackboard({"/total": 3.5})
    assert harness.tree.context.robot.name == "r"
    assert harness.tree.context.robot.limits == {"step": 2.5}


def test_robot_blackboard_values_and_api_values_seed_keys(tmp_path):
    (tmp_path / "t.yaml").write_text(
        "version: 1\nblackboard: {/speed: {type: float, initial: 1.0}}\n"
        "root: {type: check_blackboard, params: {condition: '/speed < 0.5'}}\n"
    )
    (tmp_path / "robot.yaml").write_text("robot: r\ntree: t.yaml\nblackboard: {speed: 0.2}\n")
    assert TreeHarness.from_file(tmp_path / "robot.yaml").tick().name == "SUCCESS"
    assert TreeHarness.from_file(tmp_path / "robot.yaml", values={"/speed": 0.9}).tick().name == "FAILURE"


IDIOM = """
version: 1
blackboard:
  out: str
root:
  type: selector
  name: body
  memory: true
  children:
    - {type: set_blackboard, name: first, params: {value: primary}, outputs: {value: out}}
    - type: slot
      name: fallback
      default: {type: set_blackboard, params: {value: default}, outputs: {value: out}}
"""


def test_include_params_configure_nodes_inside_the_subtree():
    main = """
version: 1
blackboard: {/result: str}
root:
  type: subtree
  name: use
  file: idiom.yaml
  ports: {out: /result}
  params: {first: {value: configured}}
"""
    harness = TreeHarness.from_yaml(main, files={"idiom.yaml": IDIOM})
    harness.tick()
    harness.assert_blackboard({"/result": "configured"})


def test_slots_are_filled_by_the_includer_in_its_own_scope():
    main = """
version: 1
blackboard: {/result: str, /note: {type: str, initial: ""}}
root:
  type: subtree
  name: use
  file: idiom.yaml
  ports: {out: /result}
  params: {first: {value: 3}}
  slots:
    fallback: {type: set_blackboard, params: {value: from the caller}, outputs: {value: /note}}
"""
    harness = TreeHarness.from_yaml(
        main.replace("{value: 3}", "{value: primary}"),
        files={"idiom.yaml": IDIOM},
        stubs={"use/body/first": ["FAILURE"]},
    )
    harness.tick()
    harness.assert_statuses({"use/body/fallback": "SUCCESS"})
    harness.assert_blackboard({"/note": "from the caller"})


def test_unfilled_slot_uses_its_default_and_unknown_slots_are_reported(tmp_path):
    from treebrain.trees import validate_file

    (tmp_path / "idiom.yaml").write_text(IDIOM)
    (tmp_path / "main.yaml").write_text(
        "version: 1\nblackboard: {/result: str}\nroot:\n  type: subtree\n  file: idiom.yaml\n  ports: {out: /result}\n"
        "  slots: {fallbak: {type: succeed}}\n"
    )
    problems = [str(p) for p in validate_file(tmp_path / "main.yaml")]
    assert problems == [f"{tmp_path / 'main.yaml'}:7:20: subtree: idiom.yaml has no slot 'fallbak'"]
    harness = TreeHarness.from_yaml(
        "version: 1\nblackboard: {/result: str}\nroot: {type: subtree, file: idiom.yaml, ports: {out: /result}}\n",
        files={"idiom.yaml": IDIOM},
        stubs={"subtree/body/first": ["FAILURE"]},
    )
    harness.tick()
    harness.assert_blackboard({"/result": "default"})
