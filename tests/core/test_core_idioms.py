"""The four idioms, tick by tick with scripted providers on a fake clock."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from py_trees.common import Status

from treebrain.idioms.logic import (
    Tier,
    WatchdogThresholds,
    merge_issues,
    speed_scale,
    three_pass_report,
    watchdog_tier,
)
from treebrain.testing import TreeHarness
from treebrain.validators import get_validator, register_validator

SCHEMA = "{type: object, properties: {steps: {type: array, items: {type: string}}}, required: [steps]}"


def no_bad_steps(candidate: Any, context: Mapping[str, Any]) -> list[str]:
    return [f"step '{step}' is not allowed" for step in candidate.get("steps", []) if step.startswith("bad")]


if get_validator("test.no_bad_steps") is None:
    register_validator("test.no_bad_steps", no_bad_steps)


def scripted(*responses: Any) -> dict[str, Any]:
    return {
        "llm": {
            "default": "script",
            "profiles": {"script": {"provider": "scripted", "responses": list(responses)}},
        }
    }


GVR = f"""
version: 1
blackboard:
  /request: {{type: "dict[str, any]", initial: {{command: make a sandwich}}}}
  /plan: any
  /report: "dict[str, any]"
root:
  type: subtree
  name: plan
  file: "@idioms/generate_validate_regenerate.yaml"
  ports: {{variables: /request, output: /plan, report: /report}}
  params:
    generate: {{prompt_text: "Plan: {{{{ command }}}}", schema: {SCHEMA}}}
    rules: {{validators: [test.no_bad_steps]}}
    review_non_fatal/review: {{enabled: REVIEW, prompt_text: "Review {{{{ candidate }}}}"}}
    maybe_regenerate/pass3_non_fatal/regenerate_and_recheck/regenerate: {{prompt_text: "Plan: {{{{ command }}}}", schema: {SCHEMA}}}
    maybe_regenerate/pass3_non_fatal/regenerate_and_recheck/recheck: {{validators: [test.no_bad_steps]}}
"""


def gvr(*responses: Any, review: bool = False) -> TreeHarness:
    return TreeHarness.from_yaml(GVR.replace("REVIEW", str(review).lower()), robot=scripted(*responses))


def prompts(harness: TreeHarness) -> list[str]:
    seen: list[str] = []
    harness.tree.context.listeners.append(
        lambda event: seen.append(event.data["request"]["messages"][0]["content"])
    )
    return seen


def test_gvr_without_issues_makes_one_call_and_uses_pass_1():
    harness = gvr('{"steps": ["bread", "cheese"]}')
    sent = prompts(harness)
    assert harness.run_to_end(50) == Status.SUCCESS
    assert sent == ["Plan: make a sandwich"]
    harness.assert_blackboard({"/plan": {"steps": ["bread", "cheese"]}})
    report = harness.value("/report")
    assert (report["used_pass"], report["issues"], report["regenerated"]) == (1, [], False)


def test_gvr_regenerates_once_with_the_issues_and_tags_what_pass_3_fixed():
    harness = gvr('{"steps": ["bread", "bad glue"]}', '{"steps": ["bread", "cheese"]}')
    sent = prompts(harness)
    assert harness.run_to_end(50) == Status.SUCCESS
    assert sent[1].endswith("- step 'bad glue' is not allowed\nAnswer again and fix every one of them.")
    harness.assert_blackboard({"/plan": {"steps": ["bread", "cheese"]}})
    report = harness.value("/report")
    assert report["pass1"] == {"steps": ["bread", "bad glue"]}
    assert report["issues"] == ["step 'bad glue' is not allowed [P3 fixed]"]
    assert (report["used_pass"], report["remaining"]) == (3, [])


def test_gvr_pass_3_failure_is_not_fatal_and_pass_1_stands():
    harness = gvr('{"steps": ["bad glue"]}', "not json at all")
    assert harness.run_to_end(50) == Status.SUCCESS
    harness.assert_blackboard({"/plan": {"steps": ["bad glue"]}})
    report = harness.value("/report")
    assert (report["used_pass"], report["regenerated"], report["remaining"]) == (
        1,
        False,
        ["step 'bad glue' is not allowed"],
    )


def test_gvr_rules_hold_even_when_the_llm_reviewer_says_valid():
    harness = gvr(
        '{"steps": ["bad glue"]}', '{"valid": true, "issues": []}', '{"steps": ["bad paint"]}', review=True
    )
    assert harness.run_to_end(50) == Status.SUCCESS
    report = harness.value("/report")
    assert report["issues"] == ["step 'bad glue' is not allowed"]
    assert report["used_pass"] == 1  # pass 3 did not reduce the issues


def test_gvr_reviewer_issues_are_merged_with_rule_issues():
    harness = gvr(
        '{"steps": ["bread"]}',
        '{"valid": false, "issues": ["too little food"]}',
        '{"steps": ["bread", "ham"]}',
        review=True,
    )
    harness.run_to_end(50)
    report = harness.value("/report")
    assert report["issues"] == ["too little food [P3 fixed]"]


RETRY = f"""
version: 1
blackboard:
  /request: {{type: "dict[str, any]", initial: {{command: make a sandwich}}}}
  /plan: any
  /errors: "list[str]"
  /attempt: int
  /fallback_used: bool
  /note: str
