"""The local provider's decode loop, on a fake model and a fake grammar (no llama.cpp needed)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pytest

from treebrain.llm.providers.local import default_threads
from treebrain.llm.providers.local_decode import (
    WIDENING,
    Array,
    Sampling,
    best_allowed,
    decode,
    distribution,
    ranked,
    reuse_prefix,
)

VOCAB = 10_000
END = 0


class FakeModel:
    """Logits that depend on the last token only; a KV cache that can be cut (or refuses to be)."""

    def __init__(self, logits_for: dict[int, Array] | None = None, *, cuttable: bool = True) -> None:
        self.cache: list[int] = []
        self.evaluated: list[list[int]] = []
        self.logits_for = logits_for or {}
        self.cuttable = cuttable
        self.default = np.linspace(0.0, -1.0, VOCAB)  # token 0 (END) best, then 1, 2, ...

    def cached_tokens(self) -> Sequence[int]:
        return list(self.cache)

    def keep_prefix(self, count: int) -> bool:
        if count and not self.cuttable:
            return False
        del self.cache[count:]
        return True

    def evaluate(self, tokens: Sequence[int]) -> None:
        self.evaluated.append(list(tokens))
        self.cache.extend(tokens)

    def last_logits(self) -> Array:
        return self.logits_for.get(self.cache[-1], self.default)

    def is_end(self, token: int) -> bool:
        return token == END

    def detokenize(self, tokens: Sequence[int], prev_tokens: Sequence[int]) -> str:
        return "".join(f"<{token}>" for token in tokens)


class SetGrammar:
    """Allows, at step i, the tokens of steps[i] (END once the steps are used up)."""

    def __init__(self, steps: list[set[int]]) -> None:
        self.steps = steps
        self.taken: list[int] = []
        self.asked: list[int] = []

    def _now(self) -> set[int]:
        return self.steps[len(self.taken)] if len(self.taken) < len(self.steps) else {END}

    def allowed(self, ids: Array) -> Array:
        self.asked.append(len(ids))
        now = self._now()
        return np.array([int(token) in now for token in ids], dtype=bool)

    def accept(self, token: int) -> None:
        assert token in self._now()
        self.taken.append(token)

    def close(self) -> None:
        pass


def peaked(best: int, second: int | None = None) -> Array:
    logits = np.full(VOCAB, -10.0)
    logits[best] = 5.0
    if second is not None:
        logits[second] = 4.0
    return logits


def test_ranked_is_best_first_with_ties_to_the_lowest_id():
    logits = np.array([1.0, 3.0, 3.0, 2.0, 3.0, 0.0])
    assert ranked(logits, 2).tolist() == [1, 2]
    assert ranked(logits, 3).tolist() == [1, 2, 4]
    assert ranked(logits, 6).tolist() == [1, 2, 4, 3, 0, 5]
    assert ranked(logits, 60).tolist() == [1, 2, 4, 3, 0, 5]


def test_greedy_takes_the_best_token_the_grammar_allows_asking_about_few():
    rng = np.random.default_rng(0)
    logits = rng.normal(size=VOCAB)
    order = np.argsort(-logits, kind="stable")
    for position in (0, 5, WIDENING[0] + 3, WIDENING[1] + 7):
        grammar = SetGrammar([{int(order[position]), int(order[position + 1])}])
        ids, widened = best_allowed(logits, grammar, 1)
        # the whole-vocabulary answer: mask everything the grammar refuses, then argmax
        assert ids.tolist() == [int(order[position])]
        assert widened == (position >= WIDENING[0])
    grammar = SetGrammar([{int(order[3])}])
    best_allowed(logits, grammar, 1)
    assert grammar.asked == [WIDENING[0]], "only the 64 best candidates were checked"


def test_decode_follows_the_grammar_and_stops_at_the_end_token():
    model = FakeModel({7: peaked(END, 9), 9: peaked(3)})
    grammar = SetGrammar([{7}, {9}, {3}])
    decoded = decode(
        model, [1, 2], grammar=grammar, max_tokens=10, sampling=Sampling(), rng=np.random.default_rng(0)
    )
    assert decoded.tokens == [7, 9, 3]
    assert decoded.text == "<7><9><3>"
    assert decoded.finish_reason == "stop"
    assert grammar.taken == [7, 9, 3]
    assert decoded.completion()["usage"] == {"prompt_tokens": 2, "completion_tokens": 3, "total_tokens": 5}


def test_decode_stops_at_max_tokens_a_stop_string_or_when_told():
    model = FakeModel()
    model.default = peaked(5)
    decoded = decode(
        model, [1], grammar=None, max_tokens=3, sampling=Sampling(), rng=np.random.default_rng(0)
    )
    assert (decoded.tokens, decoded.finish_reason) == ([5, 5, 5], "length")
    assert model.evaluated == [[1], [5], [5]], "the last token is not evaluated: nothing reads its logits"
    cut = decode(
        model,
        [1],
        grammar=None,
        max_tokens=3,
        sampling=Sampling(),
        rng=np.random.default_rng(0),
        stop=["<5><5>"],
    )
    assert (cut.text, cut.finish_reason) == ("", "stop")
    calls = iter([False, False, True])
    stopped = decode(
        model,
        [1],
        grammar=None,
        max_tokens=50,
        sampling=Sampling(),
        rng=np.random.default_rng(0),
        should_stop=lambda: next(calls),
    )
    assert stopped.finish_reason == "stop"
    assert len(stopped.tokens) == 2


def test_the_cached_prefix_is_not_evaluated_again():
    model = FakeModel()
    model.default = peaked(END)
    system = list(range(100, 140))
    first = decode(
        model, [*system, 1, 2], grammar=None, max_tokens=5, sampling=Sampling(), rng=np.random.default_rng(0)
    )
    assert first.reused_tokens == 0
    second = decode(
        model,
        [*system, 3, 4, 5],
        grammar=None,
        max_tokens=5,
        sampling=Sampling(),
        rng=np.random.default_rng(0),
    )
    assert second.reused_tokens == len(system)
    assert model.evaluated[-1] == [3, 4, 5]
    # the same prompt again: its last token is evaluated again, for the logits
    assert reuse_prefix(model, [*system, 3, 4, 5]) == len(system) + 2
    assert model.cache == [*system, 3, 4]


def test_a_cache_that_cannot_be_cut_is_cleared():
    model = FakeModel(cuttable=False)
    model.cache = [1, 2, 3, 9]
    assert reuse_prefix(model, [1, 2, 3, 4]) == 0
    assert model.cache == []


def reference_distribution(logits: Array, allowed: set[int], sampling: Sampling) -> dict[int, float]:
    """llama-cpp-python's chain on the whole vocabulary: grammar, top-k, top-p, min-p, temperature."""
    masked = np.where(np.isin(np.arange(len(logits)), list(allowed)), logits, -np.inf)
    ids = np.lexsort((np.arange(len(logits)), -masked))[: sampling.top_k]
    ids = ids[np.isfinite(masked[ids])]
    values = masked[ids]
    probs = np.exp(values - values.max())
    probs /= probs.sum()
    keep = int(np.searchsorted(np.cumsum(probs), sampling.top_p)) + 1
    ids, values = ids[:keep], values[:keep]
    keep_min = values >= values[0] + math.log(sampling.min_p)
    ids, values = ids[keep_min], values[keep_min]
    weights = np.exp((values - values.max()) / sampling.temperature)
    return dict(zip(ids.tolist(), (weights / weights.sum()).tolist(), strict=True))


