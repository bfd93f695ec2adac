"""A fake OpenAI-compatible endpoint on 127.0.0.1 whose first request meets one fault and whose later
requests are answered: the far end of an ``openai`` profile in the fault tests."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Literal

EndpointFault = Literal["dies_mid_stream", "hangs_after_headers", "error_then_recovers", "slow_first_token"]
HANG_S = 10.0
"""How long a hung answer holds its connection (the test is over long before)."""
DEADLINE_S = 1.0
TREE = f"""
version: 1
blackboard:
  /first: any
  /first_failure: "dict[str, str]"
  /second: any
root:
  type: sequence
  name: root
  memory: true
  children:
    - type: force_success
      name: tolerate
      child:
        type: llm.generate
        name: first
        params:
          prompt_text: "say ok"
          timeout_s: {DEADLINE_S}
          retry: {{max_attempts: 2, base_delay_s: 0.1}}
        outputs: {{result: /first, failure: /first_failure}}
    - type: llm.generate
      name: second
      params: {{prompt_text: "say ok again", timeout_s: {DEADLINE_S}, retry: {{max_attempts: 1}}}}
      outputs: {{result: /second}}
"""
"""Two calls to the endpoint: the first (tried twice, its failure tolerated) meets the fault, the
second must work."""


def completion(text: str) -> bytes:
    return json.dumps(
        {
            "id": "chatcmpl-fault",
            "object": "chat.completion",
            "created": 0,
            "model": "fault-test",
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
            ],
            "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
        }
    ).encode()


class FaultyEndpoint(ThreadingHTTPServer):
    """Answers ``ok``, except that its first `faulty` requests meet `fault`:

    - ``dies_mid_stream``: the headers and half the body, then the connection closes;
    - ``hangs_after_headers``: the headers, then nothing;
    - ``error_then_recovers``: HTTP 500;
    - ``slow_first_token``: the answer after `delay_s`.
    """

    daemon_threads = True

    def __init__(self, fault: EndpointFault, delay_s: float = 0.0, faulty: int = 1) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.fault = fault
        self.delay_s = delay_s
        self.faulty = faulty
        self.requests = 0
        self.released = threading.Event()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: FaultyEndpoint

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        server = self.server
        server.requests += 1
        fault = server.fault if server.requests <= server.faulty else None
        body = completion("ok")
        if fault == "error_then_recovers":
            self._headers(500, len(b'{"error": {"message": "boom"}}'))
            self.wfile.write(b'{"error": {"message": "boom"}}')
            return
        if fault == "slow_first_token":
            server.released.wait(server.delay_s)
        self._headers(200, len(body))
        if fault == "dies_mid_stream":
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        if fault == "hangs_after_headers":
            self.wfile.flush()
            server.released.wait(HANG_S)
            return
        self.wfile.write(body)

    def _headers(self, status: int, length: int) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(length))
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""


@contextmanager
def serving(fault: EndpointFault, delay_s: float = 0.0, faulty: int = 1) -> Iterator[FaultyEndpoint]:
    server = FaultyEndpoint(fault, delay_s, faulty)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.released.set()
        server.shutdown()
        server.server_close()