root:
  type: subtree
  name: retry
  file: "@idioms/retry_with_feedback.yaml"
  ports: {{variables: /request, output: /plan, errors: /errors, attempt: /attempt, fallback_used: /fallback_used}}
  params:
    attempts_or_fallback/attempts: {{attempts: 3}}
    attempts_or_fallback/attempts/attempt/generate: {{prompt_text: "Plan: {{{{ command }}}}", schema: {SCHEMA}}}
    attempts_or_fallback/attempts/attempt/validate: {{validators: [test.no_bad_steps]}}
  slots:
    fallback: {{type: set_blackboard, name: apologise, params: {{value: sorry}}, outputs: {{value: /note}}}}
"""


def test_retry_feeds_each_attempt_the_previous_errors_and_its_number():
    harness = TreeHarness.from_yaml(
        RETRY, robot=scripted("garbage", '{"steps": ["bad glue"]}', '{"steps": ["bread"]}')
    )
    sent = prompts(harness)
    assert harness.run_to_end(50) == Status.SUCCESS
    assert sent[0] == "Plan: make a sandwich"
    assert (
        "CORRECTION (attempt 2)" in sent[1] and "the answer is not JSON valid against the schema" in sent[1]
    )
    assert sent[2].endswith(
        "CORRECTION (attempt 3): your previous answer had these problems:\n- step 'bad glue' is not allowed\nAnswer again and fix every one of them."
    )
    harness.assert_blackboard(
        {"/plan": {"steps": ["bread"]}, "/attempt": 3, "/fallback_used": False, "/errors": []}
    )
    harness.assert_blackboard({"/request": {"command": "make a sandwich"}})


def test_retry_runs_the_fallback_after_the_last_failure():
    harness = TreeHarness.from_yaml(RETRY, robot=scripted(*['{"steps": ["bad glue"]}'] * 3))
    assert harness.run_to_end(50) == Status.SUCCESS
    harness.assert_blackboard(
        {
            "/attempt": 3,
            "/fallback_used": True,
            "/note": "sorry",
            "/errors": ["step 'bad glue' is not allowed"],
        }
    )
    assert not harness.blackboard.has("/plan")


WATCHDOG = """
version: 1
blackboard:
  /decided_at: float
  /tier: str
  /speed: float
  /said: str
root:
  type: subtree
  name: watch
  file: "@idioms/watchdog_degradation.yaml"
  ports: {decided_at: /decided_at, tier: /tier, speed_scale: /speed, notification: /said}
