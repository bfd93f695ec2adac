"""The first step of every command: tidy the text, drop trivial input, cap overlong input.

Speech-to-text hands over fillers ("um", "okay"), stray punctuation and, now and then, a runaway
transcript. Trivial input gives None (no LLM call, no motion); overlong input is cut at a word
boundary and the result carries a notice the user is shown.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_SPACES = re.compile(r"\s+")
_WORD = re.compile(r"[a-z0-9']+")


class PreparedCommand(BaseModel):
    """A command ready for matching and prompting."""

    model_config = ConfigDict(frozen=True)

    text: str
    original_chars: int
    truncated: bool = False
    notice: str | None = None


def prepare_command(
    raw: str | None, *, trivial_words: Iterable[str], max_chars: int
) -> PreparedCommand | None:
    """None for empty or trivial input; otherwise the cleaned command, truncated when too long."""
    if raw is None:
        return None
    text = _SPACES.sub(" ", _CONTROL.sub(" ", raw)).strip()
    words = _WORD.findall(text.lower())
    trivial = {word.lower() for word in trivial_words}
    if not words or all(word in trivial for word in words):
        return None
    if len(text) <= max_chars:
        return PreparedCommand(text=text, original_chars=len(text))
    cut = text[:max_chars]
    if not text[max_chars].isspace() and " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    notice = f"Your command was {len(text)} characters long; only the first {len(cut)} were used."
    return PreparedCommand(text=cut.rstrip(), original_chars=len(text), truncated=True, notice=notice)
