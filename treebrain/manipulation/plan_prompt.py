"""The planner's prompt: the task, the scene without coordinates, the registered skills and the
answer format; from the second attempt on, the rejected answer and every reason it was rejected.

:func:`step_prompt` is the prompt of one step of step-wise decoding: the same static part first (the
task, the scene, the skills, the rules and a previous attempt's rejection), then the steps chosen so
far, so consecutive steps share the whole prompt but its tail (llama.cpp keeps that prefix's KV cache).
"""

from __future__ import annotations

import json
from typing import Any

from treebrain.manipulation.plan_record import PlanningRecord
from treebrain.manipulation.planning import skill_catalogue
from treebrain.manipulation.stepwise import step_text
from treebrain.manipulation.symbolic import Scene

PLANNER_PROMPT = """You are a robot task planner for one arm with a parallel gripper.

{state}

Available skills (preconditions must hold before each step):
{skills}

Write the skill program that accomplishes the task.
Rules:
- Use only the skills listed, with exactly their arguments.
- Name only the objects and regions of the world state.
- Pick and place is: approach(object), grasp(object), lift, move_to_region(region), place(region), release.
- At most {max_steps} steps.
- If the task names something that is not in the scene, is impossible, contradicts itself or is empty,
  give no steps and say why in "refusal".
Answer only JSON: {{"steps": [{{"skill": "name", "args": {{"arg": "value"}}}}, ...], "refusal": ""}}"""

CORRECTION = """

CORRECTION (attempt {attempt}): your previous answer was rejected.
Previous answer: {raw}
Reasons:
{reasons}
Answer again, fixing every reason."""


def state_block(task: str, scene: Scene) -> str:
    """The part of the prompt that names the task and the scene (what recorded answers match)."""
    return f"Task: {task.strip()}\n\nCurrent world state:\n{json.dumps(scene.to_prompt(), indent=2)}"


STEP_PROMPT = """You are a robot task planner for one arm with a parallel gripper.

{state}

Available skills (preconditions must hold before each step):
{skills}

Write the skill program that accomplishes the task, one step per answer.
Rules:
- Use only the skills listed, with exactly their arguments.
- Pick and place is: approach(object), grasp(object), lift, move_to_region(region), place(region), release.
- At most {max_steps} steps.
- Each answer is one step in JSON: the skill's name as the key, its arguments as the value.
- When the steps so far accomplish the task, answer with the skill done.
- Only if the task names something that is not in the scene, is impossible, contradicts itself or is
  empty: answer refuse, with the reason, instead of the first step."""

STEPS_SO_FAR = """

Steps so far:
{steps}
Next step (step {index}):"""


def correction(record: PlanningRecord | None) -> str:
    """The CORRECTION section of the next attempt of `record` (empty for the first)."""
    if record is None or not record.attempts:
        return ""
    last = record.attempts[-1]
    reasons = last.issues or [f"the answer could not be used: {last.llm_error}"]
    return CORRECTION.format(
        attempt=len(record.attempts) + 1,
        raw=last.raw.strip()[:600] or "(nothing)",
        reasons="\n".join(f"- {reason}" for reason in reasons),
    )


def planner_prompt(task: str, scene: Scene, max_steps: int, record: PlanningRecord | None = None) -> str:
    """The prompt of the next attempt of `record` (the first when it has none)."""
    text = PLANNER_PROMPT.format(
        state=state_block(task, scene),
        skills=json.dumps(skill_catalogue(scene), indent=2),
        max_steps=max_steps,
    )
    return text + correction(record)


def step_prompt(
    task: str, scene: Scene, max_steps: int, steps: list[Any], record: PlanningRecord | None = None
) -> str:
    """The prompt of the next step after `steps` in the next attempt of `record`."""
    text = STEP_PROMPT.format(
        state=state_block(task, scene),
        skills=json.dumps(skill_catalogue(scene), indent=2),
        max_steps=max_steps,
    )
    chosen = "\n".join(f"{index}. {step_text(step)}" for index, step in enumerate(steps, 1)) or "(none yet)"
    return text + correction(record) + STEPS_SO_FAR.format(steps=chosen, index=len(steps) + 1)
