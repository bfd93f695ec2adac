"""One step of a composite sequence, the unit the LLM produces and every later stage consumes."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

ParamValue = str | int | float | bool | None


class Step(BaseModel):
    """``{"instruction": "add_layer", "params": {"item": "cheese"}}``: a call of a tier-1/2 composite."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    instruction: str
    params: dict[str, ParamValue] = Field(default_factory=dict)

    def short(self) -> str:
        """``add_layer(item=cheese)``, for issue messages and reports."""
        args = ", ".join(f"{key}={value}" for key, value in self.params.items())
        return f"{self.instruction}({args})"


def steps_to_json(steps: Iterable[Step]) -> list[dict[str, Any]]:
    return [step.model_dump(mode="json") for step in steps]
