"""The py_trees_ros interfaces make ros builds from treebrain's own definitions are, on the wire, the
types py_trees_ros_interfaces itself defines: their RIHS01 type hashes are equal."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from treebrain.ros.build import INTERFACES, build

pytestmark = [pytest.mark.ros, pytest.mark.slow]

CLIENT_INTERFACES = Path(__file__).resolve().parents[3] / "shared" / "clients" / "py_trees_ros_interfaces"


def type_hashes(prefix: Path) -> dict[str, str]:
    share = prefix / "share" / "py_trees_ros_interfaces"
    return {
        path.relative_to(share).as_posix(): json.loads(path.read_text())["type_hashes"][0]["hash_string"]
        for path in sorted(share.glob("*/*.json"))
    }


def test_the_interfaces_we_build_hash_like_the_upstream_definitions() -> None:
    # make ros builds the upstream package into its own prefix inside the environment; its stamp
    # makes this call instant (it builds here only when the tests run without make ros)
    upstream = Path(sys.prefix) / "ros-conformance"
    build(CLIENT_INTERFACES, upstream)
    ours, theirs = type_hashes(Path(sys.prefix)), type_hashes(upstream)
    assert len(theirs) == 22  # 9 messages, 10 services, 3 actions
    assert ours == theirs
    assert all(value.startswith("RIHS01_") for value in ours.values())
    definitions = {p.relative_to(INTERFACES).with_suffix("").as_posix() for p in INTERFACES.glob("*/*.*")}
    assert {name.removesuffix(".json") for name in ours} == definitions
