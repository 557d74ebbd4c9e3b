"""Helpers the Streams tests share: Streams clients, a table with a stream,
and reading a whole shard from TRIM_HORIZON."""

from __future__ import annotations

import base64
import hashlib
import hmac
from pathlib import Path
from typing import Any

import orjson
from tallytest import (
    ACCESS_KEY,
    CLIENT_CONFIG,
    REGION,
    SECRET_KEY,
    session_client,
    shared_session,
    unique_name,
)


def table_with_stream(ddb: Any, view: str = "NEW_AND_OLD_IMAGES", prefix: str = "str") -> tuple[
        str, str]:
    """A new table keyed PK/SK with a stream of ``view``; (name, stream ARN)."""
    name = unique_name(prefix)
    answer = ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                              {"AttributeName": "SK", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                   {"AttributeName": "SK", "KeyType": "RANGE"}],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": view})
    return name, answer["TableDescription"]["LatestStreamArn"]


def shard_of(streams: Any, arn: str) -> str:
    return str(streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"])


def read_all(streams: Any, arn: str, kind: str = "TRIM_HORIZON", limit: int | None = None,
             **position: Any) -> list[dict[str, Any]]:
    """Every record of the stream's shard from ``kind``, page by page."""
    iterator = streams.get_shard_iterator(
        StreamArn=arn, ShardId=shard_of(streams, arn), ShardIteratorType=kind,
        **position)["ShardIterator"]
    records: list[dict[str, Any]] = []
    while iterator:
        page = streams.get_records(ShardIterator=iterator, **({"Limit": limit} if limit else {}))
        records += page["Records"]
        if not page["Records"]:
            break
        iterator = page.get("NextShardIterator")
    return records


KEY = {"PK": {"S": "VID#9f3a"}, "SK": {"S": "STATS#TOTAL"}}


def increment(ddb: Any, table: str, times: int) -> None:
    for _ in range(times):
        ddb.update_item(TableName=table, Key=KEY, UpdateExpression="ADD play_count :one",
                        ExpressionAttributeValues={":one": {"N": "1"}})


def check_counter_records(records: list[dict[str, Any]], count: int) -> None:
    """1 INSERT then MODIFYs from n-1 to n, SequenceNumbers increasing."""
    assert [r["eventName"] for r in records] == ["INSERT"] + ["MODIFY"] * (count - 1)
    for n, record in enumerate(records, start=1):
        change = record["dynamodb"]
        assert change["Keys"] == KEY
        assert change["NewImage"]["play_count"] == {"N": str(n)}
        if n > 1:
            assert change["OldImage"]["play_count"] == {"N": str(n - 1)}
        else:
            assert "OldImage" not in change
    numbers = [int(r["dynamodb"]["SequenceNumber"]) for r in records]
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)


def streams_client_of(backend: Any) -> Any:
    if backend.name == "server":
        return server_streams_client(backend.server.url)
    from tallydb.toolkit import inprocess

    with shared_session() as session:
        return inprocess.streams_client(backend.engine, config=CLIENT_CONFIG, session=session)


def server_streams_client(url: str) -> Any:
    return session_client(
        "dynamodbstreams", endpoint_url=url, region_name=REGION,
        aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY, config=CLIENT_CONFIG)


def data_directory(backend: Any) -> Path:
    """Where a backend keeps its data (the server's --data, the engine's store)."""
    if backend.name == "server":
        return Path(backend.server.data)
    return Path(backend.engine.store.directory)


def signed_iterator(data: Path, arn: str, shard: str, after: int, issued: float) -> str:
    """A shard iterator as the server whose data is in ``data`` signs one:
    its fields, then an HMAC-SHA256 (16 bytes) under the key kept there
    (made with the server's first iterator: issue one before)."""
    key = (data / "shard-iterator.key").read_bytes()
    payload = orjson.dumps([arn, shard, after, issued])
    mac = hmac.new(key, payload, hashlib.sha256).digest()[:16]
    return base64.urlsafe_b64encode(payload + mac).decode()
