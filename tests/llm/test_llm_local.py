"""The local provider: Gemma's prompt format and grammar schema (fast), and the real model (slow)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import threading

import pytest

from treebrain.clock import MonotonicClock
from treebrain.llm.context import CallContext
from treebrain.llm.errors import LLMError, LLMErrorKind
from treebrain.llm.parsing import parse_structured
from treebrain.llm.providers.local import LocalProvider, gemma_prompt, output_schema
from treebrain.llm.types import Image, LLMRequest, LLMResponse, Message, ToolSpec
from treebrain.llm.worker import start_call

HAS_LLAMA = importlib.util.find_spec("llama_cpp") is not None
needs_llama = pytest.mark.skipif(
    not HAS_LLAMA, reason="llama_cpp is not importable: install treebrain[local]"
)

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 30},
        "color": {"type": "string", "enum": ["red", "green", "yellow"]},
        "weight_g": {"type": "integer"},
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 20}, "maxItems": 3},
    },
    "required": ["name", "color", "weight_g", "tags"],
    "additionalProperties": False,
}
MOVE = ToolSpec(
    name="move", description="drive", parameters={"type": "object", "properties": {"d": {"type": "number"}}}
)
STOP = ToolSpec(name="stop", description="halt")


def test_gemma_prompt_puts_the_system_text_in_the_first_user_turn():
    request = LLMRequest(
        system="Be brief.",
        messages=[
            Message(role="user", content="Hi"),
            Message(role="assistant", content="Hello"),
            Message(role="user", content="Go"),
        ],
    )
    assert gemma_prompt(request) == (
        "<start_of_turn>user\nBe brief.\n\nHi<end_of_turn>\n"
        "<start_of_turn>model\nHello<end_of_turn>\n"
        "<start_of_turn>user\nGo<end_of_turn>\n"
        "<start_of_turn>model\n"
    )


def test_tools_constrain_the_output_to_one_call():
    request = LLMRequest(messages=[Message(role="user", content="x")], tools=[MOVE, STOP], json_schema=SCHEMA)
    assert output_schema(request) == {
        "anyOf": [
            {
                "type": "object",
                "properties": {"name": {"const": tool.name}, "arguments": tool.parameters},
                "required": ["name", "arguments"],
                "additionalProperties": False,
            }
            for tool in (MOVE, STOP)
        ]
    }
    assert "- move: drive\n- stop: halt" in gemma_prompt(request)
    assert output_schema(request.model_copy(update={"tool_choice": "none"})) == SCHEMA


def test_images_are_refused_before_loading_anything():
    provider = LocalProvider(model_path="/nonexistent.gguf")
    clock = MonotonicClock()
    image = Image(data="aGk=", media_type="image/png")
    request = LLMRequest(messages=[Message(role="user", content="see", images=[image])])
    with pytest.raises(LLMError) as caught:
        provider.complete(request, CallContext(threading.Event(), clock.now() + 5, clock, "root/a"))
    assert caught.value.kind is LLMErrorKind.CONFIG


@pytest.mark.slow
@pytest.mark.local_llm
@needs_llama
def test_real_gemma_gives_schema_valid_json():
    provider = LocalProvider(n_ctx=1024)
    request = LLMRequest(
        system="Answer with JSON only.",
        messages=[
            Message(
                role="user", content="Describe a red apple: its name, color, weight in grams and two tags."
            )
        ],
        json_schema=SCHEMA,
        temperature=0.0,
        max_tokens=120,
        timeout_s=120,
    )
    call = start_call(provider, request, clock=MonotonicClock(), node_path="root/describe")
    assert call.wait(150)
    response = call.outcome()
    assert isinstance(response, LLMResponse), response
    assert parse_structured(response.text, SCHEMA).ok, response.text
    assert response.parsed is not None
    assert response.parsed["color"] in ("red", "green", "yellow")
    assert (response.provider, response.model) == ("local", "gemma-3-270m-q4_k_m")
    assert response.input_tokens > 10
    assert 0 < response.output_tokens <= 120


@pytest.mark.slow
@pytest.mark.local_llm
@needs_llama
def test_real_gemma_decode_stops_on_cancel():
    provider = LocalProvider(n_ctx=1024)
    provider.load()
    request = LLMRequest(
        messages=[Message(role="user", content="Count from one to five hundred in words.")],
        max_tokens=800,
        timeout_s=120,
    )
    clock = MonotonicClock()
    call = start_call(provider, request, clock=clock, node_path="root/count")
    clock.sleep(0.5)
    call.cancel()
    assert call.wait(2), "the decode loop saw the cancel within a token or two"
    outcome = call.outcome()
    assert isinstance(outcome, LLMError)
    assert outcome.kind is LLMErrorKind.CANCELLED


@pytest.mark.slow
@pytest.mark.local_llm
@needs_llama
def test_what_the_program_prints_while_the_model_loads_reaches_its_output():
    """The model loads on a worker thread: the process's stdout and stderr stay where they were."""
    program = """
import os, threading
from treebrain.llm.providers.local import LocalProvider
loading = threading.Thread(target=LocalProvider(n_ctx=512).load)
loading.start()
writes = 0
while loading.is_alive():
    writes += os.write(1, b"o") + os.write(2, b"e") - 1
    loading.join(0.01)
print(f" {writes}", flush=True)
"""
    done = subprocess.run(
        [sys.executable, "-c", program], check=False, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    shown, writes = done.stdout.split()
    assert int(writes) > 10 and shown == "o" * int(writes)  # none went to /dev/null
    assert done.stderr == "e" * int(writes)
