"""Semantic error injection: change the *task* (object, locations, order, speed) and re-render a
program that is valid on its own but no longer does what the unchanged instruction asks."""

from __future__ import annotations

import random

from treebrain.tdl.inject import Injection
from treebrain.tdl.programs import render_program
from treebrain.tdl.tasks import COLORS, FRAGILE, NOUNS, Item, Manner, TaskSpec, sample_speeds


def _other_item(rng: random.Random, item: Item) -> Item:
    if item.color is not None and rng.random() < 0.7:
        return item.model_copy(update={"color": rng.choice([c for c in COLORS if c != item.color])})
    same_kind = [n for n in NOUNS if (n in FRAGILE) == (item.noun in FRAGILE) and n != item.noun]
    return item.model_copy(update={"noun": rng.choice(same_kind)})


def mutate_task(rng: random.Random, task: TaskSpec, subtype: str) -> tuple[TaskSpec, str] | None:
    """The task changed by a semantic error of `subtype` and its description, or None if not applicable."""
    transfers = list(task.transfers)
    if subtype == "swap_objects" and transfers:
        index = rng.randrange(len(transfers))
        old = transfers[index].item
        new = _other_item(rng, old)
        transfers[index] = transfers[index].model_copy(update={"item": new})
        return task.model_copy(update={"transfers": tuple(transfers)}), (
            f"Object mismatch: instruction names the {old.english()}, program handles the {new.english()}"
        )
    if subtype == "swap_locations" and transfers:
        index = rng.randrange(len(transfers))
        first = transfers[index]
        if task.kind in {"pick", "place"}:
            field = "source" if task.kind == "pick" else "destination"
            current = getattr(first, field)
            other = next(p.label for p in task.places if p.label != current)
            transfers[index] = first.model_copy(update={field: other})
            description = f"Location mismatch: program uses {other} instead of {current}"
        else:
            transfers[index] = first.model_copy(
                update={"source": first.destination, "destination": first.source}
            )
            description = f"Source and destination swapped: moves from {first.destination} to {first.source}"
        return task.model_copy(update={"transfers": tuple(transfers)}), description
    if subtype == "reverse_sequence":
        if task.kind == "waypoints" and len(task.waypoints) > 1:
            reversed_points = tuple(reversed(task.waypoints))
            return task.model_copy(update={"waypoints": reversed_points}), (
                f"Sequence error: visits {', '.join(reversed_points)} instead of {', '.join(task.waypoints)}"
            )
        if len(transfers) > 1:
            return task.model_copy(update={"transfers": tuple(reversed(transfers))}), (
                "Sequence error: objects are moved in the reverse order of the instruction"
            )
        return None
    if subtype == "change_velocity" and task.manner != "normal" and task.kind not in ("home", "gripper"):
        opposite: Manner = "normal" if task.manner == "fast" else "fast"
        speeds = sample_speeds(rng, opposite)
        if opposite == "normal":
            speeds = speeds.model_copy(update={"travel": 50.0, "precision": 50.0})
        else:
            speeds = speeds.model_copy(
                update={"travel": float(rng.choice([380, 420, 460, 500])), "precision": 250.0}
            )
        return task.model_copy(update={"speeds": speeds}), (
            f"Speed contradicts '{task.manner}': travel {speeds.travel:g} mm/s, precision moves {speeds.precision:g} mm/s"
        )
    return None


def inject_semantic_error(rng: random.Random, task: TaskSpec, subtype: str) -> Injection | None:
    """Re-render `task` with a semantic error; the instruction stays the original task's."""
    mutated = mutate_task(rng, task, subtype)
    if mutated is None:
        return None
    changed, description = mutated
    return Injection(
        category="semantic",
        subtype=subtype,
        program=render_program(changed),
        line=None,
        description=description,
    )