"""


def test_watchdog_switches_tiers_within_one_tick_and_back_on_a_fresh_decision():
    harness = TreeHarness.from_yaml(WATCHDOG, period=0.5)
    notes: list[str] = []
    harness.tree.context.listeners.append(lambda event: notes.append(event.data["tier"]))
    branch = "watch/watchdog/tiers/"
    harness.tick()  # t = 0: no decision yet, counted from the start
    harness.assert_statuses({branch + "when_continue/continue": "RUNNING"})
    assert harness.value("/speed") == 1.0
    harness.tick(6)  # t = 3.0 on the last tick: STOP_WAIT from exactly 3 s
    assert harness.value("/tier") == "STOP_WAIT"
    harness.assert_statuses(
        {branch + "when_continue/continue": "INVALID", branch + "when_stop_wait/stop_wait": "RUNNING"}
    )
    harness.blackboard.set("/decided_at", harness.clock.now(), "test")  # a fresh decision at t = 3.5
    harness.tick()
    harness.assert_statuses(
        {branch + "when_continue/continue": "RUNNING", branch + "when_stop_wait/stop_wait": "INVALID"}
    )
    assert harness.value("/tier") == "CONTINUE" and harness.value("/said") == ""
    harness.clock.advance(30.0)
    harness.tick()
    assert harness.value("/tier") == "RETURN_HOME"
    assert harness.value("/said") == "Extended connection loss. Returning to start."
    assert notes == ["CONTINUE", "STOP_WAIT", "CONTINUE", "RETURN_HOME"]


FALLBACK = """
version: 1
blackboard:
  /request: {type: "dict[str, any]", initial: {command: go}}
  /answer: any
  /used: str
root:
  type: subtree
  name: chain
  file: "@idioms/model_fallback.yaml"
  ports: {variables: /request, output: /answer, used: /used}
  params:
    try_primary/primary: {profile: cloud, prompt_text: "{{ command }}"}
    try_secondary/secondary: {profile: small, prompt_text: "{{ command }}"}
    canned/canned_answer: {value: stop}
"""


def chain_robot(cloud: list[Any], small: list[Any]) -> dict[str, Any]:
    return {
        "llm": {
            "default": "cloud",
            "profiles": {
                "cloud": {"provider": "scripted", "responses": cloud},
                "small": {"provider": "scripted", "responses": small},
            },
        }
    }


def test_model_fallback_chain_tries_profiles_in_order_then_the_canned_answer():
    primary_ok = TreeHarness.from_yaml(FALLBACK, robot=chain_robot(["forward"], []))
    primary_ok.run_to_end(50)
    primary_ok.assert_blackboard({"/answer": "forward", "/used": "primary"})
    secondary = TreeHarness.from_yaml(
        FALLBACK, robot=chain_robot([{"error": "transport", "times": 3}], ["left"])
    )
    secondary.run_to_end(50)
    secondary.assert_blackboard({"/answer": "left", "/used": "secondary"})
    canned = TreeHarness.from_yaml(FALLBACK, robot=chain_robot([{"error": "config"}], [{"error": "config"}]))
    assert canned.run_to_end(50) == Status.SUCCESS
    canned.assert_blackboard({"/answer": "stop", "/used": "canned"})


def test_pure_idiom_logic():
    assert merge_issues(["a", "b"], None, ["b", "c"]) == ["a", "b", "c"]
    output, report = three_pass_report("p1", ["x", "y"], "p3", ["y"])
    assert output == "p3" and report["issues"] == ["x [P3 fixed]", "y"] and report["fixed"] == ["x"]
    output, report = three_pass_report("p1", ["x"], "p3", ["x", "z"])
    assert output == "p1" and report["used_pass"] == 1 and report["remaining"] == ["x"]
    limits = WatchdogThresholds()
    assert [watchdog_tier(age, limits) for age in (0, 2.99, 3, 9.9, 10, 29, 30, 119, 120)] == [
        Tier.CONTINUE,
        Tier.CONTINUE,
        Tier.STOP_WAIT,
        Tier.STOP_WAIT,
        Tier.LOCAL,
        Tier.LOCAL,
        Tier.RETURN_HOME,
        Tier.RETURN_HOME,
        Tier.HOLD,
    ]
    assert round(speed_scale(2.0, Tier.CONTINUE, 2.0), 4) == 0.3679
    assert speed_scale(2.0, Tier.STOP_WAIT, 2.0) == 0.0
