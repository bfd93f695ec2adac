"""Budgets and accounting: how much a leaf and a whole tree may spend on LLM calls, and what it spent.

A limit is checked before each call attempt; a call already in flight is never cut short, so a run
can overshoot a token or cost limit by at most one call. Wall time is the time spent inside calls
(failed attempts included), so a leaf that keeps hitting timeouts also runs out.
"""

from __future__ import annotations

import threading
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from treebrain.llm.types import LLMResponse


class Budget(BaseModel):
    """Limits for one leaf or one tree; None means unlimited."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    max_calls: int | None = Field(default=None, ge=0)
    max_tokens: int | None = Field(default=None, ge=0)
    max_cost_usd: float | None = Field(default=None, ge=0)
    max_wall_s: float | None = Field(default=None, ge=0)


def stricter(first: Budget | None, second: Budget | None) -> Budget | None:
    """The budget that holds both: each limit the lower of the two that are set."""
    if first is None or second is None:
        return first or second
    merged = {
        name: min(values)
        if (values := [v for v in (getattr(first, name), getattr(second, name)) if v is not None])
        else None
        for name in Budget.model_fields
    }
    return Budget(**merged)


class Usage(BaseModel):
    """What was spent: successful calls, failed attempts, tokens, cost and time inside calls."""

    calls: int = 0
    failed_attempts: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    wall_s: float = 0.0

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def exceeded(self, budget: Budget) -> str | None:
        """Which limit this usage has reached, as a sentence, or None."""
        limits = (
            (budget.max_calls, self.calls, "calls", "{:d}"),
            (budget.max_tokens, self.tokens, "tokens", "{:d}"),
            (budget.max_cost_usd, self.cost_usd, "USD", "{:.4f}"),
            (budget.max_wall_s, self.wall_s, "s of call time", "{:.2f}"),
        )
        for limit, used, unit, style in limits:
            if limit is not None and used >= limit:
                return f"{style.format(used)} of {style.format(limit)} {unit} used"
        return None


class UsageLedger:
    """Thread-safe usage per leaf (node path) and for the whole tree, shared by all LLM calls of a run."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._per_leaf: dict[str, Usage] = {}
        self._total = Usage()

    def check(self, node_path: str, leaf_budget: Budget | None, tree_budget: Budget | None) -> str | None:
        """Why a new call from `node_path` may not start, or None when it may."""
        with self._lock:
            if leaf_budget is not None:
                reason = self._per_leaf.get(node_path, Usage()).exceeded(leaf_budget)
                if reason is not None:
                    return f"leaf budget of {node_path} exhausted: {reason}"
            if tree_budget is not None:
                reason = self._total.exceeded(tree_budget)
                if reason is not None:
                    return f"tree budget exhausted: {reason}"
        return None

    def record(self, node_path: str, response: LLMResponse) -> None:
        """Count a successful call."""
        with self._lock:
            for usage in (self._per_leaf.setdefault(node_path, Usage()), self._total):
                usage.calls += 1
                usage.input_tokens += response.input_tokens
                usage.output_tokens += response.output_tokens
                usage.cost_usd += response.cost_usd
                usage.wall_s += response.latency_s

    def record_failure(self, node_path: str, elapsed_s: float) -> None:
        """Count a failed attempt and the time it took."""
        with self._lock:
            for usage in (self._per_leaf.setdefault(node_path, Usage()), self._total):
                usage.failed_attempts += 1
                usage.wall_s += elapsed_s

    def usage(self, node_path: str) -> Usage:
        with self._lock:
            return self._per_leaf.get(node_path, Usage()).model_copy()

    def total(self) -> Usage:
        with self._lock:
            return self._total.model_copy()

    def summary(self) -> dict[str, Any]:
        """JSON-safe totals: ``{"total": {...}, "per_leaf": {path: {...}}}`` with a tokens field each."""
        with self._lock:
            leaves = {path: _usage_json(usage) for path, usage in sorted(self._per_leaf.items())}
            return {"total": _usage_json(self._total), "per_leaf": leaves}


def _usage_json(usage: Usage) -> dict[str, Any]:
    return {**usage.model_dump(), "tokens": usage.tokens}
