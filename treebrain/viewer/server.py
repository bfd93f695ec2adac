"""The viewer's web server: standard library only (``http.server`` with one thread per request,
Server-Sent Events for live updates), bound to 127.0.0.1 unless told otherwise.

It reads everything from the recording file, which the run's writer thread fills off the tick
thread; so serving pages can never slow a tick -- the tick thread never waits for, or even sees,
the server. :class:`ViewerApp` holds the routes without sockets so tests can call them directly.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, urlsplit

from treebrain.recording.reader import Recording
from treebrain.viewer.payloads import (
    definition_payload,
    last_frame,
    node_payload,
    safe_json,
    timeline_payload,
    tree_snapshot,
)

_LOG = logging.getLogger("treebrain.viewer")
STATIC_FILES = {
    "index.html": "text/html; charset=utf-8",
    "viewer.js": "text/javascript; charset=utf-8",
    "viewer.css": "text/css; charset=utf-8",
}
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
LOOPBACK_NAMES = {"127.0.0.1", "localhost", "::1"}
DEFAULT_STREAM_HZ = 10.0
MAX_CLIENTS = 16
"""Connections served at once (each has a thread; live streams hold theirs); more get 503."""
_BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nRetry-After: 5\r\n"
    b"Connection: close\r\nContent-Length: 46\r\n\r\ntoo many viewers connected: try again shortly\n"
)
KEEPALIVE_S = 15.0
REFRESH_INTERVAL_S = 0.05


@dataclass
class Response:
    status: HTTPStatus
    content_type: str
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)


def _json(data: Any, status: HTTPStatus = HTTPStatus.OK) -> Response:
    return Response(status, "application/json; charset=utf-8", safe_json(data))


def _error(status: HTTPStatus, message: str) -> Response:
    return _json({"error": message}, status)


def _static(name: str) -> Response:
    body = resources.files("treebrain.viewer").joinpath("static", name).read_bytes()
    return Response(HTTPStatus.OK, STATIC_FILES[name], body)


class ViewerApp:
    """The routes of the viewer over one recording."""

    def __init__(self, recording: Recording, stream_hz: float = DEFAULT_STREAM_HZ) -> None:
        self.recording = recording
        self.stream_period_s = 1.0 / stream_hz
        self._refreshed = 0.0
        self._refresh_lock = threading.Lock()

    def refresh(self) -> None:
        """Pick up ticks written since the last look (at most every REFRESH_INTERVAL_S)."""
        with self._refresh_lock:
            now = time.monotonic()
            if now - self._refreshed >= REFRESH_INTERVAL_S:
                self.recording.refresh()
                self._refreshed = now

    def _tick(self, query: dict[str, list[str]]) -> int | Response:
        last = self.recording.last_tick
        if last is None:
            return _error(HTTPStatus.SERVICE_UNAVAILABLE, "no ticks recorded yet")
        text = query.get("tick", [""])[0]
        if not text:
            return last
        try:
            return int(text)
        except ValueError:
            return _error(HTTPStatus.BAD_REQUEST, f"tick must be an integer, got {text!r}")

    def handle(self, path: str, query: dict[str, list[str]]) -> Response:
        if path in ("/", "/index.html"):
            return _static("index.html")
        if path.startswith("/static/"):
            name = path.removeprefix("/static/")
            return _static(name) if name in STATIC_FILES else _error(HTTPStatus.NOT_FOUND, "no such file")
        if not path.startswith("/api/"):
            return _error(HTTPStatus.NOT_FOUND, f"no page {path}")
        self.refresh()
        if path == "/api/definition":
            return _json(definition_payload(self.recording))
        if path == "/api/timeline":
            return _json(timeline_payload(self.recording))
        if path == "/api/frame":
            tick = self._tick(query)
            if isinstance(tick, Response):
                return tick
            _, png = last_frame(self.recording, tick)
            return (
                Response(HTTPStatus.OK, "image/png", png)
                if png
                else _error(HTTPStatus.NOT_FOUND, "no frame yet")
            )
        if path in ("/api/tree", "/api/node"):
            tick = self._tick(query)
            if isinstance(tick, Response):
                return tick
            if path == "/api/tree":
                return _json(tree_snapshot(self.recording, tick))
            node_path = query.get("path", [""])[0]
            details = node_payload(self.recording, node_path, tick)
            if details is None:
                return _error(HTTPStatus.NOT_FOUND, f"no node at path {node_path!r}")
            return _json(details)
        return _error(HTTPStatus.NOT_FOUND, f"no API {path}")

    def stream(self, stop: threading.Event) -> Iterator[bytes]:
        """Server-Sent Events: the newest snapshot whenever the run moves on, throttled."""
        sent: tuple[int | None, bool] | None = None
        quiet_since = time.monotonic()
        yield b"retry: 1000\n\n"
        while not stop.is_set():
            self.refresh()
            last = self.recording.last_tick
            state = (last, self.recording.finished)
            if last is not None and state != sent:
                sent = state
                quiet_since = time.monotonic()
                yield b"event: tick\ndata: " + safe_json(tree_snapshot(self.recording, last)) + b"\n\n"
            elif time.monotonic() - quiet_since > KEEPALIVE_S:
                quiet_since = time.monotonic()
                yield b": keep-alive\n\n"
            stop.wait(self.stream_period_s)


def _host_name(header: str | None) -> str:
    if not header:
        return ""
    if header.startswith("["):
        return header[1:].split("]", 1)[0]
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    app: ViewerApp
    stop_event: threading.Event
    allowed_hosts: set[str] | None
    slots: threading.BoundedSemaphore

    def process_request(self, request: Any, client_address: Any) -> None:
        """A thread per connection, at most :data:`MAX_CLIENTS` at once; the others get 503 at once."""
        if not self.slots.acquire(blocking=False):
            with contextlib.suppress(OSError):
                request.sendall(_BUSY)
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()


class _HTTPServer6(_HTTPServer):
    address_family = socket.AF_INET6


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer
    server_version = "treebrain-viewer"

    def log_message(self, format: str, *args: Any) -> None:
        _LOG.debug("%s - " + format, self.address_string(), *args)

    def _headers(self, response: Response) -> None:
        self.send_response(response.status)
        self.send_header("Content-Type", response.content_type)
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        for name, value in response.headers.items():
            self.send_header(name, value)

    def do_GET(self) -> None:
        allowed = self.server.allowed_hosts
        if allowed is not None and _host_name(self.headers.get("Host")) not in allowed:
            self._send(_error(HTTPStatus.FORBIDDEN, "unexpected Host header"))
            return
        parts = urlsplit(self.path)
        try:
            if parts.path == "/api/stream":
                self._stream()
                return
            try:
                response = self.server.app.handle(parts.path, parse_qs(parts.query))
            except (sqlite3.Error, OSError, KeyError, ValueError) as error:
                _LOG.exception("viewer: %s failed", parts.path)
                response = _error(HTTPStatus.INTERNAL_SERVER_ERROR, f"cannot read the recording: {error}")
            self._send(response)
        except (BrokenPipeError, ConnectionResetError):
            return

    def _send(self, response: Response) -> None:
        self._headers(response)
        self.send_header("Content-Length", str(len(response.body)))
        self.end_headers()
        self.wfile.write(response.body)

    def _stream(self) -> None:
        self._headers(Response(HTTPStatus.OK, "text/event-stream; charset=utf-8", b""))
        self.end_headers()
        for chunk in self.server.app.stream(self.server.stop_event):
            self.wfile.write(chunk)
            self.wfile.flush()


class ViewerServer:
    """Serves the viewer for one recording on a background thread."""

    def __init__(
        self,
        recording: Recording,
        host: str = "127.0.0.1",
        port: int = 0,
        stream_hz: float = DEFAULT_STREAM_HZ,
        max_clients: int = MAX_CLIENTS,
    ) -> None:
        self.app = ViewerApp(recording, stream_hz)
        self.host = host
        self.port = port
        self.max_clients = max_clients
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    @property
    def public(self) -> bool:
        """Whether other machines may reach it (it has no authentication)."""
        return self.host not in LOOPBACK_NAMES

    @property
    def url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("the viewer is not started")
        host, port = self._httpd.server_address[:2]
        shown = "127.0.0.1" if host in ("0.0.0.0", "") else str(host)
        return f"http://[{shown}]:{port}/" if ":" in shown else f"http://{shown}:{port}/"

    def start(self) -> str:
        """Bind and serve; returns the URL (raises OSError when the port is taken)."""
        server_class = _HTTPServer6 if ":" in self.host else _HTTPServer
        httpd = server_class((self.host, self.port), _Handler)
        httpd.app = self.app
        httpd.stop_event = self._stop
        httpd.slots = threading.BoundedSemaphore(self.max_clients)
        httpd.allowed_hosts = LOOPBACK_NAMES | {self.host} if self.host in LOOPBACK_NAMES else None
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever, name="treebrain-viewer", daemon=True)
        self._thread.start()
        return self.url

    def stop(self) -> None:
        self._stop.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join()
        self._httpd = None
        self._thread = None

    def __enter__(self) -> ViewerServer:
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()
