"""The planner's prompt-revision record: every prompt, raw answer, validation failure and revision of
one planning request, and what became of it (a plan, or a refusal with its reasons).

A leaf appends one :class:`PlanAttempt` per model answer; ``treebrain eval planning`` reads
:attr:`PlanningRecord.first_try_valid` and :meth:`PlanningRecord.failure_categories`.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from pydantic import BaseModel, ConfigDict

from treebrain.manipulation.planning import PlanIssue
from treebrain.manipulation.stepwise import StepCall
from treebrain.manipulation.task_planner import SearchResult


class PlanAttempt(BaseModel):
    """One answer of the model and what validation said about it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    attempt: int
    prompt: str
    raw: str
    answer: Any = None
    issues: list[str] = []
    categories: list[str] = []
    llm_error: str = ""
    step_calls: list[StepCall] = []
    """Step-wise decoding's calls, one a step (`prompt` is then the last one's, `raw` every answer)."""

    @classmethod
    def judged(
        cls,
        attempt: int,
        prompt: str,
        raw: str,
        answer: Any,
        issues: list[PlanIssue],
        llm_error: str = "",
        step_calls: list[StepCall] | None = None,
    ) -> PlanAttempt:
        return cls(
            attempt=attempt,
            prompt=prompt,
            raw=raw,
            answer=answer,
            issues=[str(issue) for issue in issues],
            categories=sorted({issue.category for issue in issues}),
            llm_error=llm_error,
            step_calls=list(step_calls or []),
        )

    @property
    def valid(self) -> bool:
        return not self.issues and not self.llm_error


class PlanningRecord(BaseModel):
    """A planning request from task to plan or refusal."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: str
    attempts: list[PlanAttempt] = []
    plan: list[dict[str, Any]] = []
    refusal: str = ""
    search: SearchResult | None = None
    """The classical planner's answer (``manipulation.plan_goal``): engine, time, expansions."""

    @property
    def first_try_valid(self) -> bool:
        return bool(self.attempts) and self.attempts[0].valid and not self.refusal

    def failure_categories(self) -> Counter[str]:
        found: Counter[str] = Counter()
        for attempt in self.attempts:
            found.update(attempt.categories or (["llm_error"] if attempt.llm_error else []))
        return found

    def with_attempt(self, attempt: PlanAttempt) -> PlanningRecord:
        return self.model_copy(update={"attempts": [*self.attempts, attempt]})
