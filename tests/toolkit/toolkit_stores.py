"""Helpers for the toolkit's tests: the stores they run on (see conftest.py)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import boto3
from botocore.config import Config

STORES = ("embedded", "serve", "moto", "mock")
SELECTED = tuple(
    s for s in os.environ.get("TALLYDB_TOOLKIT_STORES", ",".join(STORES)).split(",") if s
)

# No hidden retries: a retried ADD would count twice and hide what the
# counter tests measure. (Retries on purpose are part of the tests.)
CLIENT_CONFIG = Config(
    retries={"total_max_attempts": 1},
    max_pool_connections=64,
    connect_timeout=5,
    read_timeout=60,
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


_SESSION = boto3.session.Session()
_SESSION_LOCK = threading.Lock()


def http_client(url: str) -> Any:
    """A boto3 client for ``url`` (from one shared session: models load once)."""
    with _SESSION_LOCK:
        return _SESSION.client(
            "dynamodb",
            endpoint_url=url,
            region_name="us-east-1",
            aws_access_key_id="x",
            aws_secret_access_key="y",
            config=CLIENT_CONFIG,
        )


def aws_client() -> Any:
    """A boto3 client with no endpoint: AWS's own, or whatever mocks it."""
    with _SESSION_LOCK:
        return _SESSION.client("dynamodb", region_name="us-east-1", config=CLIENT_CONFIG)


class MotoServer:
    def __init__(self) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        moto = Path(sys.executable).with_name("moto_server")
        command = [str(moto)] if moto.exists() else [sys.executable, "-m", "moto.server"]
        self.process = subprocess.Popen(
            [*command, "-p", str(self.port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                http_client(self.url).list_tables()
                return
            except Exception:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError("moto_server did not start") from None
                time.sleep(0.1)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"
