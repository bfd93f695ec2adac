"""Build ROS 2 interface packages from the Kilted wheels into a prefix (``python -m treebrain.ros.build``).

rclpy 9 has no runtime-generated message types, so the py_trees_ros interfaces the bridge speaks must
be compiled (cmake + g++, about a minute). ``make ros`` runs this once; a stamp file holding a
digest of the sources and the interpreter makes a re-run a no-op. When ``py_trees_ros_interfaces``
is importable from outside this environment (a sourced ROS installation), that one is used.

The wheels' cmake files name the include directories of the machine they were built on; they are
pointed at this interpreter's before building (idempotent).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import os
import re
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

INTERFACES = Path(__file__).parent / "interfaces" / "py_trees_ros_interfaces"
STAMP_NAME = "treebrain-build.stamp"
_FOREIGN_INCLUDE = re.compile(
    r"/opt/python/cp\d+-cp\d+/(?:include/python3\.\d+|lib/python3\.\d+/site-packages/numpy/_?core/include)"
)


class BuildError(RuntimeError):
    """A package did not build; the message names the log to read."""


def _numpy_include() -> str:
    import numpy

    return str(numpy.get_include())


def localise_cmake_files(prefix: Path) -> int:
    """Point the wheels' hard-coded Python and numpy include paths at this interpreter's; returns
    how many files changed."""
    python_include = sysconfig.get_paths()["include"]
    numpy_include = _numpy_include()

    def local(match: re.Match[str]) -> str:
        return numpy_include if "numpy" in match.group(0) else python_include

    changed = 0
    for path in sorted((prefix / "share").glob("*/cmake/*.cmake")):
        text = path.read_text(encoding="utf-8")
        fixed = _FOREIGN_INCLUDE.sub(local, text)
        if fixed != text:
            path.write_text(fixed, encoding="utf-8")
            changed += 1
    return changed


def source_digest(source: Path) -> str:
    """What a build depends on: every file of the package and the interpreter."""
    digest = hashlib.sha256(sys.version.encode())
    for path in sorted(p for p in source.rglob("*") if p.is_file()):
        digest.update(path.relative_to(source).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def stamp_path(prefix: Path, package: str) -> Path:
    return prefix / "share" / package / STAMP_NAME


def build(source: Path, prefix: Path, quiet: bool = True) -> bool:
    """Build and install the interface package at `source` into `prefix` unless its stamp says it
    is there already; True when it built."""
    package = source.name
    stamp = stamp_path(prefix, package)
    digest = source_digest(source)
    if stamp.is_file() and stamp.read_text(encoding="utf-8").strip() == digest:
        return False
    localise_cmake_files(Path(sys.prefix))
    environment = {
        **os.environ,
        "AMENT_PREFIX_PATH": os.pathsep.join(dict.fromkeys([str(prefix), sys.prefix])),
        "CMAKE_PREFIX_PATH": os.pathsep.join(dict.fromkeys([str(prefix), sys.prefix])),
    }
    with tempfile.TemporaryDirectory(prefix=f"{package}-build-") as work:
        log = Path(work) / "build.log"
        steps = [
            [
                "cmake",
                str(source),
                f"-DCMAKE_INSTALL_PREFIX={prefix}",
                f"-DPython3_EXECUTABLE={sys.executable}",
                "-DBUILD_TESTING=OFF",
            ],
            ["cmake", "--build", ".", "--parallel", str(os.cpu_count() or 1)],
            ["cmake", "--install", "."],
        ]
        for step in steps:
            with log.open("a", encoding="utf-8") as output:
                result = subprocess.run(
                    step, cwd=work, env=environment, stdout=output, stderr=subprocess.STDOUT, check=False
                )
            if result.returncode != 0:
                kept = Path(tempfile.gettempdir()) / f"{package}-build.log"
                kept.write_text(log.read_text(encoding="utf-8"), encoding="utf-8")
                raise BuildError(f"building {package} failed at `{' '.join(step[:2])}`: see {kept}")
            if not quiet:
                print(f"{package}: {' '.join(step[:2])} done", flush=True)
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.write_text(digest + "\n", encoding="utf-8")
    return True


def provided_elsewhere(package: str) -> str | None:
    """Where an importable `package` lives when that is outside this environment (a sourced ROS)."""
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        return None
    origin = Path(spec.origin).resolve()
    return None if Path(sys.prefix).resolve() in origin.parents else str(origin.parent)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m treebrain.ros.build", description=__doc__)
    parser.add_argument("--source", type=Path, default=INTERFACES, help="an ament_cmake interface package")
    parser.add_argument("--prefix", type=Path, default=Path(sys.prefix), help="where to install it")
    args = parser.parse_args(argv)
    if importlib.util.find_spec("rclpy") is None:
        print("the ROS 2 wheels are missing: run `make ros` (pip install '.[ros]')", file=sys.stderr)
        return 2
    if args.source == INTERFACES:
        elsewhere = provided_elsewhere(INTERFACES.name)
        if elsewhere is not None:
            print(f"{INTERFACES.name}: using the installed one in {elsewhere}")
            return 0
    try:
        built = build(args.source.resolve(), args.prefix.resolve(), quiet=False)
    except BuildError as error:
        print(error, file=sys.stderr)
        return 1
    print(f"{args.source.name}: {'built into' if built else 'up to date in'} {args.prefix}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
