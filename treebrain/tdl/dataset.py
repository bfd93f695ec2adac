"""The labelled V&V dataset: 600 examples with the validation spec's category sizes and complexity mix,
deterministic from a seed, stored as JSONL.

Each example gets its own random generator seeded with ``"<seed>:<id>"``, so an example does not
change when another category's size does. Negative examples start from a correct program of the
same complexity and get exactly one injected error (see :mod:`treebrain.tdl.inject`).
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from treebrain.errors import InputError, Location, Problem
from treebrain.files import atomic_write_text
from treebrain.tdl.commands import CommandSet
from treebrain.tdl.inject import SUBTYPES, Category, Injection, inject_text_error
from treebrain.tdl.programs import render_program
from treebrain.tdl.robots import RobotSpec
from treebrain.tdl.semantic_errors import inject_semantic_error
from treebrain.tdl.tasks import Complexity, Manner, TaskKind, TaskSpec, instruction, sample_task

ExampleCategory = Literal["positive", "syntax", "semantic", "safety", "consistency"]
CATEGORY_SIZES: dict[ExampleCategory, int] = {
    "positive": 200,
    "syntax": 100,
    "semantic": 150,
    "safety": 100,
    "consistency": 50,
}
COMPLEXITY_MIX: dict[Complexity, float] = {
    "simple": 0.40,
    "moderate": 0.40,
    "complex": 0.15,
    "edge_case": 0.05,
}
ID_PREFIX: dict[ExampleCategory, str] = {
    "positive": "POS",
    "syntax": "NEG-SYN",
    "semantic": "NEG-SEM",
    "safety": "NEG-SAF",
    "consistency": "NEG-CON",
}
_SEMANTIC_KINDS: dict[str, dict[Complexity, tuple[TaskKind, ...]]] = {
    "swap_objects": {
        "simple": ("pick", "place"),
        "moderate": ("transfer",),
        "complex": ("multi_transfer", "conditional", "loop"),
        "edge_case": ("transfer",),
    },
    "swap_locations": {
        "simple": ("pick", "place"),
        "moderate": ("transfer",),
        "complex": ("multi_transfer", "conditional", "loop"),
        "edge_case": ("transfer",),
    },
    "reverse_sequence": {"moderate": ("waypoints",), "complex": ("multi_transfer",)},
    "change_velocity": {
        "simple": ("move", "pick", "place"),
        "moderate": ("transfer", "waypoints"),
        "complex": ("multi_transfer", "conditional", "loop"),
        "edge_case": ("transfer", "move"),
    },
}
_ATTEMPTS = 50
_NON_NORMAL: tuple[Manner, ...] = ("slow", "gentle", "fast")


class ExampleMetadata(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    complexity: Complexity
    task_type: str
    objects: tuple[str, ...] = ()
    locations: tuple[str, ...] = ()
    language: Literal["en", "ko"] = "en"
    edge_feature: str | None = None


class DatasetExample(BaseModel):
    """One labelled example: instruction, program, expected verdict and what error it carries."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    category: ExampleCategory
    natural_language: str
    tdl_code: str
    expected_verdict: Literal["PASS", "FAIL"]
    robot: str
    error_type: Category | None = None
    error_subtype: str | None = None
    error_line: int | None = None
    error_description: str = ""
    metadata: ExampleMetadata


def complexity_plan(size: int, mix: Mapping[Complexity, float] = COMPLEXITY_MIX) -> list[Complexity]:
    """`size` complexities in the mix's proportions (largest remainder), interleaved deterministically."""
    exact = {name: size * share for name, share in mix.items()}
    counts = {name: int(value) for name, value in exact.items()}
    for name in sorted(exact, key=lambda n: (counts[n] - exact[n], list(mix).index(n)))[
        : size - sum(counts.values())
    ]:
        counts[name] += 1
    plan: list[Complexity] = []
    for name, count in counts.items():
        plan.extend([name] * count)
    return plan


def _metadata(task: TaskSpec) -> ExampleMetadata:
    return ExampleMetadata(
        complexity=task.complexity,
        task_type=task.task_type,
        objects=tuple(task.objects()),
        locations=tuple(task.locations()),
        language=task.language,
        edge_feature=task.edge,
    )


