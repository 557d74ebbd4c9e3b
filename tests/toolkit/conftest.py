"""Fixtures for the toolkit's tests: one test, three stores.

``store`` is parametrized over

* ``embedded``: ``tallydb.connect(in_memory=True)``, the engine in-process;
* ``serve``:    a real ``tallydb serve`` subprocess (the root conftest's
  ``tallydb_server``), reached by boto3 over HTTP;
* ``moto``:     moto's server (``moto_server``) as an independent DynamoDB
  implementation: whatever passes there uses only standard requests.

``TALLYDB_TOOLKIT_STORES=embedded,moto`` (say) narrows the set. A test that
meets one of moto's known deviations from DynamoDB is marked
``@pytest.mark.moto_deviation("why")`` and expected to fail on moto only
(the deviations are listed in tests/toolkit/MOTO.md).

``db`` is a ``tallydb.Database`` on the chosen store; ``make_table`` creates
uniquely named tables and deletes them afterwards.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.config import Config

import tallydb

STORES = ("embedded", "serve", "moto")
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


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "moto_deviation(reason, strict=True): moto differs from DynamoDB here; xfail on moto "
        "(strict=False where moto only sometimes differs, e.g. races)",
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


@pytest.fixture(scope="session")
def moto_server() -> Iterator[MotoServer]:
    server = MotoServer()
    yield server
    server.stop()


@pytest.fixture(params=SELECTED)
def store(request: pytest.FixtureRequest) -> str:
    """The name of the store this run of the test uses."""
    name: str = request.param
    marker = request.node.get_closest_marker("moto_deviation")
    if name == "moto" and marker is not None:
        strict = marker.kwargs.get("strict", True)
        request.applymarker(pytest.mark.xfail(reason=f"moto: {marker.args[0]}", strict=strict))
    return name


def open_db(request: pytest.FixtureRequest, store: str) -> tallydb.Database:
    if store == "embedded":
        return tallydb.connect(in_memory=True)
    if store == "serve":
        server = request.getfixturevalue("tallydb_server")
        return tallydb.connect(client=http_client(server.url))
    server = request.getfixturevalue("moto_server")
    return tallydb.connect(client=http_client(server.url))


@pytest.fixture
def db(request: pytest.FixtureRequest, store: str) -> Iterator[tallydb.Database]:
    """A Database on the store; tables the test creates are deleted after it."""
    database = open_db(request, store)
    before = set(database.list_tables())
    yield database
    if store != "embedded":
        for name in set(database.list_tables()) - before:
            with contextlib.suppress(tallydb.DynamoDBError):
                database.delete_table(name)
    database.close()


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


@pytest.fixture
def make_table(db: tallydb.Database) -> Callable[..., tallydb.Table]:
    """``make_table("videos", hash_key=("PK", "S"), range_key=("SK", "S"))``:
    a fresh, uniquely named table."""

    def make(prefix: str = "t", **kwargs: Any) -> tallydb.Table:
        kwargs.setdefault("hash_key", ("PK", "S"))
        return db.create_table(unique(prefix), **kwargs)

    return make


@pytest.fixture
def videos(make_table: Callable[..., tallydb.Table]) -> tallydb.Table:
    """A table with PK (S) and SK (S), as in the contract's examples."""
    return make_table("videos", hash_key=("PK", "S"), range_key=("SK", "S"))


@pytest.fixture
def items(make_table: Callable[..., tallydb.Table]) -> tallydb.Table:
    """A table with a hash key ``sku`` (S) only."""
    return make_table("items", hash_key=("sku", "S"))
