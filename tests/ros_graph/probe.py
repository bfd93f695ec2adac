"""A node of the test's own on the graph: it listens to topics, publishes and spins until a condition
holds. By default it has a ROS context of its own, so it never meets one that the code under test
initialises or shuts down in this process; one that shares a context discovers its peers at once."""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from typing import Any


class Probe:
    def __init__(self, name: str = "probe", namespace: str | None = None, context: Any = None) -> None:
        self.rclpy: Any = importlib.import_module("rclpy")
        signals: Any = importlib.import_module("rclpy.signals")
        self.owns_context = context is None
        self.context: Any = self.rclpy.Context() if context is None else context
        if self.owns_context:
            self.rclpy.init(context=self.context, signal_handler_options=signals.SignalHandlerOptions.NO)
        self.node: Any = self.rclpy.create_node(name, namespace=namespace, context=self.context)
        executors: Any = importlib.import_module("rclpy.executors")
        self.executor: Any = executors.SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)

    def listen(self, topic: str, message_type: Any) -> list[Any]:
        """Every message on `topic` from now on, in order."""
        received: list[Any] = []
        self.node.create_subscription(message_type, topic, received.append, 10)
        return received

    def spin(self, until: Callable[[], bool] = lambda: False, timeout_s: float = 10.0) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and not until():
            self.executor.spin_once(timeout_sec=0.02)
        return until()

    def close(self) -> None:
        self.executor.shutdown()
        self.node.destroy_node()
        if self.owns_context:
            self.rclpy.try_shutdown(context=self.context)

    def __enter__(self) -> Probe:
        return self

    def __exit__(self, *exception: object) -> None:
        self.close()
