"""Helpers for the console's server-side tests: a real ``tallydb serve``
and a raw reader of its server-sent events."""

from __future__ import annotations

import http.client
import json
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from tallytest import TallyServer


@contextmanager
def serving(*args: str) -> Iterator[TallyServer]:
    server = TallyServer(None, in_memory=True, extra_args=args).start()
    try:
        yield server
    finally:
        server.close()


def get(server: TallyServer, path: str, headers: dict[str, str] | None = None,
        method: str = "GET", body: bytes | None = None) -> http.client.HTTPResponse:
    assert server.url is not None
    parts = urlsplit(server.url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    conn.request(method, path, body=body, headers=headers or {})
    response = conn.getresponse()
    response.read()
    conn.close()
    return response


def post_json(server: TallyServer, path: str, body: Any,
              headers: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    assert server.url is not None
    parts = urlsplit(server.url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    conn.request("POST", path, body=json.dumps(body).encode(),
                 headers={"Content-Type": "application/json", **(headers or {})})
    response = conn.getresponse()
    data = json.loads(response.read() or b"{}")
    conn.close()
    return response.status, data


@dataclass
class Event:
    name: str
    data: Any
    id: str | None


class EventStream:
    """``GET /console/events`` over a raw socket, read event by event."""

    def __init__(self, server: TallyServer, query: str = "",
                 headers: dict[str, str] | None = None, read_size: int = 65536) -> None:
        assert server.url is not None
        parts = urlsplit(server.url)
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=10)
        lines = [f"GET /console/events{query} HTTP/1.1", f"Host: {parts.netloc}"]
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        self.read_size = read_size
        self.buffer = b""
        head, self.buffer = self._read_until(b"\r\n\r\n")
        self.status = int(head.split(b" ", 2)[1])
        self.head = head.decode("latin-1")

    def _read_until(self, marker: bytes) -> tuple[bytes, bytes]:
        while marker not in self.buffer:
            chunk = self.sock.recv(self.read_size)
            if not chunk:
                raise EOFError("the stream closed")
            self.buffer += chunk
        head, _, rest = self.buffer.partition(marker)
        return head, rest

    def next(self) -> Event:
        """The next event (heartbeat comments skipped)."""
        while True:
            block, self.buffer = self._read_until(b"\n\n")
            fields: dict[str, str] = {}
            for line in block.decode().split("\n"):
                if line.startswith(":") or not line:
                    continue
                name, _, value = line.partition(": ")
                fields[name] = value
            if fields:
                return Event(fields.get("event", "message"),
                             json.loads(fields["data"]) if "data" in fields else None,
                             fields.get("id"))

    def until(self, name: str, timeout: float = 5.0) -> Event:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            event = self.next()
            if event.name == name:
                return event
        raise AssertionError(f"no {name} event within {timeout} s")

    def close(self) -> None:
        self.sock.close()