class _Builder:
    def __init__(self, seed: int, robots: Mapping[str, RobotSpec], commands: CommandSet) -> None:
        if not robots:
            raise ValueError("need at least one robot spec to build a dataset")
        self.seed = seed
        self.robots = dict(sorted(robots.items()))
        self.commands = commands

    def example(self, category: ExampleCategory, number: int, complexity: Complexity) -> DatasetExample:
        example_id = f"{ID_PREFIX[category]}-{number:03d}"
        rng = random.Random(f"{self.seed}:{example_id}")
        robot = self.robots[rng.choice(list(self.robots))]
        if category == "positive":
            task = sample_task(rng, robot, complexity)
            return self._record(example_id, category, task, robot, render_program(task), None)
        subtypes = SUBTYPES[category]
        preferred = subtypes[(number - 1) % len(subtypes)]
        for attempt in range(_ATTEMPTS):
            subtype = preferred if attempt < _ATTEMPTS // 2 else rng.choice(subtypes)
            task, injection = self._inject(rng, category, subtype, complexity, robot)
            if injection is not None:
                return self._record(example_id, category, task, robot, injection.program, injection)
        raise RuntimeError(f"could not build {example_id}: no program accepts a {category} error")

    def _inject(
        self, rng: random.Random, category: Category, subtype: str, complexity: Complexity, robot: RobotSpec
    ) -> tuple[TaskSpec, Injection | None]:
        if category == "semantic":
            kinds = _SEMANTIC_KINDS[subtype].get(complexity)
            if not kinds:
                return sample_task(rng, robot, complexity), None
            manner: Manner | None = rng.choice(_NON_NORMAL) if subtype == "change_velocity" else None
            task = sample_task(rng, robot, complexity, kind=rng.choice(kinds), manner=manner)
            if task.style.poses == "inline" and task.style.comments == "none":
                task = task.model_copy(update={"style": task.style.model_copy(update={"comments": "en"})})
            return task, inject_semantic_error(rng, task, subtype)
        task = sample_task(rng, robot, complexity)
        if category == "consistency":
            poses = "define" if subtype == "duplicate_definition" else rng.choice(["define", "assign"])
            task = task.model_copy(update={"style": task.style.model_copy(update={"poses": poses})})
        injection = inject_text_error(rng, render_program(task), category, subtype, robot, self.commands)
        return task, injection

    @staticmethod
    def _record(
        example_id: str,
        category: ExampleCategory,
        task: TaskSpec,
        robot: RobotSpec,
        program: str,
        injection: Injection | None,
    ) -> DatasetExample:
        return DatasetExample(
            id=example_id,
            category=category,
            natural_language=instruction(task),
            tdl_code=program,
            expected_verdict="PASS" if injection is None else "FAIL",
            robot=robot.robot,
            error_type=injection.category if injection else None,
            error_subtype=injection.subtype if injection else None,
            error_line=injection.line if injection else None,
            error_description=injection.description if injection else "",
            metadata=_metadata(task),
        )


def build_dataset(
    seed: int,
    robots: Mapping[str, RobotSpec],
    commands: CommandSet,
    sizes: Mapping[ExampleCategory, int] = CATEGORY_SIZES,
) -> list[DatasetExample]:
    """The labelled dataset (600 examples by default), the same for the same seed and inputs."""
    builder = _Builder(seed, robots, commands)
    examples: list[DatasetExample] = []
    for category, size in sizes.items():
        for number, complexity in enumerate(complexity_plan(size), start=1):
            examples.append(builder.example(category, number, complexity))
    return examples


def evenly_spaced(examples: Sequence[DatasetExample], count: int | None) -> list[DatasetExample]:
    """`count` examples spread evenly over `examples` (all when None), so a small evaluation still
    sees every category: the dataset is stored category by category."""
    if count is None or count >= len(examples):
        return list(examples)
    if count <= 0:
        return []
    step = len(examples) / count
    return [examples[int(index * step)] for index in range(count)]


def write_dataset(path: str | Path, examples: Sequence[DatasetExample]) -> None:
    """Write the examples as JSONL (one example per line), replacing `path` atomically."""
    lines = [example.model_dump_json() for example in examples]
    atomic_write_text(path, "\n".join(lines) + ("\n" if lines else ""))


def read_dataset(path: str | Path) -> list[DatasetExample]:
    """Read a JSONL dataset; every bad line is reported with its line number, all at once."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InputError.single(f"cannot read dataset: {error}", file) from None
    examples: list[DatasetExample] = []
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            example = DatasetExample.model_validate(json.loads(line))
        except json.JSONDecodeError as error:
            problems.append(Problem(Location(str(file), number, error.colno), f"invalid JSON: {error.msg}"))
            continue
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            message = f"{where}: {first['msg']}" + (
                f" (+{error.error_count() - 1} more)" if error.error_count() > 1 else ""
            )
            problems.append(Problem(Location(str(file), number, 1), message))
            continue
        if example.id in seen:
            problems.append(
                Problem(
                    Location(str(file), number, 1),
                    f"duplicate id {example.id} (first on line {seen[example.id]})",
                )
            )
            continue
        seen[example.id] = number
        examples.append(example)
    if problems:
        raise InputError(problems)
    return examples
