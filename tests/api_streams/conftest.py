"""The DynamoDB Streams client of a backend: boto3's ``dynamodbstreams``
against the server's endpoint, or ``inprocess.streams_client``."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from tallytest import ACCESS_KEY, CLIENT_CONFIG, REGION, SECRET_KEY, Backend


def streams_client_of(backend: Any) -> Any:
    if backend.name == "server":
        return server_streams_client(backend.server.url)
    from tallydb import inprocess

    return inprocess.streams_client(backend.engine, config=CLIENT_CONFIG)


def server_streams_client(url: str) -> Any:
    return boto3.session.Session().client(
        "dynamodbstreams", endpoint_url=url, region_name=REGION,
        aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY, config=CLIENT_CONFIG)


@pytest.fixture
def streams(backend: Backend) -> Any:
    return streams_client_of(backend)
