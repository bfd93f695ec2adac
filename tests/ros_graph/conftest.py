"""Real ROS 2 graphs for the bridge's tests: every test process gets a domain of its own, and
discovery never leaves this machine, so parallel runs, pytest-xdist's workers and CI neighbours never
see each other."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
# pytest-xdist's workers (gw0, gw1) take domains of different parity, so they never share one.
_WORKER = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw"))
os.environ["ROS_DOMAIN_ID"] = str(1 + (os.getpid() % 50) * 2 + _WORKER % 2)

PATROL_TREE = """
version: 1
blackboard:
  /battery: {type: float, initial: 1.0}
  /speed: {type: float, initial: 0.0}
root:
  type: selector
  name: root
  memory: false
  children:
    - type: sequence
      name: dock
      memory: false
      children:
        - {type: check_blackboard, name: low, params: {condition: "/battery < 0.2"}}
        - {type: set_blackboard, name: stop, params: {value: 0.0}, outputs: {value: /speed}}
        - {type: running, name: docking}
    - type: sequence
      name: patrol
      memory: false
      children:
        - {type: set_blackboard, name: go, params: {value: 0.5}, outputs: {value: /speed}}
        - {type: running, name: driving}
"""

PATROL_ROBOT = """
robot: {name}
tree: tree.yaml
ros:
  snapshot_period: 0.5
  sensors:
    - {{topic: battery, type: std_msgs/msg/Float64, field: data, key: /battery}}
  actuators:
    - {{key: /speed, topic: cmd_vel, type: geometry_msgs/msg/Twist, field: linear.x, stop: 0.0}}
"""

# py_trees_ros/__init__.py imports every module of the package. Three of them need packages that
# have no wheel and that the watcher programs never call: transforms.py imports tf2_ros, and
# programs/echo.py imports ros2topic.api and ros2cli.node.strategy. These empty stand-ins satisfy
# those imports only; the watchers themselves run unmodified.
STAND_INS = ("tf2_ros/__init__.py", "ros2topic/__init__.py", "ros2topic/api.py", "ros2cli/__init__.py",
             "ros2cli/node/__init__.py", "ros2cli/node/strategy.py")  # fmt: skip


@pytest.fixture
def patrol(tmp_path: Path) -> Callable[[str], Path]:
    """A patrol robot file named `name` (its tree drives at 0.5 m/s until the battery is low)."""

    def write(name: str = "patrol") -> Path:
        folder = tmp_path / name
        folder.mkdir(exist_ok=True)
        (folder / "tree.yaml").write_text(textwrap.dedent(PATROL_TREE), encoding="utf-8")
        robot = folder / "robot.yaml"
        robot.write_text(textwrap.dedent(PATROL_ROBOT).format(name=name), encoding="utf-8")
        return robot

    return write


@pytest.fixture(scope="session")
def client_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment the py_trees_ros watcher programs run in (stand-ins first on the path)."""
    folder = tmp_path_factory.mktemp("stand-ins")
    for name in STAND_INS:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text('"""An empty stand-in: see tests/ros_graph/conftest.py."""\n')
    return {**os.environ, "PYTHONPATH": str(folder), "PYTHONUNBUFFERED": "1"}


def program(name: str) -> str:
    """A console script of this environment (treebrain, the py_trees_ros watchers)."""
    return str(Path(sys.executable).with_name(name))


class Process:
    """A program running beside the test, its output collected in files."""

    def __init__(
        self, command: list[str], folder: Path, env: dict[str, str] | None = None, stdin: int | None = None
    ) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.stdout_path, self.stderr_path = folder / "stdout.txt", folder / "stderr.txt"
        with self.stdout_path.open("wb") as out, self.stderr_path.open("wb") as err:
            self.popen = subprocess.Popen(
                command, stdin=stdin, stdout=out, stderr=err, env=env or dict(os.environ)
            )

    @property
    def stdout(self) -> str:
        return self.stdout_path.read_text(encoding="utf-8", errors="replace")

    @property
    def stderr(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    def wait_for(self, text: str, timeout_s: float = 20.0) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if text in self.stdout:
                return True
            if self.popen.poll() is not None:
                return text in self.stdout
            time.sleep(0.1)
        return False

    def terminate(self, timeout_s: float = 10.0) -> int:
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
        try:
            return self.popen.wait(timeout_s)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            return self.popen.wait()


@pytest.fixture
def processes(tmp_path: Path) -> Iterator[Callable[..., Process]]:
    """Start programs beside the test; whatever still runs at the end is stopped."""
    started: list[Process] = []

    def start(command: list[str], env: dict[str, str] | None = None, stdin: int | None = None) -> Process:
        process = Process(command, tmp_path / f"process-{len(started)}", env, stdin)
        started.append(process)
        return process

    yield start
    for process in started:
        process.terminate()


def run_robot(start: Callable[..., Process], robot: Path, *extra: str) -> Process:
    """``treebrain run ROBOT --ros`` at 20 Hz, unrecorded."""
    return start(
        [program("treebrain"), "run", str(robot), "--ros", "--no-record", "--quiet", "--hz", "20", *extra]
    )
