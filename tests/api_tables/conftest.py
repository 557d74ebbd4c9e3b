"""Fixtures for the table operations' tests: a fresh in-memory Engine per test.

Each test gets its own ``Engine(Store(None))``, so ListTables sees exactly
the tables the test made. ``call`` runs a request in-process and answers the
response or the DynamoDBError; ``client``/``resource`` are real boto3 objects
(botocore's serializer, parser, waiters, resource API) whose HTTP send is
answered by the same engine through ``tallydb.toolkit.inprocess`` (a ``before-send``
handler: no socket). ``raw_client`` skips botocore's own parameter checks so
that requests DynamoDB itself must refuse reach tallydb.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from botocore.config import Config

from tallydb.engine.api import Engine
from tallydb.engine.errors import DynamoDBError
from tallydb.engine.storage import Store
from tallydb.toolkit import inprocess

NO_RETRIES = Config(retries={"total_max_attempts": 1})
RAW = Config(retries={"total_max_attempts": 1}, parameter_validation=False)


@pytest.fixture
def engine() -> Iterator[Engine]:
    engine = Engine(Store(None))
    yield engine
    engine.close()


@pytest.fixture
def call(engine: Engine) -> Callable[[str, dict[str, Any]], Any]:
    """``call(operation, request)``: the response dict, or the DynamoDBError raised."""

    def run(operation: str, request: dict[str, Any]) -> Any:
        try:
            return engine.call(operation, request)
        except DynamoDBError as error:
            return error

    return run


@pytest.fixture
def client(engine: Engine) -> Any:
    return inprocess.client(engine, config=NO_RETRIES)


@pytest.fixture
def raw_client(engine: Engine) -> Any:
    return inprocess.client(engine, config=RAW)


@pytest.fixture
def resource(engine: Engine) -> Any:
    return inprocess.resource(engine, config=NO_RETRIES)
