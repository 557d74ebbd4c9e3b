"""Helpers for the server's tests (their fixtures: server_fixtures.py).

``StubEngine``/``StubServer``: the real server code (uvloop, httptools,
batcher, routing) on a thread of this process, in front of an engine whose
operations the test controls: ``Echo`` answers its request, ``Boom`` raises
a bug, ``Invalid`` a ValidationException, ``ListTables`` an empty list,
``Big`` 100 KB; its commit can be made to fail. This pins down the group-commit rules whatever
operations the api has.

``Serve``: the real ``python -m tallydb serve`` as a subprocess.

``post`` (one request over http.client), ``request_bytes`` (a request byte
for byte), ``Pipe`` (a raw socket: send anything, read responses in order).
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from botocore.config import Config
from tallytest import session_client

from tallydb.engine.errors import ValidationException
from tallydb.server import Server
from tallydb.server.limits import ConnectionLimits

#: How long a client waits for an answer: generous, since a loaded machine
#: can take many seconds to start the body-screening worker a large or
#: compressed body's first request needs. Only a failing test waits it out.
TIMEOUT = 60.0
TARGET = "DynamoDB_20120810."
STUB_OPERATIONS = ("Echo", "Boom", "Invalid", "ListTables", "Big")
BIG_RESPONSE = 100_000  # bytes of padding in Big's answer


class CommitFailed(Exception):
    pass


@dataclass
class StubEngine:
    """Quacks like tallydb.engine.api.Engine; records what each batch ran."""

    batches: list[list[tuple[str, dict[str, Any]]]] = field(default_factory=list)
    fail_next_commit: bool = False
    commit_delay: float = 0.0  # seconds each COMMIT takes (an fsync, say)
    closed: bool = False
    regions: list[str] = field(default_factory=list)  # each call's, in order
    regional: bool = False  # every request's region wanted (Engine.regional)

    @contextmanager
    def batch(self) -> Iterator[Callable[..., dict[str, Any]]]:
        calls: list[tuple[str, dict[str, Any]]] = []

        def call(
            operation: str, request: dict[str, Any], region: str = "us-east-1",
            access: Any = None,
        ) -> dict[str, Any]:
            calls.append((operation, request))
            self.regions.append(region)
            if operation == "Boom":
                raise RuntimeError("a bug in an operation")
            if operation == "Invalid":
                raise ValidationException("1 validation error detected")
            if operation == "ListTables":
                return {"TableNames": []}
            if operation == "Big":
                return {"pad": "x" * BIG_RESPONSE}
            return {"Echo": request}

        yield call
        if self.commit_delay:
            time.sleep(self.commit_delay)
        if self.fail_next_commit:
            self.fail_next_commit = False
            raise CommitFailed("disk I/O error")
        self.batches.append(calls)

    def close(self) -> None:
        self.closed = True


class StubServer:
    """tallydb.server.Server on its own uvloop thread, port chosen by the OS."""

    def __init__(
        self,
        credentials: dict[str, Any] | None = None,
        offload: bool = False,
        limits: ConnectionLimits | None = None,
        engine: Any = None,
    ) -> None:
        """``engine``: a real Engine to serve instead of the stub (with every
        operation it has)."""
        import uvloop

        self.engine = StubEngine() if engine is None else engine
        self.loop = uvloop.new_event_loop()
        self.server = Server(
            self.engine,
            self.loop,
            credentials=credentials,
            operations=STUB_OPERATIONS if engine is None else None,
            offload=offload,
            limits=limits,
        )
        self.port = 0
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        assert self._ready.wait(TIMEOUT), "stub server did not start"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.port = self.loop.run_until_complete(self.server.listen("127.0.0.1", 0))
        self._ready.set()
        self.loop.run_forever()
        self.loop.run_until_complete(self.server.shutdown())
        self.loop.close()

    def stop(self, timeout: float = TIMEOUT) -> None:
        if self._thread.is_alive():
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(timeout)
            assert not self._thread.is_alive(), "stub server did not stop"


# --------------------------------------------------------------------------
# HTTP helpers
# --------------------------------------------------------------------------


@dataclass
class Response:
    status: int
    headers: dict[str, str]  # lower-cased names
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def error_type(self) -> str:
        return str(self.json["__type"])


def post(
    url: str,
    target: str | None,
    body: bytes | dict[str, Any] = b"{}",
    headers: dict[str, str] | None = None,
    method: str = "POST",
    path: str = "/",
) -> Response:
    """One request on a fresh connection; ``target`` is an operation name."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=TIMEOUT)
    sent = {"Content-Type": "application/x-amz-json-1.0"}
    if target is not None:
        sent["X-Amz-Target"] = TARGET + target
    sent.update(headers or {})
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    try:
        conn.request(method, path, body=data, headers=sent)
        answer = conn.getresponse()
        return Response(
            answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read()
        )
    finally:
        conn.close()


