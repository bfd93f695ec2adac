"""How one voice command ended, in one word and one sentence, from what the tree left behind.

The CLI turns the word into an exit code and evaluations count it; keeping the decision here means
both read a command's end the same way: done, nothing to do, a question, a refusal (with its
reason), a model that could not be used, or an arm that failed while executing.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

CommandStatus = Literal[
    "done", "nothing_to_do", "interpreted", "clarify", "refused", "llm_unavailable", "failed"
]

SEVERITY: dict[CommandStatus, int] = {
    "done": 0,
    "nothing_to_do": 0,
    "interpreted": 0,
    "clarify": 1,
    "refused": 1,
    "llm_unavailable": 2,
    "failed": 3,
}
"""Which end matters most when several commands run: an arm failure, then an unusable model, then a
question or refusal."""


class CommandOutcome(BaseModel):
    status: CommandStatus
    message: str
    executed: int = 0


def command_outcome(
    result: dict[str, Any] | None,
    *,
    tree_succeeded: bool,
    dispatch: bool,
    commands: list[Any] | None,
    executed: int,
    approval_message: str | None = None,
    compile_error: str | None = None,
    arm_error: str | None = None,
    failures: list[str] | None = None,
) -> CommandOutcome:
    """The end of one command from the result dict and the dispatch keys of the voice tree."""
    if arm_error:
        return CommandOutcome(
            status="failed",
            message=f"{executed} primitive(s) done, then {arm_error}",
            executed=executed,
        )
    if result is not None and result.get("llm_failure"):
        return CommandOutcome(status="llm_unavailable", message=result["llm_failure"]["message"])
    if result is not None and result.get("clarification_question"):
        return CommandOutcome(status="clarify", message=result["clarification_question"])
    if result is not None and result.get("refusal"):
        return CommandOutcome(status="refused", message=result["refusal"])
    for reason in (approval_message, compile_error):
        if reason and not tree_succeeded:
            return CommandOutcome(status="refused", message=f"nothing was dispatched: {reason}")
    if not tree_succeeded:
        return CommandOutcome(
            status="failed", message=f"the tree failed: {'; '.join(failures or []) or 'no reason given'}"
        )
    if not dispatch:
        return CommandOutcome(status="interpreted", message="interpreted only (dispatch is off)")
    if not commands:
        return CommandOutcome(status="nothing_to_do", message="nothing to do: nothing was dispatched")
    return CommandOutcome(
        status="done", message=f"executed {executed} primitive(s) on the arm", executed=executed
    )
