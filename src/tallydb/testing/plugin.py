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
