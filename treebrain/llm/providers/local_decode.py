"""The local provider's decode loop: llama.cpp's grammar checked last, on a few candidates.

``Llama.create_completion`` samples through a chain that applies the grammar to the whole vocabulary
before picking a token. Gemma 3's vocabulary has 262,144 tokens, so on this machine that check costs
about 26 ms a token, more than the model's own forward pass (about 16 ms). This loop gives the same
answer for a fraction of the cost, as llama.cpp's own ``common_sampler`` does: it ranks the tokens by
logit and asks the grammar only about the best few (64), widening to 4,096 and then to the whole
vocabulary only when none of them (or, when sampling, fewer than ``top_k``) is allowed.

- Greedy (temperature 0) takes the highest-logit token the grammar allows, ties to the lowest id:
  exactly what ``grammar -> greedy`` picks.
- Sampling keeps the ``top_k`` best allowed tokens and then applies the rest of llama-cpp-python's
  default chain to them (top-p 0.95, min-p 0.05, temperature, draw), as
  ``grammar -> top_k -> top_p -> min_p -> temp -> dist`` does, except that it stops looking once the
  candidates left are all more than ``-ln(min_p)`` (3.0) below the best allowed logit: min-p removes
  such tokens anyway. (They only shift top-p's normalisation, by their tiny probability mass.)

The prompt reuses the longest prefix already in the KV cache, as ``Llama.generate`` does; the
prompts put their static parts first for that (``treebrain.voice.prompts``).
"""

from __future__ import annotations

import ctypes
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

Array = np.ndarray[Any, Any]

WIDENING = (64, 4096)
"""Candidates asked about before the whole vocabulary, best first."""


class GrammarFilter(Protocol):
    """Which candidate tokens a grammar allows next, and the token taken."""

    def allowed(self, ids: Array) -> Array:
        """A boolean mask over `ids`."""
        ...

    def accept(self, token: int) -> None: ...

    def close(self) -> None: ...


class Backend(Protocol):
    """The few things the loop needs from a model with a KV cache."""

    def cached_tokens(self) -> Sequence[int]:
        """The tokens whose keys and values are in the cache, in order."""
        ...

    def keep_prefix(self, count: int) -> bool:
        """Drop the cache after `count` tokens (0: all); False when the cache cannot be cut there."""
        ...

    def evaluate(self, tokens: Sequence[int]) -> None:
        """Append `tokens` to the cache; afterwards `last_logits` is the next token's."""
        ...

    def last_logits(self) -> Array: ...

    def is_end(self, token: int) -> bool: ...

    def detokenize(self, tokens: Sequence[int], prev_tokens: Sequence[int]) -> str: ...


@dataclass(frozen=True)
class Sampling:
    """llama-cpp-python's defaults for ``create_completion`` (typical-p 1.0 and penalties 1.0 are off)."""

    temperature: float = 0.0
    top_k: int = 40
    top_p: float = 0.95
    min_p: float = 0.05


@dataclass
class Decoded:
    text: str
    tokens: list[int]
    finish_reason: str
    """"stop" (end of turn, a stop string, or `should_stop`) or "length"."""
    prompt_tokens: int
    reused_tokens: int
    """Prompt tokens found in the KV cache and not evaluated again."""
    prompt_s: float
    generate_s: float
    widened: int = 0
    """Tokens for which the best 64 candidates were not enough."""
    extra: dict[str, Any] = field(default_factory=dict)

    def completion(self) -> dict[str, Any]:
        """The shape of ``Llama.create_completion``'s answer, which the provider reads."""
        return {
            "choices": [{"text": self.text, "finish_reason": self.finish_reason}],
            "usage": {
                "prompt_tokens": self.prompt_tokens,
                "completion_tokens": len(self.tokens),
                "total_tokens": self.prompt_tokens + len(self.tokens),
            },
        }


