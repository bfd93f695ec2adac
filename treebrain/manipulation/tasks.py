"""The task catalogue (``config/manipulation/tasks.yaml``): per simulator task, its objects, its
regions, where the arm rests and the goal as facts.

Loading checks that every region on an object names one of the task's objects and that every goal
fact reads and names known objects and regions, so a typo is a located error, not a skill that
fails at run time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from treebrain.documents import load_located
from treebrain.errors import InputError, Problem
from treebrain.manipulation.facts import FactError, parse_fact
from treebrain.manipulation.place_relations import Footprint
from treebrain.manipulation.regions import BoxRegion, OnObjectRegion
from treebrain.robots.manipulator.observation import Vec3

DEFAULT_TASKS_FILE = Path(__file__).resolve().parents[2] / "config" / "manipulation" / "tasks.yaml"
SURFACES = ("table", "bin1", "bin2")
"""Things objects rest on that are not objects (contacts with ``fixture:<name>`` or ``table``)."""


class TaskSpec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    description: str
    objects: list[str] = Field(min_length=1)
    regions: dict[str, Annotated[BoxRegion | OnObjectRegion, Field(discriminator="kind")]] = {}
    home: Vec3
    goal: list[str] = Field(min_length=1)

    def known_names(self) -> set[str]:
        return {*self.objects, *self.regions, *SURFACES, "nothing"}

    def footprints(self) -> dict[str, Footprint]:
        """The boxes' extents on the table (relations between places: "the compartment behind ...")."""
        return {
            name: Footprint(x=(region.x.min, region.x.max), y=(region.y.min, region.y.max))
            for name, region in self.regions.items()
            if isinstance(region, BoxRegion)
        }


class TaskCatalogue(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    tasks: dict[str, TaskSpec]

    def task(self, name: str) -> TaskSpec:
        found = self.tasks.get(name)
        if found is None:
            raise KeyError(f"no task {name!r} in the catalogue (known: {', '.join(sorted(self.tasks))})")
        return found


def load_tasks(path: str | Path = DEFAULT_TASKS_FILE) -> TaskCatalogue:
    """The catalogue, or an InputError listing every problem at its line."""
    catalogue, document = load_located(path, TaskCatalogue)
    problems: list[Problem] = []
    for name, task in catalogue.tasks.items():
        for region_name, region in task.regions.items():
            if isinstance(region, OnObjectRegion) and region.object not in task.objects:
                problems.append(
                    document.problem_at(
                        ("tasks", name, "regions", region_name, "object"),
                        f"{region.object!r} is not one of the task's objects ({', '.join(task.objects)})",
                    )
                )
        for index, text in enumerate(task.goal):
            try:
                fact = parse_fact(text)
            except FactError as error:
                problems.append(document.problem_at(("tasks", name, "goal", index), str(error)))
                continue
            unknown = [arg for arg in fact.args if arg not in task.known_names()]
            if unknown:
                problems.append(
                    document.problem_at(
                        ("tasks", name, "goal", index),
                        f"{', '.join(unknown)} is not an object or region of {name}",
                    )
                )
    if problems:
        raise InputError(problems)
    return catalogue
