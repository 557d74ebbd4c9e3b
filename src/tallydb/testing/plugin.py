"""The pytest plugin: fixtures that give each test a real DynamoDB endpoint
(see :mod:`tallydb.testing` for the list)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

import pytest

from tallydb.testing.mock import MockDynamoDB, mock_dynamodb
from tallydb.testing.server import CREDENTIALS, REGION, Server


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tallydb")
    group.addoption(
        "--tallydb-endpoint",
        default=os.environ.get("TALLYDB_ENDPOINT"),
        help="use this DynamoDB endpoint for the tallydb fixtures instead of starting "
        "`tallydb serve` (also: TALLYDB_ENDPOINT); it must hold no table, unless "
        "--tallydb-allow-existing-tables",
    )
    group.addoption(
        "--tallydb-allow-existing-tables",
        action="store_true",
        default=False,
        help="run against a --tallydb-endpoint that already has tables: the tests may "
        "see them (those they create are still the only ones deleted)",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Refuse, before any test runs, an endpoint that already has tables
    (a test run must not see or change someone's tables), unless allowed.
    Checked once per run: by xdist's controller, not by each worker."""
    endpoint = config.getoption("--tallydb-endpoint", default=None)
    if not endpoint or hasattr(config, "workerinput"):
        return
    if config.getoption("--tallydb-allow-existing-tables", default=False):
        return
    try:
        existing = _tables(Server(url=str(endpoint)).client())
    except Exception as error:  # any failure to ask: say which endpoint, and why
        raise pytest.UsageError(
            f"--tallydb-endpoint {endpoint}: cannot list its tables ({error})") from None
    if existing:
        shown = ", ".join(existing[:5]) + (", ..." if len(existing) > 5 else "")
        raise pytest.UsageError(
            f"--tallydb-endpoint {endpoint} already has {len(existing)} table(s) ({shown}): "
            "the tests could see or change them. Point it at an empty server "
            "(tallydb serve --in-memory --port 8001), or add "
            "--tallydb-allow-existing-tables to run anyway (only the tables the tests "
            "create are deleted)."
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
def tallydb_endpoint(request: pytest.FixtureRequest, tallydb_server: Any) -> Iterator[str]:
    """The endpoint URL of :func:`tallydb_server`; tables created during the
    test are deleted after it. On the session's own server, every table
    created during the test, by any client or process; on a
    ``--tallydb-endpoint``, which others may use at the same time (other
    xdist workers, people), only those created by this process's boto3
    clients."""
    url: str = tallydb_server.url
    if request.config.getoption("--tallydb-endpoint", default=None):
        with _deleting_tables_created_here(tallydb_server.client(), url):
            yield url
        return
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


#: The requests that create a table, and the member that names it.
_CREATING = {
    "CreateTable": "TableName",
    "RestoreTableFromBackup": "TargetTableName",
    "RestoreTableToPointInTime": "TargetTableName",
}


@contextmanager
def _deleting_tables_created_here(client: Any, endpoint: str) -> Iterator[None]:
    """Delete, on the way out, the tables that a boto3 client of this
    process created on ``endpoint`` inside the block."""
    from botocore.client import BaseClient

    created: list[str] = []
    original = BaseClient._make_api_call
    where = endpoint.rstrip("/")

    def tracking(self: Any, operation: str, params: dict[str, Any]) -> Any:
        result = original(self, operation, params)
        member = _CREATING.get(operation)
        if (member is not None and self.meta.service_model.service_name == "dynamodb"
                and str(self.meta.endpoint_url).rstrip("/") == where):
            created.append(str(params.get(member)))
        return result

    BaseClient._make_api_call = tracking
    try:
        yield
    finally:
        BaseClient._make_api_call = original
        for name in dict.fromkeys(created):
            with suppress(Exception):  # deleted by the test itself: fine
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
    from tallydb.toolkit import aio

    db = aio.connect(client=tallydb_client)
    yield db
    db.transport.close()


@pytest.fixture
def tallydb_mock() -> Iterator[MockDynamoDB]:
    """:func:`mock_dynamodb` for the test: boto3 DynamoDB clients made without
    an ``endpoint_url`` are answered by a fresh in-process engine."""
    with mock_dynamodb() as mock:
        yield mock
