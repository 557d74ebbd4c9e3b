"""Fixtures for the toolkit's tests: one test, three stores.

``store`` is parametrized over

* ``embedded``: ``tallydb.connect(in_memory=True)``, the engine in-process;
* ``serve``:    a real ``tallydb serve`` subprocess (the root conftest's
  ``tallydb_server``), reached by boto3 over HTTP;
* ``moto``:     moto's server (``moto_server``) as an independent DynamoDB
  implementation: whatever passes there uses only standard requests;
* ``mock``:     ``tallydb.testing.mock_dynamodb()``: a boto3 client made with
  no endpoint, answered in-process by the mock;
* ``ddblocal``: Amazon's DynamoDB Local (the jar in npm's
  amplify-dynamodb-simulator, installed on first use; skipped without Java),
  the official emulator, as a second independent implementation.

``TALLYDB_TOOLKIT_STORES=embedded,moto`` (say) narrows the set. A test that
meets one of moto's known deviations from DynamoDB is marked
``@pytest.mark.moto_deviation("why")`` and expected to fail on moto only
(the deviations are listed in tests/toolkit/MOTO.md);
``@pytest.mark.ddblocal_deviation("why")`` likewise for DynamoDB Local
(tests/toolkit/DYNAMODB_LOCAL.md).

``db`` is a ``tallydb.Database`` on the chosen store; ``make_table`` creates
uniquely named tables and deletes them afterwards.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from toolkit_stores import (
    SELECTED,
    DynamoDBLocal,
    MotoServer,
    aws_client,
    dynamodb_local_missing,
    http_client,
    unique,
)

import tallydb


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "moto_deviation(reason, strict=True): moto differs from DynamoDB here; xfail on moto "
        "(strict=False where moto only sometimes differs, e.g. races)",
    )
    config.addinivalue_line(
        "markers",
        "ddblocal_deviation(reason, strict=True): DynamoDB Local differs from DynamoDB here; "
        "xfail on DynamoDB Local",
    )
    config.addinivalue_line(
        "markers",
        "needs_operation(*names): skipped on tallydb's stores until tallydb has those operations",
    )


@pytest.fixture(scope="session")
def moto_server() -> Iterator[MotoServer]:
    server = MotoServer()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def dynamodb_local() -> Iterator[DynamoDBLocal]:
    missing = dynamodb_local_missing()
    if missing is not None:
        pytest.skip(f"DynamoDB Local: {missing}")
    server = DynamoDBLocal()
    yield server
    server.stop()


@pytest.fixture(params=SELECTED)
def store(request: pytest.FixtureRequest) -> str:
    """The name of the store this run of the test uses."""
    name: str = request.param
    needs = request.node.get_closest_marker("needs_operation")
    if needs is not None and name not in ("moto", "ddblocal"):
        from tallydb.engine.api import OPERATIONS

        missing = [op for op in needs.args if op not in OPERATIONS]
        if missing:
            pytest.skip(f"tallydb does not implement {', '.join(missing)} yet")
    for store, mark in (("moto", "moto_deviation"), ("ddblocal", "ddblocal_deviation")):
        marker = request.node.get_closest_marker(mark)
        if name == store and marker is not None:
            strict = marker.kwargs.get("strict", True)
            request.applymarker(
                pytest.mark.xfail(reason=f"{store}: {marker.args[0]}", strict=strict)
            )
    return name


def open_db(request: pytest.FixtureRequest, store: str) -> tallydb.Database:
    if store == "embedded":
        return tallydb.connect(in_memory=True)
    if store == "serve":
        server = request.getfixturevalue("tallydb_server")
        return tallydb.connect(client=http_client(server.url))
    if store == "mock":
        request.getfixturevalue("tallydb_mock")
        return tallydb.connect(client=aws_client())
    if store == "ddblocal":
        return tallydb.connect(client=http_client(request.getfixturevalue("dynamodb_local").url))
    server = request.getfixturevalue("moto_server")
    return tallydb.connect(client=http_client(server.url))


@pytest.fixture
def db(request: pytest.FixtureRequest, store: str) -> Iterator[tallydb.Database]:
    """A Database on the store; tables the test creates are deleted after it."""
    database = open_db(request, store)
    before = set(database.list_tables())
    yield database
    if store not in ("embedded", "mock"):
        for name in set(database.list_tables()) - before:
            with contextlib.suppress(tallydb.DynamoDBError):
                database.delete_table(name)
    database.close()


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