def ranked(logits: Array, count: int) -> Array:
    """The `count` highest-logit token ids, best first, ties to the lowest id."""
    total = logits.shape[0]
    order: Array
    if count >= total:
        order = np.lexsort((np.arange(total), -logits))
        return order
    # argpartition may split a tie at the boundary arbitrarily: take every token tied with the last one.
    cutoff = logits[np.argpartition(-logits, count - 1)[:count]].min()
    top = np.flatnonzero(logits >= cutoff)
    order = top[np.lexsort((top, -logits[top]))][:count]
    return order


def best_allowed(
    logits: Array, grammar: GrammarFilter | None, need: int, within: float = math.inf
) -> tuple[Array, bool]:
    """Up to `need` ids the grammar allows, best first, and True when the first 64 candidates were not
    enough. Once one is found, tokens more than `within` below it in logit are not looked for."""
    if grammar is None:
        return ranked(logits, need), False
    seen = 0
    chosen: list[Array] = []
    found = 0
    best = math.inf
    for size in (*WIDENING, logits.shape[0]):
        candidates = ranked(logits, min(size, logits.shape[0]))[seen:]
        allowed = candidates[grammar.allowed(candidates)]
        chosen.append(allowed)
        if found == 0 and len(allowed):
            best = float(logits[allowed[0]])
        found += len(allowed)
        seen += len(candidates)
        if found >= need or seen >= logits.shape[0]:
            break
        if found and float(logits[candidates[-1]]) < best - within:
            break
    ids = np.concatenate(chosen)[:need]
    return ids, seen > WIDENING[0]


def distribution(ids: Array, logits: Array, sampling: Sampling) -> tuple[Array, Array]:
    """Top-p, then min-p, then temperature, over `ids` (best first), as llama.cpp's samplers do:
    the ids kept and their probabilities."""
    values = logits[ids].astype(np.float64)
    probs = np.exp(values - values.max())
    probs /= probs.sum()
    keep = len(ids)
    if sampling.top_p < 1.0:
        keep = min(keep, int(np.searchsorted(np.cumsum(probs), sampling.top_p)) + 1)
    if sampling.min_p > 0.0:
        keep = max(1, int(np.count_nonzero(values[:keep] >= values[0] + math.log(sampling.min_p))))
    scaled = values[:keep] / sampling.temperature
    weights = np.exp(scaled - scaled.max())
    return ids[:keep], weights / weights.sum()


def draw(ids: Array, logits: Array, sampling: Sampling, rng: np.random.Generator) -> int:
    kept, probs = distribution(ids, logits, sampling)
    return int(kept[int(rng.choice(len(kept), p=probs))])


def pick(
    logits: Array, grammar: GrammarFilter | None, sampling: Sampling, rng: np.random.Generator
) -> tuple[int | None, bool]:
    """The next token (None: the grammar allows nothing), and whether the candidates were widened."""
    if sampling.temperature <= 0.0:
        ids, widened = best_allowed(logits, grammar, 1)
    else:
        # Allowed tokens that min-p would remove need not be found (see the module's docstring).
        within = -math.log(sampling.min_p) if sampling.min_p > 0.0 else math.inf
        ids, widened = best_allowed(logits, grammar, sampling.top_k, within)
    if len(ids) == 0:
        return None, widened
    if sampling.temperature <= 0.0:
        return int(ids[0]), widened
    return draw(ids, logits, sampling, rng), widened


def reuse_prefix(backend: Backend, tokens: Sequence[int]) -> int:
    """Keep the longest cached prefix of `tokens` (at least one token is evaluated again, for its
    logits); returns how many tokens were kept."""
    prefix = 0
    for cached, token in zip(backend.cached_tokens(), tokens, strict=False):
        if cached != token:
            break
        prefix += 1
    prefix = min(prefix, len(tokens) - 1)
    if prefix > 0 and backend.keep_prefix(prefix):
        return prefix
    backend.keep_prefix(0)
    return 0


