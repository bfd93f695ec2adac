"""Helpers for the voice tree's tests (the `voice` fixture): robot files around the real voice tree
with scripted answers, ticking to the end, events, blackboard values and answer builders."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from py_trees.common import Status

from treebrain.testing import TreeHarness

REPO = Path(__file__).resolve().parents[2]
PARSER = "voice/interpret/answer/understand/answer_or_ask/parser"
Steps = list[tuple[str, dict[str, Any]]]


class VoiceTree:
    """Builds and drives voice trees for one test; memory goes to the test's own folder."""

    repo = REPO
    tree = REPO / "config" / "trees" / "voice" / "voice_command.yaml"
    gofa = REPO / "config" / "robots" / "gofa.yaml"
    config = REPO / "config" / "voice" / "voice.yaml"
    valid = json.dumps({"valid": True, "issues": [], "sequence": None})
    limits = {
        "reach_mm": 950,
        "max_speed_mm_s": 1000,
        "max_wait_s": 30,
        "approval_timeout_s": 5,
        "stack": {"max_layers": 12, "layer_thickness_mm": 15},
    }

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.memory = folder / "memory"

    def robot(
        self, *answers: Any, driver: dict[str, Any] | None = None, parser: bool = False, **sections: Any
    ) -> Path:
        """A robot file running the real voice tree on a sim arm (instant motion unless the driver
        params say otherwise) with a scripted LLM playing `answers`; the slot-filling parser is off
        unless `parser` (the answers are for the LLM path)."""
        data: dict[str, Any] = {
            "robot": "test_gofa",
            "tree": str(self.tree),
            "driver": {"type": "sim_arm", "params": {"simulate_motion": False, **(driver or {})}},
            "limits": self.limits,
            "llm": {
                "default": "script",
                "profiles": {"script": {"provider": "scripted", "responses": list(answers)}},
            },
            "overrides": {"voice/kit": {"memory_dir": str(self.memory)}, PARSER: {"enabled": parser}},
            **sections,
        }
        path = self.folder / "robot.yaml"
        path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        return path

    def gofa_copy(self, parser: bool = False, **scripted: Any) -> Path:
        """config/robots/gofa.yaml with instant motion, memory in the test folder, its files found
        from here, the parser off unless `parser` and, if given, its scripted profile changed."""
        robot = yaml.safe_load(self.gofa.read_text(encoding="utf-8"))
        robot["tree"] = str(self.tree)
        robot["driver"]["params"]["simulate_motion"] = False
        profile = robot["llm"]["profiles"]["scripted"]
        profile["responses_file"] = str((self.gofa.parent / profile["responses_file"]).resolve())
        profile.update(scripted)
        robot["overrides"]["voice/kit"]["memory_dir"] = str(self.memory)
        robot["overrides"][PARSER] = {"enabled": parser}
        path = self.folder / "gofa.yaml"
        path.write_text(yaml.safe_dump(robot, sort_keys=False), encoding="utf-8")
        return path

    def start(
        self, command: str, *answers: Any, values: dict[str, Any] | None = None, **robot: Any
    ) -> TreeHarness:
        """A harness on a fresh robot file, with `command` waiting on the blackboard."""
        return TreeHarness.from_file(
            self.robot(*answers, **robot), values={"/voice/command": command, **(values or {})}
        )

    @staticmethod
    def generation(*steps: tuple[str, dict[str, Any]], confidence: float = 0.95, **fields: Any) -> str:
        """A pass-1 or pass-3 answer as a model writes it."""
        answer = {
            "interpretation": fields.pop("interpretation", "as asked"),
            "sequence": [{"instruction": name, "params": params} for name, params in steps],
            "composite_name": None,
            "confidence": confidence,
            "user_feedback": None,
            "creative_reasoning": None,
            **fields,
        }
        return json.dumps(answer)

    @staticmethod
    def sandwich(zone: str, *items: str) -> Steps:
        return [
            ("set_active_zone", {"zone": zone}),
            *(("add_layer", {"item": item}) for item in items),
            ("go_home", {}),
        ]

    @staticmethod
    def run(harness: TreeHarness, limit: int = 3000) -> Status:
        """Tick until the root finishes."""
        return harness.run_to_end(limit)

    @staticmethod
    def next_command(harness: TreeHarness, command: str, **values: Any) -> Status:
        """Give a finished tree its next command and run it to the end."""
        for key, item in {"/voice/command": command, **values}.items():
            harness.blackboard.set(key, item, "test")
        return VoiceTree.run(harness)

    @staticmethod
    def value(harness: TreeHarness, key: str) -> Any:
        """A key's value, or None when it has none."""
        return harness.value(key) if harness.blackboard.has(key) else None


@pytest.fixture
def voice(tmp_path: Path) -> VoiceTree:
    return VoiceTree(tmp_path)
