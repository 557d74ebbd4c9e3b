"""A pytest plugin: a real DynamoDB endpoint for your tests, instead of mocks.

With tallydb installed the plugin is active (it is registered under pytest's
``pytest11`` entry point; otherwise add ``pytest_plugins = ["tallydb.testing"]``
to your ``conftest.py``). Your tests then ask for:

``tallydb_server``
    A throwaway ``tallydb serve`` started once per test session (per xdist
    worker) on a free loopback port, its data in a temporary directory, stopped
    at the end. ``.url`` is its endpoint.
``tallydb_endpoint``
    That URL, e.g. ``http://127.0.0.1:40312``.
``tallydb_client`` / ``tallydb_resource``
    A ``boto3.client("dynamodb")`` / ``boto3.resource("dynamodb")`` bound to
    it (region ``us-east-1``, dummy credentials). Tables a test creates are
    deleted after it, so tests do not see each other's tables.
``tallydb_db`` / ``tallydb_aio_db``
    The toolkit: ``tallydb.connect(client=tallydb_client)``, and the same for
    asyncio (a ``tallydb.aio.Database``, for ``async def`` tests under
    pytest-asyncio or anyio).
``tallydb_mock``
    :func:`mock_dynamodb` for the test: every boto3 DynamoDB client made
    without an ``endpoint_url`` is answered in-process by a fresh engine.

Tables a test creates are deleted after it, whichever client created them,
as soon as the test asks for any of these fixtures (``tallydb_endpoint``
included); ``tallydb_server.url`` is the endpoint without that clean-up.

::

    def test_signup_counts_once(tallydb_client):
        tallydb_client.create_table(TableName="users", ...)
        my_app.signup(tallydb_client, "ada")
        ...

``pytest --tallydb-endpoint http://127.0.0.1:8000`` (or the environment
variable ``TALLYDB_ENDPOINT``) runs the same fixtures against an endpoint you
started yourself (``tallydb serve``, DynamoDB Local, moto) instead.

Outside pytest, :func:`serve` is the same throwaway server as a context
manager::

    with tallydb.testing.serve() as server:
        client = server.client()

and :func:`mock_dynamodb` (from :mod:`tallydb.mock`) a drop-in for moto's
``mock_aws`` for DynamoDB: a context manager and a decorator::

    @mock_dynamodb()
    def test_signup():
        ddb = boto3.client("dynamodb", region_name="us-east-1")
"""

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
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest

from tallydb.mock import MockDynamoDB, mock_dynamodb

__all__ = ["LISTENING", "MockDynamoDB", "Server", "mock_dynamodb", "serve"]

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


# --------------------------------------------------------------------------
# pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tallydb")
    group.addoption(
        "--tallydb-endpoint",
        default=os.environ.get("TALLYDB_ENDPOINT"),
        help="use this DynamoDB endpoint for the tallydb fixtures instead of starting "
        "`tallydb serve` (also: TALLYDB_ENDPOINT)",
    )


@pytest.fixture(scope="session")
def tallydb_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    """A ``tallydb serve`` for the session, on a free port with temporary data."""
    endpoint = request.config.getoption("--tallydb-endpoint", default=None)
    if endpoint:
        yield Server(url=str(endpoint))
        return
    server = Server(tmp_path_factory.mktemp("tallydb-data"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def tallydb_endpoint(tallydb_server: Any) -> Iterator[str]:
    """The endpoint URL of :func:`tallydb_server`; tables created during the
    test, by any client, are deleted after it."""
    url: str = tallydb_server.url
    with _deleting_new_tables(tallydb_server.client()):
        yield url


@contextmanager
def _deleting_new_tables(client: Any) -> Iterator[None]:
    """Delete, on the way out, the tables created inside the block."""
    before = set(_tables(client))
    try:
        yield
    finally:
        for name in set(_tables(client)) - before:
            with suppress(Exception):  # already gone: fine
                client.delete_table(TableName=name)


def _tables(client: Any) -> list[str]:
    names: list[str] = []
    kwargs: dict[str, Any] = {}
    while True:
        page = client.list_tables(**kwargs)
        names += page.get("TableNames", [])
        if not page.get("LastEvaluatedTableName"):
            return names
        kwargs = {"ExclusiveStartTableName": page["LastEvaluatedTableName"]}


@pytest.fixture
def tallydb_client(tallydb_endpoint: str) -> Any:
    """A boto3 DynamoDB client bound to the test server (tables cleaned up)."""
    import boto3

    return boto3.session.Session().client(
        "dynamodb", endpoint_url=tallydb_endpoint, region_name=REGION, **CREDENTIALS
    )


@pytest.fixture
def tallydb_resource(tallydb_endpoint: str) -> Any:
    """A boto3 DynamoDB resource bound to the test server (tables cleaned up)."""
    import boto3

    return boto3.session.Session().resource(
        "dynamodb", endpoint_url=tallydb_endpoint, region_name=REGION, **CREDENTIALS
    )


@pytest.fixture
def tallydb_db(tallydb_client: Any) -> Iterator[Any]:
    """The toolkit, connected to the test server: ``tallydb.connect(client=...)``."""
    import tallydb

    db = tallydb.connect(client=tallydb_client)
    yield db
    db.close()


@pytest.fixture
def tallydb_aio_db(tallydb_client: Any) -> Iterator[Any]:
    """The asyncio toolkit on the test server: ``tallydb.aio.connect(client=...)``."""
    from tallydb import aio

    db = aio.connect(client=tallydb_client)
    yield db
    db.transport.close()


@pytest.fixture
def tallydb_mock() -> Iterator[MockDynamoDB]:
    """:func:`mock_dynamodb` for the test: boto3 DynamoDB clients made without
    an ``endpoint_url`` are answered by a fresh in-process engine."""
    with mock_dynamodb() as mock:
        yield mock
