"""What the crash and fuzz harnesses share: a `tallydb serve` they can kill
and restart on the same port and data, and a raw HTTP client that sends a
request exactly once (botocore silently re-sends a request whose connection
dropped, even with max_attempts=1, so it cannot count acknowledgements).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

PYTHON = sys.executable


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    """`python -m tallydb serve` on a fixed port, in its own process group."""

    def __init__(self, *args: str, port: int | None = None, log: Path | None = None) -> None:
        self.args = list(args)
        self.port = port or free_port()
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> float:
        """Start and wait until it answers; the seconds that took."""
        started = time.monotonic()
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL  # noqa: SIM115
        try:
            self.proc = subprocess.Popen(
                [PYTHON, "-m", "tallydb", "serve", "--port", str(self.port), *self.args],
                stdin=subprocess.DEVNULL, stdout=out, stderr=out, start_new_session=True,
            )
        finally:
            if self.log:
                out.close()  # type: ignore[union-attr]
        deadline = started + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"tallydb serve exited with {self.proc.returncode}")
            with contextlib.suppress(OSError):
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=1)
                conn.request("GET", "/")
                if conn.getresponse().status == 200:
                    conn.close()
                    return time.monotonic() - started
            time.sleep(0.01)
        self.kill()
        raise RuntimeError("tallydb serve did not answer in time")

    def kill(self) -> None:
        """SIGKILL, the whole process group."""
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(30)

    def stop(self) -> int:
        """SIGTERM and wait; the exit status."""
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()
        return int(self.proc.returncode)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


class Client:
    """One keep-alive connection; each request is sent once, never retried.
    ``key``: (access key, secret) to sign every request with (SigV4)."""

    def __init__(self, port: int, timeout: float = 10.0,
                 key: tuple[str, str] | None = None) -> None:
        self.port = port
        self.timeout = timeout
        self.key = key
        self.conn: http.client.HTTPConnection | None = None

    def call(self, operation: str, request: Any) -> tuple[int, Any]:
        """(status, decoded body); OSError/HTTPException if the outcome is unknown."""
        from tallydb.engine.api import target_of  # (the Streams operations' prefix)

        body = request if isinstance(request, bytes) else json.dumps(request).encode()
        headers = {"Content-Type": "application/x-amz-json-1.0",
                   "X-Amz-Target": target_of(operation)}
        if self.key is not None:
            headers = signed(self.port, body, headers, self.key)
        return self.raw("POST", "/", body, headers)

    def raw(self, method: str, path: str, body: bytes,
            headers: dict[str, str]) -> tuple[int, Any]:
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        try:
            self.conn.request(method, path, body=body, headers=headers)
            answer = self.conn.getresponse()
            data = answer.read()
        except BaseException:
            self.close()
            raise
        if answer.getheader("Connection", "").lower() == "close":
            self.close()
        try:
            decoded: Any = json.loads(data) if data else None
        except ValueError:
            decoded = data
        return answer.status, decoded

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def signed(port: int, body: bytes, headers: dict[str, str],
           key: tuple[str, str]) -> dict[str, str]:
    """``headers`` with a SigV4 signature by ``key`` over the request."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    request = AWSRequest(method="POST", url=f"http://127.0.0.1:{port}/", data=body,
                         headers=headers)
    SigV4Auth(Credentials(*key), "dynamodb", "us-east-1").add_auth(request)
    return dict(request.headers.items())
