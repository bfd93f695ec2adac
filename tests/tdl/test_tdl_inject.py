from __future__ import annotations

import random
from pathlib import Path

import pytest

from treebrain.clock import FakeClock
from treebrain.tdl.inject import SUBTYPES, inject_text_error
from treebrain.tdl.pipeline import TdlConfig, validate_program
from treebrain.tdl.report import ValidationLevel
from treebrain.tdl.robots import RobotSpec
from treebrain.tdl.semantic_errors import inject_semantic_error, mutate_task
from treebrain.tdl.tasks import sample_task

GOOD = (Path(__file__).parent / "programs" / "transfer_ok.tdl").read_text(encoding="utf-8")
EXPECTED_LEVEL = {"syntax": "syntax", "safety": "safety", "consistency": "consistency"}


@pytest.mark.parametrize(
    ("category", "subtype"),
    [
        (category, subtype)
        for category in ("syntax", "safety", "consistency")
        for subtype in SUBTYPES[category]
    ],
)
def test_every_text_injection_is_caught_at_its_line(
    category: str, subtype: str, ur10e: RobotSpec, config: TdlConfig
) -> None:
    for seed in range(15):
        injection = inject_text_error(random.Random(seed), GOOD, category, subtype, ur10e, config.commands)  # type: ignore[arg-type]
        assert injection is not None
        assert injection.program != GOOD
        assert (injection.category, injection.subtype) == (category, subtype)
        report = validate_program(
            injection.program, ur10e, ValidationLevel.STANDARD, config=config, clock=FakeClock()
        )
        assert report.verdict == "FAIL"
        assert report.level_failed is not None and report.level_failed.value == EXPECTED_LEVEL[category]
        critical_lines = {f.line for f in report.findings() if f.severity.value == "CRITICAL"}
        assert injection.line is not None
        assert min(abs(line - injection.line) for line in critical_lines) <= 1, (injection, report.findings())


def test_injection_descriptions(ur10e: RobotSpec, config: TdlConfig) -> None:
    semicolon = inject_text_error(
        random.Random(1), GOOD, "syntax", "missing_semicolon", ur10e, config.commands
    )
    assert semicolon is not None
    assert semicolon.description == f"Missing semicolon at line {semicolon.line}"
    assert semicolon.program.count(";") == GOOD.count(";") - 1
    velocity = inject_text_error(
        random.Random(2), GOOD, "safety", "excessive_velocity", ur10e, config.commands
    )
    assert velocity is not None and velocity.description.startswith("Velocity of Move")
    duplicate = inject_text_error(
        random.Random(3), GOOD, "consistency", "duplicate_definition", ur10e, config.commands
    )
    assert duplicate is not None and duplicate.program.count("DEFINE") == GOOD.count("DEFINE") + 1


def test_injectors_without_a_place_for_their_error_return_none(ur10e: RobotSpec, config: TdlConfig) -> None:
    inline = "GOAL Execute_Process() { SPAWN MoveLinear(PosX(1, 2, 300, 0, 0, 0), 100, 50, 0, 0) WITH WAIT; }"
    assert (
        inject_text_error(
            random.Random(0), inline, "consistency", "undefined_reference", ur10e, config.commands
        )
        is None
    )
    assert (
        inject_text_error(
            random.Random(0), inline, "consistency", "duplicate_definition", ur10e, config.commands
        )
        is None
    )
    with pytest.raises(ValueError, match="unknown syntax error subtype"):
        inject_text_error(random.Random(0), inline, "syntax", "negative_z", ur10e, config.commands)


def test_semantic_mutations_change_the_task_not_the_instruction(ur10e: RobotSpec) -> None:
    task = sample_task(random.Random(4), ur10e, "complex", kind="multi_transfer", manner="slow")
    swapped = mutate_task(random.Random(0), task, "swap_locations")
    assert swapped is not None
    changed, description = swapped
    assert description.startswith("Source and destination swapped")
    assert [(t.source, t.destination) for t in changed.transfers] != [
        (t.source, t.destination) for t in task.transfers
    ]
    reversed_task, _ = mutate_task(random.Random(0), task, "reverse_sequence") or (task, "")
    assert reversed_task.transfers == tuple(reversed(task.transfers))
    objects = mutate_task(random.Random(0), task, "swap_objects")
    assert objects is not None and objects[0].objects() != task.objects()
    slow = mutate_task(random.Random(0), task, "change_velocity")
    assert slow is not None and slow[0].speeds.travel >= 380
    home = sample_task(random.Random(4), ur10e, "simple", kind="home")
    assert all(mutate_task(random.Random(0), home, subtype) is None for subtype in SUBTYPES["semantic"])


def test_semantic_injections_pass_the_rules(ur10e: RobotSpec, config: TdlConfig) -> None:
    for seed in range(20):
        task = sample_task(random.Random(seed), ur10e, "moderate", kind="transfer", manner="gentle")
        for subtype in ("swap_objects", "swap_locations", "change_velocity"):
            injection = inject_semantic_error(random.Random(seed), task, subtype)
            assert injection is not None and injection.line is None
            report = validate_program(injection.program, ur10e, ValidationLevel.STANDARD, config=config)
            assert report.verdict == "PASS", report.findings()
