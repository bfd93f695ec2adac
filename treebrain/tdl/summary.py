"""What a report says about the program itself: what its header declares (task, object, payload) and
which output the checks treated as the gripper."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from treebrain.tdl.gripper import GripperChoice, identify_gripper
from treebrain.tdl.header import ProgramHeader, header_number
from treebrain.tdl.model import ProgramModel
from treebrain.tdl.robots import RobotSpec

INSTRUCTION_KEYS = ("DESCRIPTION", "TASK_NAME")
"""Header keys that say what the program should do, in the order they stand in for an instruction."""


class ProgramSummary(BaseModel):
    model_config = ConfigDict(frozen=True)

    task_name: str | None = None
    description: str | None = None
    object: str | None = None
    payload_kg: float | None = None
    gripper: GripperChoice


def summarise_program(model: ProgramModel, robot: RobotSpec) -> ProgramSummary:
    header = model.parsed.header
    payload = header.get("PAYLOAD_KG")
    return ProgramSummary(
        task_name=header.text("TASK_NAME"),
        description=header.text("DESCRIPTION"),
        object=header.text("OBJECT"),
        payload_kg=header_number(payload) if payload is not None else None,
        gripper=identify_gripper(model, robot),
    )


def header_instruction(header: ProgramHeader) -> tuple[str, str] | None:
    """What the program's header says it should do, and under which key: the natural-language
    instruction a FULL check compares the program with when none is given."""
    for key in INSTRUCTION_KEYS:
        text = header.text(key)
        if text:
            return text, key
    return None
