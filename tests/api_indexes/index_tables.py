"""Tables with secondary indexes for the index tests: one request builder,
one fixture factory (cleaned up at teardown)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError
from tallytest import unique_name


def gsi(name: str, hash: str, range: str | None = None, projection: str = "ALL",
        include: list[str] | None = None) -> dict[str, Any]:
    """A GlobalSecondaryIndexes entry (on-demand: no throughput)."""
    schema = [{"AttributeName": hash, "KeyType": "HASH"}]
    if range is not None:
        schema.append({"AttributeName": range, "KeyType": "RANGE"})
    declared: dict[str, Any] = {"ProjectionType": projection}
    if include is not None:
        declared["NonKeyAttributes"] = include
    return {"IndexName": name, "KeySchema": schema, "Projection": declared}


def lsi(name: str, hash: str, range: str, projection: str = "ALL",
        include: list[str] | None = None) -> dict[str, Any]:
    return gsi(name, hash, range, projection, include)


def create(ddb: Any, name: str, keys: list[tuple[str, str]], attributes: dict[str, str],
           gsis: list[dict[str, Any]] | None = None,
           lsis: list[dict[str, Any]] | None = None) -> str:
    """CreateTable (PAY_PER_REQUEST) keyed by ``keys`` [(name, HASH|RANGE)],
    ``attributes`` {name: type} defining every key attribute."""
    request: dict[str, Any] = {
        "TableName": name,
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": n, "AttributeType": t}
                                 for n, t in attributes.items()],
        "KeySchema": [{"AttributeName": n, "KeyType": k} for n, k in keys],
    }
    if gsis:
        request["GlobalSecondaryIndexes"] = gsis
    if lsis:
        request["LocalSecondaryIndexes"] = lsis
    ddb.create_table(**request)
    return name


@pytest.fixture
def make_indexed(ddb: Any) -> Iterator[Any]:
    """``make_indexed(prefix, keys, attributes, gsis=..., lsis=...) -> name``."""
    created: list[str] = []

    def make(prefix: str, keys: list[tuple[str, str]], attributes: dict[str, str],
             **indexes: Any) -> str:
        name = unique_name(prefix)
        created.append(name)
        return create(ddb, name, keys, attributes, **indexes)

    yield make
    for name in created:
        with contextlib.suppress(ClientError):
            ddb.delete_table(TableName=name)


def query_all(ddb: Any, **kwargs: Any) -> list[dict[str, Any]]:
    """Every item of a Query, page after page."""
    items: list[dict[str, Any]] = []
    while True:
        page = ddb.query(**kwargs)
        items += page["Items"]
        if "LastEvaluatedKey" not in page:
            return items
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def scan_all(ddb: Any, **kwargs: Any) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    while True:
        page = ddb.scan(**kwargs)
        items += page["Items"]
        if "LastEvaluatedKey" not in page:
            return items
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
