"""LLM leaves tick by tick on a fake clock with scripted providers: never blocking, cancelled on
halt, failures with reasons on the blackboard, budgets, tool calls, prompt templates."""

from __future__ import annotations

import json
from typing import Any

from py_trees.common import Status

from treebrain.behaviours.llm.service import LLMService
from treebrain.testing import TreeHarness

SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


def generate_tree(params: str = "", extra_inputs: str = "") -> str:
    return f"""
version: 1
blackboard:
  /command: {{type: str, initial: "stack two slices"}}
  /answer: any
  /error: str
  /usage: dict[str, any]
root:
  type: llm.generate
  name: generate
  params: {{prompt_text: "Do: {{{{ command }}}}", schema: {json.dumps(SCHEMA)}{params}}}
  inputs: {{command: /command{extra_inputs}}}
  outputs: {{result: /answer, error: /error, usage: /usage}}
"""


def scripted(*responses: Any, latency_s: float = 0.0, **extra: Any) -> dict[str, Any]:
    return {
        "llm": {
            "default": "script",
            "profiles": {
                "script": {
                    "provider": "scripted",
                    "latency_s": latency_s,
                    "responses": list(responses),
                    **extra,
                }
            },
        }
    }


def calls(harness: TreeHarness) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    harness.tree.context.listeners.append(lambda event: events.append({"kind": event.kind, **event.data}))
    return events


def test_generate_stays_running_while_the_call_is_in_flight_then_writes_the_parsed_answer():
    harness = TreeHarness.from_yaml(generate_tree(), robot=scripted('{"ok": true}', latency_s=0.25))
    events = calls(harness)
    harness.assert_ticks(
        [
            {"generate": "RUNNING"},  # t = 0.0: the call starts
            {"generate": "RUNNING"},  # t = 0.1
            {"generate": "RUNNING"},  # t = 0.2
            {"generate": "SUCCESS"},  # t = 0.3: 0.25 s of latency have passed
        ]
    )
    harness.assert_blackboard({"/answer": {"ok": True}})
    assert harness.value("/usage")["provider"] == "scripted"
    assert [event["kind"] for event in events] == ["llm_call"]
    assert events[0]["request"]["messages"][0]["content"] == "Do: stack two slices"


def test_halting_mid_call_cancels_it_and_never_writes_a_late_result():
    harness = TreeHarness.from_yaml(generate_tree(), robot=scripted('{"ok": true}', latency_s=1.0))
    harness.tick(2)
    leaf = harness.tree.node("generate")
    call = leaf.call  # type: ignore[attr-defined]
    harness.halt()
    assert call.outcome().kind.value == "cancelled"
    harness.clock.advance(5.0)
    harness.settle()
    assert not harness.blackboard.has("/answer")
    assert leaf.feedback_message == "cancelled"


def test_unparseable_answer_fails_with_the_reason_and_raw_text():
    harness = TreeHarness.from_yaml(generate_tree(), robot=scripted("I think it is fine"))
    assert harness.tick() == Status.RUNNING
    assert harness.tick() == Status.FAILURE
    assert harness.value("/error").startswith(
        "the answer is not JSON valid against the schema: 'I think it is fine'"
    )
    assert not harness.blackboard.has("/answer")


def test_a_hanging_provider_ends_at_the_deadline():
    harness = TreeHarness.from_yaml(generate_tree(", timeout_s: 0.5"), robot=scripted({"hang": True}))
    statuses = [harness.tick().name for _ in range(6)]
    assert statuses == ["RUNNING"] * 5 + ["FAILURE"]  # the deadline is t = 0.5, seen by the tick at t = 0.5
    assert harness.value("/error").startswith("timeout: the call from generate passed its deadline")


def test_budget_exhaustion_fails_the_leaf_with_the_reason():
    tree = generate_tree(", budget: {max_calls: 1}")
    harness = TreeHarness.from_yaml(tree, robot=scripted('{"ok": true}', '{"ok": false}'))
    harness.tick(2)
    harness.assert_statuses({"generate": "SUCCESS"})
    harness.tick(2)
    harness.assert_statuses({"generate": "FAILURE"})
    assert harness.value("/error").startswith("budget")
    assert harness.tree.context.service(LLMService).usage()["total"]["calls"] == 1


