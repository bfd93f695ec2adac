"""The TCP client against a fake controller on 127.0.0.1 (bounded, self-stopping)."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.faults.controller import LineServer
from treebrain.clock import FakeClock
from treebrain.robots.arm.commands import GripperSet, MoveTo
from treebrain.robots.arm.limits import ArmLimits
from treebrain.robots.arm.tcp_socket import TcpSocketClient, TcpSocketParams
from treebrain.robots.driver import DriverStatus
from treebrain.robots.errors import DriverError

Reply = Callable[[dict[str, Any]], list[bytes]]


class FakeController(LineServer):
    """Accepts one client and answers each line with what `reply` returns; stops after 5 s at most."""

    def __init__(self, reply: Reply) -> None:
        self.reply = reply
        super().__init__(timeout_s=5)

    def answer(self, conn: socket.socket, message: dict[str, Any]) -> bool:
        answers = self.reply(message)
        if answers == [b"CLOSE"]:
            return False
        for answer in answers:
            conn.sendall(answer)
        return True


@pytest.fixture
def controller_factory() -> Iterator[Callable[[Reply], FakeController]]:
    made: list[FakeController] = []

    def make(reply: Reply) -> FakeController:
        controller = FakeController(reply)
        made.append(controller)
        return controller

    yield make
    for controller in made:
        controller.close()


def client_for(port: int, clock: FakeClock, **params: object) -> TcpSocketClient:
    return TcpSocketClient(
        TcpSocketParams.model_validate({"port": port, **params}), clock=clock, limits=ArmLimits()
    )


def poll_until_finished(client: TcpSocketClient, clock: FakeClock, advance_s: float = 0.0) -> DriverStatus:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        status = client.poll()
        if status.finished:
            return status
        clock.advance(advance_s)
        time.sleep(0.005)
    raise AssertionError("the client never finished")


def done_reply(message: dict[str, object]) -> list[bytes]:
    if message["type"] != "command":
        return []
    return [
        json.dumps({"id": message["id"], "status": "accepted"}).encode() + b"\n",
        json.dumps({"id": message["id"], "status": "done"}).encode() + b"\n",
    ]


def test_commands_round_trip_as_json_lines(controller_factory: Callable[[Reply], FakeController]) -> None:
    controller = controller_factory(done_reply)
    clock = FakeClock()
    client = client_for(controller.port, clock)
    client.act(MoveTo(x_mm=300, y_mm=0, z_mm=200, place="bread"))
    assert poll_until_finished(client, clock).state == "done"
    client.act(GripperSet(state="closed"))
    assert poll_until_finished(client, clock).state == "done"
    client.stop()
    client.close()
    assert controller.received[:2] == [
        {
            "id": 1,
            "type": "command",
            "command": {"name": "move_to", "x_mm": 300.0, "y_mm": 0.0, "z_mm": 200.0, "place": "bread"},
        },
        {"id": 2, "type": "command", "command": {"name": "gripper_set", "state": "closed"}},
    ]
    assert client.observe().gripper == "closed"


def test_a_failure_reported_by_the_controller(controller_factory: Callable[[Reply], FakeController]) -> None:
    controller = controller_factory(
        lambda m: [json.dumps({"id": m["id"], "status": "failed", "message": "E-stop"}).encode() + b"\n"]
    )
    clock = FakeClock()
    client = client_for(controller.port, clock)
    client.act(GripperSet(state="closed"))
    status = poll_until_finished(client, clock)
    client.close()
    assert (status.state, status.message) == ("failed", "E-stop")
    assert client.observe().gripper == "open"


def test_a_silent_controller_times_out_on_the_clock(
    controller_factory: Callable[[Reply], FakeController],
) -> None:
    controller = controller_factory(lambda m: [])
    clock = FakeClock()
    client = client_for(controller.port, clock, command_timeout_s=1.0)
    client.act(GripperSet(state="closed"))
    status = poll_until_finished(client, clock, advance_s=0.25)
    client.close()
    assert (
        status.message
        == f"the controller at 127.0.0.1:{controller.port} did not finish command #1 within 1 s"
    )


def test_a_controller_that_hangs_up(controller_factory: Callable[[Reply], FakeController]) -> None:
    controller = controller_factory(lambda m: [b"CLOSE"])
    clock = FakeClock()
    client = client_for(controller.port, clock)
    client.act(GripperSet(state="closed"))
    status = poll_until_finished(client, clock)
    assert status.message == f"the controller at 127.0.0.1:{controller.port} closed the connection"


def test_garbage_from_the_controller_fails_the_command(
    controller_factory: Callable[[Reply], FakeController],
) -> None:
    controller = controller_factory(lambda m: [b"hello robot\n"])
    clock = FakeClock()
    client = client_for(controller.port, clock)
    client.act(GripperSet(state="closed"))
    status = poll_until_finished(client, clock)
    client.close()
    assert (
        status.message
        == f"the controller at 127.0.0.1:{controller.port} sent a line that is not JSON: 'hello robot'"
    )


def test_an_unreachable_controller_is_a_clear_error() -> None:
    closed = socket.create_server(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()
    clock = FakeClock()
    client = client_for(port, clock)
    try:
        client.act(GripperSet(state="closed"))
    except DriverError as error:
        message = str(error)
    else:
        message = poll_until_finished(client, clock).message
    assert message == f"cannot reach the controller at 127.0.0.1:{port}: Connection refused"


def test_an_unresolvable_host_is_a_clear_error() -> None:
    client = client_for(9, FakeClock(), host="no-such-host.invalid")
    with pytest.raises(DriverError, match=r"cannot reach the controller at no-such-host.invalid:9"):
        client.act(GripperSet(state="closed"))
    assert client.poll().state == "failed"
