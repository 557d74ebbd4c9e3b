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

REPO = Path(__file__).resolve().parents[2]
#: Where the npm package amplify-dynamodb-simulator (which carries Amazon's
#: DynamoDB Local jar) is installed, shared with bench/ (bench/setup.sh).
PEERS = REPO / "bench" / ".peers"
DDB_LOCAL_PACKAGE = "amplify-dynamodb-simulator@2"
DDB_LOCAL_DIR = PEERS / "node_modules" / "amplify-dynamodb-simulator" / "emulator"

STORES = ("embedded", "serve", "moto", "mock", "ddblocal")
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


class LocalServer:
    """A DynamoDB-speaking process on a free loopback port, ready once
    ListTables answers (``name`` says what failed to start)."""

    name = "server"
    start_timeout = 30.0

    def __init__(self) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = self.start()
        deadline = time.monotonic() + self.start_timeout
        while True:
            try:
                http_client(self.url).list_tables()
                return
            except Exception:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"{self.name} did not start") from None
                time.sleep(0.1)

    def start(self) -> subprocess.Popen[bytes]:
        raise NotImplementedError

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()


class MotoServer(LocalServer):
    name = "moto_server"

    def start(self) -> subprocess.Popen[bytes]:
        moto = Path(sys.executable).with_name("moto_server")
        command = [str(moto)] if moto.exists() else [sys.executable, "-m", "moto.server"]
        return subprocess.Popen([*command, "-p", str(self.port)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def dynamodb_local_missing() -> str | None:
    """Why DynamoDB Local cannot run here (None if it can): Java is needed
    (Debian: openjdk-17-jre-headless); the jar is installed on first use
    from npm's amplify-dynamodb-simulator into bench/.peers."""
    import fcntl
    import shutil

    if shutil.which("java") is None:
        return "java not found (apt-get install openjdk-17-jre-headless)"
    jar = DDB_LOCAL_DIR / "DynamoDBLocal.jar"
    if jar.exists():
        return None
    if shutil.which("npm") is None:
        return f"{jar} missing and npm not found to install {DDB_LOCAL_PACKAGE}"
    PEERS.mkdir(parents=True, exist_ok=True)
    with open(PEERS / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one installer among xdist workers
        if not jar.exists():
            package = PEERS / "package.json"
            if not package.exists():
                package.write_text('{"name":"tallydb-bench-peers","private":true}\n')
            done = subprocess.run(
                ["npm", "install", "--no-audit", "--no-fund", "--loglevel=error",
                 DDB_LOCAL_PACKAGE],
                cwd=PEERS, capture_output=True, text=True, timeout=600,
            )
            if done.returncode != 0 or not jar.exists():
                return f"npm install {DDB_LOCAL_PACKAGE} failed: {done.stderr.strip()[-300:]}"
    return None


class DynamoDBLocal(LocalServer):
    """Amazon's DynamoDB Local (-inMemory) on a free loopback port."""

    name = "DynamoDB Local"
    start_timeout = 120.0

    def start(self) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            ["java", f"-Djava.library.path={DDB_LOCAL_DIR / 'DynamoDBLocal_lib'}",
             "-jar", str(DDB_LOCAL_DIR / "DynamoDBLocal.jar"),
             "-inMemory", "-sharedDb", "-disableTelemetry", "-port", str(self.port)],
            cwd=DDB_LOCAL_DIR,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