def request_bytes(
    target: str | None,
    body: bytes | dict[str, Any] = b"{}",
    *,
    method: str = "POST",
    extra: str = "",
    content_type: str | None = "application/x-amz-json-1.0",
) -> bytes:
    """One HTTP/1.1 request, byte for byte, for pipelining and abuse."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    head = f"{method} / HTTP/1.1\r\nHost: localhost\r\nContent-Length: {len(data)}\r\n"
    if content_type is not None:
        head += f"Content-Type: {content_type}\r\n"
    if target is not None:
        head += f"X-Amz-Target: {TARGET}{target}\r\n"
    return (head + extra + "\r\n").encode() + data


class Pipe:
    """A raw connection: send any bytes, read whole responses in order."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        assert parts.hostname is not None and parts.port is not None
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=TIMEOUT)
        self.file = self.sock.makefile("rb")

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def response(self) -> Response:
        shared = self.file

        class _Unclosable:
            # one buffer for every response (nothing read ahead is lost),
            # which HTTPResponse must not close after each body
            def __getattr__(self, name: str) -> Any:
                return getattr(shared, name)

            def close(self) -> None:
                pass

        class _Sock:
            def makefile(self, *_: Any, **__: Any) -> Any:
                return _Unclosable()

        answer = http.client.HTTPResponse(_Sock())  # type: ignore[arg-type]
        answer.begin()
        body = answer.read()
        return Response(answer.status, {k.lower(): v for k, v in answer.getheaders()}, body)

    def closed_by_server(self) -> bool:
        """True once the server has closed (EOF or reset), within TIMEOUT."""
        try:
            return self.file.read() == b""
        except (ConnectionResetError, TimeoutError):
            return False

    def close(self) -> None:
        self.file.close()
        self.sock.close()


# --------------------------------------------------------------------------
# The real command
# --------------------------------------------------------------------------

LISTENING = re.compile(r"^tallydb listening on (https?://\S+) \((.*)\)$")


class Serve:
    """``python -m tallydb serve --port 0 ARGS...`` in its own process group.

    ``start`` waits (bounded) for the banner and parses the URL from it;
    stdout and stderr are collected by a reader thread for the test to see.
    """

    def __init__(self, *args: str) -> None:
        self.args = list(args)
        self.proc: subprocess.Popen[str] | None = None
        self.banner = ""
        self.url = ""
        self.lines: list[str] = []
        self._banner_seen = threading.Event()
        self._reader: threading.Thread | None = None

    def start(self, timeout: float = 30.0) -> Serve:
        self._banner_seen.clear()
        self.lines = []
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tallydb", "serve", "--port", "0", *self.args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
            env=dict(os.environ, PYTHONUNBUFFERED="1"),
        )
        self._reader = threading.Thread(target=self._read, args=(self.proc,), daemon=True)
        self._reader.start()
        deadline = time.monotonic() + timeout
        while not self._banner_seen.wait(0.05):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.kill()
                raise AssertionError(f"no banner from tallydb serve:\n{self.output}")
        return self

    def _read(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            self.lines.append(line.rstrip("\n"))
            if not self._banner_seen.is_set():
                match = LISTENING.match(line.rstrip("\n"))
                if match:
                    self.banner = line.rstrip("\n")
                    self.url = match.group(1)
                    self._banner_seen.set()

    @property
    def output(self) -> str:
        return "\n".join(self.lines)

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 15.0) -> int:
        """Send ``sig``; return the exit status (fails the test on a hang)."""
        assert self.proc is not None
        self.proc.send_signal(sig)
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"tallydb serve ignored {sig}:\n{self.output}") from None
        if self._reader is not None:
            self._reader.join(5)
        return code

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(15)
        if self._reader is not None:
            self._reader.join(5)

    def client(self, access_key: str = "x", secret: str = "y") -> Any:
        return session_client(
            "dynamodb",
            endpoint_url=self.url,
            region_name="us-east-1",
            aws_access_key_id=access_key,
            aws_secret_access_key=secret,
            config=Config(retries={"total_max_attempts": 1}, read_timeout=TIMEOUT),
        )