def decode(
    backend: Backend,
    tokens: Sequence[int],
    *,
    grammar: GrammarFilter | None,
    max_tokens: int,
    sampling: Sampling,
    rng: np.random.Generator,
    should_stop: Callable[[], bool] = lambda: False,
    stop: Sequence[str] = (),
) -> Decoded:
    """Evaluate the prompt (after the cached prefix) and generate up to `max_tokens` tokens."""
    started = time.perf_counter()
    reused = reuse_prefix(backend, tokens)
    backend.evaluate(tokens[reused:])
    evaluated = time.perf_counter()
    out: list[int] = []
    finish = "length"
    widened = 0
    while len(out) < max_tokens:
        if should_stop():
            finish = "stop"
            break
        token, wide = pick(backend.last_logits(), grammar, sampling, rng)
        widened += wide
        if token is None or backend.is_end(token):
            finish = "stop"
            break
        if grammar is not None:
            grammar.accept(token)
        out.append(token)
        if len(out) < max_tokens:
            backend.evaluate([token])
    text = backend.detokenize(out, list(tokens))
    for marker in stop:
        if marker in text:
            text = text[: text.index(marker)]
            finish = "stop"
    return Decoded(
        text=text,
        tokens=out,
        finish_reason=finish,
        prompt_tokens=len(tokens),
        reused_tokens=reused,
        prompt_s=evaluated - started,
        generate_s=time.perf_counter() - evaluated,
        widened=widened,
    )


class LlamaBackend:
    """A ``llama_cpp.Llama`` seen through :class:`Backend` (its cache bookkeeping kept in step, so a
    later ``create_completion`` on the same object still finds its prefix)."""

    def __init__(self, model: Any) -> None:
        import llama_cpp

        self._llama_cpp = llama_cpp
        self._model = model
        self._vocab = model._model.vocab
        self._n_vocab = int(model.n_vocab())

    def cached_tokens(self) -> Sequence[int]:
        return [int(token) for token in self._model.input_ids[: self._model.n_tokens]]

    def keep_prefix(self, count: int) -> bool:
        if count == 0:
            self._model.reset()
            return True
        if not self._model._ctx.kv_cache_seq_rm(-1, count, -1):
            return False
        self._model.n_tokens = count
        return True

    def evaluate(self, tokens: Sequence[int]) -> None:
        self._model.eval(list(tokens))

    def last_logits(self) -> Array:
        pointer = self._llama_cpp.llama_get_logits_ith(self._model.ctx, -1)
        return np.ctypeslib.as_array(pointer, shape=(self._n_vocab,))

    def is_end(self, token: int) -> bool:
        return bool(self._llama_cpp.llama_vocab_is_eog(self._vocab, token))

    def detokenize(self, tokens: Sequence[int], prev_tokens: Sequence[int]) -> str:
        raw = self._model.detokenize(list(tokens), prev_tokens=list(prev_tokens))
        return bytes(raw).decode("utf-8", errors="ignore")


class LlamaGrammarFilter:
    """llama.cpp's grammar sampler, asked about a handful of candidates at a time."""

    def __init__(self, model: Any, grammar: Any) -> None:
        import llama_cpp

        self._llama_cpp = llama_cpp
        self._sampler = llama_cpp.llama_sampler_init_grammar(
            model._model.vocab, grammar._grammar.encode("utf-8"), grammar._root.encode("utf-8")
        )
        if not self._sampler:
            raise ValueError("llama.cpp could not parse the grammar")

    def allowed(self, ids: Array) -> Array:
        llama_cpp = self._llama_cpp
        data = (llama_cpp.llama_token_data * len(ids))()
        view = np.ctypeslib.as_array(data)
        view["id"] = ids
        view["logit"] = 0.0
        view["p"] = 0.0
        array = llama_cpp.llama_token_data_array(data=data, size=len(ids), selected=-1, sorted=False)
        llama_cpp.llama_sampler_apply(self._sampler, ctypes.byref(array))
        mask: Array = np.isfinite(view["logit"])
        return mask

    def accept(self, token: int) -> None:
        self._llama_cpp.llama_sampler_accept(self._sampler, token)

    def close(self) -> None:
        if self._sampler:
            self._llama_cpp.llama_sampler_free(self._sampler)
            self._sampler = None