def test_correction_and_attempt_are_added_to_the_prompt():
    tree = generate_tree(extra_inputs=", correction: /issues, attempt: /attempt").replace(
        "/usage: dict[str, any]",
        "/usage: dict[str, any]\n  /issues: {type: 'list[str]', initial: [no bread]}\n  /attempt: {type: int, initial: 2}",
    )
    harness = TreeHarness.from_yaml(tree, robot=scripted('{"ok": true}'))
    events = calls(harness)
    harness.tick(2)
    prompt = events[0]["request"]["messages"][0]["content"]
    assert prompt == (
        "Do: stack two slices\n\nCORRECTION (attempt 2): your previous answer had these problems:\n- no bread\n"
        "Answer again and fix every one of them."
    )


def test_prompt_template_files_resolve_next_to_the_tree_and_missing_variables_fail():
    tree = generate_tree().replace('prompt_text: "Do: {{ command }}"', "prompt: prompts/do.j2")
    harness = TreeHarness.from_yaml(
        tree,
        files={"prompts/do.j2": "Please {{ command }} and {{ missing }}"},
        robot=scripted('{"ok": true}'),
    )
    assert harness.tick() == Status.FAILURE
    assert "'missing' is undefined" in harness.tree.node("generate").feedback_message


def test_unknown_profile_and_missing_template_are_load_time_problems(tmp_path):
    from treebrain.trees import validate_file

    (tmp_path / "tree.yaml").write_text(
        "version: 1\nroot: {type: llm.generate, params: {prompt: nowhere.j2, profile: cloud}}\n"
    )
    problems = [problem.message for problem in validate_file(tmp_path / "tree.yaml")]
    assert problems == [
        "no LLM profile 'cloud' (profiles: local)",
        f"params.prompt: cannot read template {tmp_path / 'nowhere.j2'}: No such file or directory",
    ]


def test_validate_leaf_writes_issues_and_can_be_switched_off():
    tree = """
version: 1
blackboard:
  /candidate: {type: "dict[str, any]", initial: {steps: []}}
  /issues: list[str]
  /valid: bool
root:
  type: llm.validate
  name: review
  params: {prompt_text: "Check {{ candidate }}"}
  inputs: {candidate: /candidate}
  outputs: {issues: /issues, valid: /valid}
"""
    harness = TreeHarness.from_yaml(tree, robot=scripted('{"valid": false, "issues": ["no steps"]}'))
    harness.tick(2)
    harness.assert_blackboard({"/issues": ["no steps"], "/valid": False})
    off = TreeHarness.from_yaml(
        tree.replace("params: {prompt_text:", "params: {enabled: false, prompt_text:"), robot=scripted()
    )
    assert off.tick() == Status.SUCCESS
    off.assert_blackboard({"/issues": [], "/valid": True})


def test_tool_call_checks_arguments_against_the_declared_schema():
    tree = """
version: 1
blackboard: {/call: "dict[str, any]", /error: str}
root:
  type: llm.tool_call
  name: choose
  params:
    prompt_text: "Where next?"
    tools:
      - name: go_to
        description: drive to a named place
        parameters: {type: object, properties: {place: {type: string}}, required: [place]}
  outputs: {tool_call: /call, error: /error}
"""
    good = {"tool_calls": [{"name": "go_to", "arguments": {"place": "kitchen"}}]}
    bad = {"tool_calls": [{"name": "go_to", "arguments": {"room": 3}}]}
    harness = TreeHarness.from_yaml(tree, robot=scripted(good, bad))
    harness.tick(2)
    harness.assert_blackboard({"/call": {"name": "go_to", "arguments": {"place": "kitchen"}}})
    harness.tick(2)
    assert harness.status("choose") == Status.FAILURE
    assert harness.value("/error").startswith("arguments of 'go_to' do not match its schema")


def test_slow_llm_robot_runs_with_the_safety_branch_ticking_every_tick(tmp_path):
    import json as json_module
    from pathlib import Path

    from treebrain.cli import main

    robot = Path(__file__).resolve().parents[2] / "config/robots/slow_llm_bot.yaml"
    stats_path = tmp_path / "s.json"
    assert main(["run", str(robot), "--hz", "20", "--quiet", "--stats-json", str(stats_path)]) == 0
    stats = json_module.loads(stats_path.read_text())
    assert stats["final_status"] == "SUCCESS"
    assert 38 <= stats["ticks"] <= 46  # 2 s of latency at 20 Hz
