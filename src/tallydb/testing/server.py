"""A throwaway ``tallydb serve`` subprocess on a free loopback port, for tests
and scripts: :class:`Server` and the context manager :func:`serve`."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["CREDENTIALS", "LISTENING", "REGION", "Server", "serve"]

#: What ``tallydb serve`` prints once it accepts connections.
LISTENING = re.compile(r"tallydb listening on (http://[^\s()]+)")
REGION = "us-east-1"
CREDENTIALS = {"aws_access_key_id": "tallydb", "aws_secret_access_key": "tallydb"}
START_TIMEOUT = 30.0


class Server:
    """A ``tallydb serve`` subprocess on a free port (or an endpoint given)."""

    def __init__(
        self,
        data: Path | None = None,
        *,
        in_memory: bool = False,
        url: str | None = None,
        extra_args: tuple[str, ...] = (),
    ) -> None:
        self.data = data
        self.in_memory = in_memory
        self.url: str | None = url
        self.extra_args = extra_args
        self.process: subprocess.Popen[str] | None = None
        self.output: deque[str] = deque(maxlen=200)
        self._listening = threading.Event()

    def command(self) -> list[str]:
        command = [sys.executable, "-m", "tallydb", "serve", "--port", "0"]
        if self.in_memory:
            command.append("--in-memory")
        else:
            assert self.data is not None
            command += ["--data", str(self.data)]
        return command + list(self.extra_args)

    def start(self, timeout: float = START_TIMEOUT) -> Server:
        """Start the server and wait for its ``tallydb listening on`` line."""
        if self.url is not None and self.process is None:
            return self  # an endpoint given: nothing to start
        self.process = subprocess.Popen(
            self.command(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        threading.Thread(target=self._read, args=(self.process,), daemon=True).start()
        if not self._listening.wait(timeout) or self.url is None:
            self.stop()
            raise RuntimeError(
                f"`{' '.join(self.command())}` did not start within {timeout}s:\n" + self.log()
            )
        return self

    def _read(self, process: subprocess.Popen[str]) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            self.output.append(line.rstrip("\n"))
            match = LISTENING.search(line)
            if match and not self._listening.is_set():
                self.url = match.group(1).rstrip(".,;")
                self._listening.set()
        self._listening.set()  # exited: stop waiting (url stays None)

    def log(self) -> str:
        """What the server printed (the last 200 lines)."""
        return "\n".join(self.output)

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the server (SIGTERM, then SIGKILL if it does not exit)."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout)

    def client(self, **config: Any) -> Any:
        """A boto3 DynamoDB client bound to the server."""
        import boto3
        from botocore.config import Config

        if self.url is None:
            raise RuntimeError("the server is not running")
        return boto3.session.Session().client(
            "dynamodb",
            endpoint_url=self.url,
            region_name=REGION,
            config=Config(**config) if config else None,
            **CREDENTIALS,
        )

    def resource(self) -> Any:
        """A boto3 DynamoDB resource bound to the server."""
        import boto3

        if self.url is None:
            raise RuntimeError("the server is not running")
        return boto3.session.Session().resource(
            "dynamodb", endpoint_url=self.url, region_name=REGION, **CREDENTIALS
        )

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextmanager
def serve(*, in_memory: bool = False) -> Iterator[Server]:
    """A throwaway ``tallydb serve`` for the ``with`` block, data in a temp dir."""
    data = None if in_memory else Path(tempfile.mkdtemp(prefix="tallydb-test-"))
    server = Server(data, in_memory=in_memory)
    try:
        yield server.start()
    finally:
        server.stop()
        if data is not None:
            shutil.rmtree(data, ignore_errors=True)