@pytest.mark.parametrize("temperature", [0.8, 1.0])
def test_sampling_draws_from_the_whole_vocabulary_chain(temperature):
    rng = np.random.default_rng(3)
    logits = rng.normal(scale=2.0, size=VOCAB)
    order = np.argsort(-logits, kind="stable")
    allowed = {int(token) for token in order[[2, 3, 10, 70, 71, 5000]]}
    sampling = Sampling(temperature=temperature)
    ids, _ = best_allowed(logits, SetGrammar([allowed]), sampling.top_k, -math.log(sampling.min_p))
    kept, probs = distribution(ids, logits, sampling)
    mine = dict(zip(kept.tolist(), probs.tolist(), strict=True))
    expected = reference_distribution(logits, allowed, sampling)
    assert mine.keys() == expected.keys()
    for token, p in expected.items():
        assert mine[token] == pytest.approx(p, abs=0.02)


def test_sampling_does_not_look_past_what_min_p_removes():
    logits = np.full(VOCAB, -20.0)
    logits[:200] = np.linspace(10.0, 0.0, 200)
    grammar = SetGrammar([{0, 1, 5000}])
    ids, widened = best_allowed(logits, grammar, 40, -math.log(0.05))
    assert ids.tolist() == [0, 1]
    assert grammar.asked == [WIDENING[0]], "token 5000 is far below the min-p cut: never looked for"
    assert not widened


def test_temperature_draws_vary_and_follow_the_grammar():
    logits = np.zeros(VOCAB)
    logits[[11, 12, 13]] = 3.0
    model = FakeModel({1: logits, 11: peaked(END), 12: peaked(END), 13: peaked(END)})
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(30):
        grammar = SetGrammar([{11, 12, 13, 14}])
        decoded = decode(
            model, [1], grammar=grammar, max_tokens=4, sampling=Sampling(temperature=1.0), rng=rng
        )
        assert decoded.tokens[0] in {11, 12, 13}
        seen.add(decoded.tokens[0])
    assert seen == {11, 12, 13}


def test_default_threads_leave_half_the_cores(monkeypatch):
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    assert default_threads() == (1, 1)
    monkeypatch.setattr("os.cpu_count", lambda: 8)
    assert default_threads() == (4, 4)
    monkeypatch.setattr("os.cpu_count", lambda: None)
    assert default_threads() == (1, 1)


def test_a_local_profile_sets_both_thread_counts():
    from treebrain.llm.profiles import build_provider, parse_llm_section

    section = parse_llm_section(
        {
            "default": "local",
            "profiles": {"local": {"provider": "local", "n_threads": 2, "n_threads_batch": 3}},
        }
    )
    provider = build_provider("local", section)
    assert "n_threads=2, n_threads_batch=3" in repr(provider)
