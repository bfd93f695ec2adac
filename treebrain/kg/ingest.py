"""Planning an ingest run: which narrations, in which order, and which are already in the graph.

Ingesting is idempotent by narration id: the graph remembers the ids it has applied, so running the
same file again (after a crash, a Ctrl-C or a kill -9) resumes where the last save left off instead
of applying narrations twice. The plan also carries what the user should know before it starts:
the file was out of time order and was sorted, it holds several videos, the graph already held
other work.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pydantic import Field

from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import Frozen, Narration
from treebrain.kg.narrations import in_time_order, of_video, videos_of


class IngestPlan(Frozen):
    """The narrations to apply, in order, and what the user is told about them."""

    todo: tuple[Narration, ...]
    already: int = Field(ge=0, description="narrations of the file the graph already holds")
    notes: tuple[str, ...] = ()


def plan_ingest(
    narrations: Sequence[Narration], kg: KitchenGraph, source: str | Path, video: str | None = None
) -> IngestPlan:
    """Order the file's narrations by time (one video's, with `video`) and leave out those applied."""
    chosen = of_video(narrations, video, source) if video is not None else list(narrations)
    ordered, order_note = in_time_order(chosen)
    notes = [str(order_note)] if order_note else []
    videos = [name for name in videos_of(ordered) if name]
    if video is None and len(videos) > 1:
        notes.append(
            f"{len(videos)} videos ({', '.join(videos)}) go into one graph, one after the other; "
            "pass --video ID for one"
        )
    todo = tuple(narration for narration in ordered if not kg.has_narration(narration.id))
    already = len(ordered) - len(todo)
    if already:
        notes.append(f"resuming: {already} of {len(ordered)} narration(s) are already in the graph, skipped")
    return IngestPlan(todo=todo, already=already, notes=tuple(notes))


#: Saving may take at most this share of an ingest's time: a large graph is saved less often.
SAVE_SHARE = 0.1


class SavePolicy(Frozen):
    """When ingest saves: every `every` narrations (0: never by count), or `seconds` after the last
    save (0: after every narration) but not so often that saving takes more than a tenth of the
    time, and always at the end."""

    every: int = Field(default=0, ge=0)
    seconds: float = Field(default=2.0, ge=0)

    def due(self, since_save: int, elapsed_s: float, save_cost_s: float = 0.0) -> bool:
        """Whether to save now, `since_save` narrations and `elapsed_s` seconds after the last save,
        which took `save_cost_s`."""
        if since_save == 0:
            return False
        if self.every > 0 and since_save >= self.every:
            return True
        if self.seconds == 0:
            return True
        return elapsed_s >= max(self.seconds, save_cost_s * (1 - SAVE_SHARE) / SAVE_SHARE)
