"""Why a model could not be used, as a person is told it: every failure has a cause with its own remedy,
kept through retries, in records, and on an LLM leaf's ``failure`` output."""

from __future__ import annotations

import pytest
from py_trees.common import Status

from treebrain.llm import LLMError, LLMErrorKind, LLMFailure
from treebrain.llm.providers.remote import api_key_from_env, missing_package, status_error
from treebrain.testing import TreeHarness


@pytest.mark.parametrize(
    ("error", "cause"),
    [
        (status_error("anthropic", 529, "overloaded", None), LLMFailure.OVERLOADED),
        (status_error("anthropic", 503, "unavailable", None), LLMFailure.OVERLOADED),
        (status_error("openai", 401, "bad key", None), LLMFailure.BAD_KEY),
        (status_error("gemini", 403, "forbidden", None), LLMFailure.BAD_KEY),
        (status_error("openai", 400, "no such model", None), LLMFailure.BAD_REQUEST),
        (missing_package("anthropic", "cloud"), LLMFailure.MISSING_PACKAGE),
        (LLMError(LLMErrorKind.TRANSPORT, "connection reset"), LLMFailure.UNREACHABLE),
        (LLMError(LLMErrorKind.TIMEOUT, "no answer in 20 s"), LLMFailure.TIMEOUT),
        (LLMError(LLMErrorKind.MALFORMED, "empty answer"), LLMFailure.UNPARSEABLE),
        (LLMError(LLMErrorKind.BUDGET, "max_calls 5 reached"), LLMFailure.BUDGET),
        (LLMError(LLMErrorKind.EXHAUSTED, "no script left"), LLMFailure.NO_ANSWER),
    ],
)
def test_each_failure_has_its_cause(error: LLMError, cause: LLMFailure) -> None:
    assert error.cause is cause
    assert error.to_json()["cause"] == cause.value


def test_a_missing_key_names_the_variable_and_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TB_TEST_KEY", raising=False)
    with pytest.raises(LLMError) as caught:
        api_key_from_env("TB_TEST_KEY", "haiku")
    assert caught.value.cause is LLMFailure.MISSING_KEY
    assert caught.value.user_message() == (
        "no API key is set for the model (profile 'haiku' needs an API key in the environment variable "
        "TB_TEST_KEY; set it, or choose another profile (e.g. 'local'))"
    )


def test_the_cause_survives_a_retry_that_gave_up() -> None:
    error = status_error("anthropic", 529, "overloaded", None).again("... (gave up after 3 attempts)")
    assert (error.cause, error.status_code, error.kind) == (
        LLMFailure.OVERLOADED,
        529,
        LLMErrorKind.TRANSPORT,
    )


def test_every_cause_has_a_distinct_message() -> None:
    messages = {LLMError(LLMErrorKind.CONFIG, "x", cause=cause).user_message() for cause in LLMFailure}
    assert len(messages) == len(LLMFailure)


TREE = """
version: 1
blackboard:
  /answer: any
  /failure: dict[str, str]
root:
  type: llm.generate
  name: generate
  params: {prompt_text: "Say ok", retry: {max_attempts: 1}}
  outputs: {result: /answer, failure: /failure}
"""


def test_an_llm_leaf_writes_the_cause_beside_the_error() -> None:
    robot = {
        "llm": {
            "default": "script",
            "profiles": {
                "script": {"provider": "scripted", "responses": [{"error": "config", "status_code": 401}]}
            },
        }
    }
    harness = TreeHarness.from_yaml(TREE, robot=robot)
    harness.tick()
    assert harness.tick() == Status.FAILURE
    failure = harness.value("/failure")
    assert failure["cause"] == "bad_key"
    assert failure["message"].startswith(
        "the provider refused the API key: check the key, or use --provider local"
    )
