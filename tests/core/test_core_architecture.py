"""The import rules of docs/architecture.md, checked on every module of the package.

The rooms table of the document is the rule: each room lists its modules and the rooms it may
import. On top of it, sibling rules: a domain's leaves never import another domain's leaves, the
framework's leaves import no domain's, and a kind of robot never imports another kind.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
PACKAGE = ROOT / "treebrain"
MAP = ROOT / "docs" / "architecture.md"
EVERYTHING = "everything"


@dataclass(frozen=True)
class Rooms:
    """Which room each top-level module belongs to, and which rooms each room may import."""

    room_of: dict[str, str]
    allowed: dict[str, set[str]]


def read_rooms(text: str) -> Rooms:
    """The rooms table: `| room | modules | holds | may import |` rows after the `## Rooms` heading."""
    section = text.split("## Rooms", 1)[1].split("\n## ", 1)[0]
    room_of: dict[str, str] = {}
    allowed: dict[str, set[str]] = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 4 or cells[0] in ("room", "") or set(cells[0]) <= {"-"}:
            continue
        room, modules, _, may_import = cells
        for module in re.findall(r"`([^`]+)`", modules):
            room_of[module.rstrip("/")] = room
        allowed[room] = {name.strip() for name in may_import.split(",")} | {room}
    return Rooms(room_of, allowed)


def imported_modules(source: str) -> set[str]:
    """Every ``treebrain.*`` module a source imports, anywhere in it (absolute imports only)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name == "treebrain" or name.startswith("treebrain.")}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def top_level(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def sub_package(module: str, package: str, packages: set[str]) -> str | None:
    """The sub-package of `package` that `module` lies in (``voice`` of ``treebrain.behaviours.voice.kit``)."""
    prefix = f"treebrain.{package}."
    if not module.startswith(prefix):
        return None
    first = module[len(prefix) :].split(".", 1)[0]
    return first if first in packages else None


def sub_packages(package: str) -> set[str]:
    return {path.parent.name for path in (PACKAGE / package).glob("*/__init__.py")}


FRAMEWORK_SUBPACKAGES = {"behaviours": {"llm"}, "robots": set()}
"""Sub-packages that belong to the framework part of their package, not to one domain or kind."""


def violations(module: str, imports: set[str], rooms: Rooms) -> list[str]:
    """Why `module` may not import some of `imports`, one line each (empty when it keeps the rules)."""
    found: list[str] = []
    room = rooms.room_of.get(top_level(module))
    if room is None:
        return [f"{module}: in no room of docs/architecture.md"]
    for target in sorted(imports):
        target_room = rooms.room_of.get(top_level(target))
        if target_room is None:
            found.append(f"{module} imports {target}, which is in no room")
        elif target_room != room and not rooms.allowed[room] & {target_room, EVERYTHING}:
            found.append(f"{module} ({room}) imports {target} ({target_room})")
    for package, framework in FRAMEWORK_SUBPACKAGES.items():
        siblings = sub_packages(package) - framework
        own = sub_package(module, package, siblings)
        if not module.startswith(f"treebrain.{package}"):
            continue
        for target in sorted(imports):
            other = sub_package(target, package, siblings)
            if other is not None and other != own:
                whose = f"treebrain.{package}.{own}" if own else f"the framework part of treebrain.{package}"
                found.append(f"{module} ({whose}) imports {target} (treebrain.{package}.{other})")
    return found


RULES = read_rooms(MAP.read_text(encoding="utf-8"))
MODULES = sorted(PACKAGE.rglob("*.py"))


def test_every_top_level_module_has_a_room() -> None:
    tops = {path.stem if path.parent == PACKAGE else path.relative_to(PACKAGE).parts[0] for path in MODULES}
    assert sorted(tops - set(RULES.room_of)) == []
    assert sorted(set(RULES.room_of) - tops) == []


@pytest.mark.parametrize("path", MODULES, ids=lambda path: str(path.relative_to(PACKAGE)))
def test_imports_keep_the_house_rules(path: Path) -> None:
    module = module_name(path)
    assert violations(module, imported_modules(path.read_text(encoding="utf-8")), RULES) == []


@pytest.mark.parametrize(
    ("module", "source", "expected"),
    [
        (
            "treebrain.voice.compiler",
            "from treebrain.behaviours.base import Leaf",
            "treebrain.voice.compiler (voice) imports treebrain.behaviours.base (behaviours)",
        ),
        (
            "treebrain.kg.graph",
            "def later():\n    import treebrain.trees.loader",
            "treebrain.kg.graph (kg) imports treebrain.trees.loader (trees)",
        ),
        (
            "treebrain.tdl.parser",
            "from treebrain import cli",
            "treebrain.tdl.parser (tdl) imports treebrain.cli (cli)",
        ),
        (
            "treebrain.behaviours.voice.kit",
            "from treebrain.behaviours.arm.leaves import Scene",
            "treebrain.behaviours.voice.kit (treebrain.behaviours.voice) imports "
            "treebrain.behaviours.arm.leaves (treebrain.behaviours.arm)",
        ),
        (
            "treebrain.behaviours.builtin",
            "from treebrain.behaviours import kg",
            "treebrain.behaviours.builtin (the framework part of treebrain.behaviours) imports "
            "treebrain.behaviours.kg (treebrain.behaviours.kg)",
        ),
        (
            "treebrain.robots.registry",
            "from treebrain.robots.arm.limits import ArmLimits",
            "treebrain.robots.registry (the framework part of treebrain.robots) imports "
            "treebrain.robots.arm.limits (treebrain.robots.arm)",
        ),
    ],
)
def test_a_forbidden_import_is_caught(module: str, source: str, expected: str) -> None:
    assert expected in violations(module, imported_modules(source), RULES)


def test_a_domain_may_use_its_own_leaves_and_the_framework() -> None:
    source = (
        "from treebrain.behaviours.voice.kit import VoiceLeaf\nfrom treebrain.behaviours.llm import service"
    )
    assert violations("treebrain.behaviours.voice.leaves", imported_modules(source), RULES) == []
