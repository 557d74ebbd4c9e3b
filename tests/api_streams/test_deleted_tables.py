"""A deleted table's streams, as DynamoDB keeps them: DeleteTable's API
reference says the table's stream "goes into the DISABLED state, and the
stream is automatically deleted after 24 hours". Until then ListStreams
lists it, DescribeStream says DISABLED with a closed shard, and GetRecords
reads what was written; the items DeleteTable removes write no records
(the reference documents none: they are not item-level changes).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError
from streamkit import KEY, check_counter_records, increment, read_all, table_with_stream
from tallytest import CLIENT_CONFIG, error_of

from tallydb.engine.api import Engine
from tallydb.engine.storage import Store
from tallydb.toolkit import inprocess

DAY = 24 * 3600


def listed(streams: Any, table: str) -> list[str]:
    return [s["StreamArn"] for s in streams.list_streams(TableName=table)["Streams"]]


def test_a_deleted_tables_stream_stays_readable_and_disabled(ddb: Any, streams: Any) -> None:
    table, arn = table_with_stream(ddb)
    increment(ddb, table, 5)
    ddb.delete_table(TableName=table)
    assert listed(streams, table) == [arn]
    description = streams.describe_stream(StreamArn=arn)["StreamDescription"]
    assert description["StreamStatus"] == "DISABLED"
    assert description["TableName"] == table
    assert "EndingSequenceNumber" in description["Shards"][0]["SequenceNumberRange"]
    records = read_all(streams, arn)
    check_counter_records(records, 5)  # and no REMOVE for the deleted item
    shard = description["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                          ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    page = streams.get_records(ShardIterator=iterator)
    assert len(page["Records"]) == 5 and "NextShardIterator" not in page  # a closed shard


def test_a_table_created_again_has_a_new_stream_beside_the_old(ddb: Any, streams: Any) -> None:
    table, old = table_with_stream(ddb)
    increment(ddb, table, 2)
    ddb.delete_table(TableName=table)
    ddb.create_table(
        TableName=table, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                              {"AttributeName": "SK", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                   {"AttributeName": "SK", "KeyType": "RANGE"}],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
    new = ddb.describe_table(TableName=table)["Table"]["LatestStreamArn"]
    assert new != old and sorted(listed(streams, table)) == sorted([old, new])
    ddb.put_item(TableName=table, Item=KEY)
    check_counter_records(read_all(streams, old), 2)
    assert [r["eventName"] for r in read_all(streams, new)] == ["INSERT"]
    assert streams.describe_stream(StreamArn=new)["StreamDescription"]["StreamStatus"] == (
        "ENABLED")


def test_a_table_without_streams_leaves_nothing(ddb: Any, streams: Any) -> None:
    table, arn = table_with_stream(ddb)
    ddb.update_table(TableName=table, StreamSpecification={"StreamEnabled": False})
    ddb.delete_table(TableName=table)
    assert listed(streams, table) == [arn]  # disabled before, retained all the same
    ddb.create_table(
        TableName=table, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}])
    ddb.delete_table(TableName=table)
    assert listed(streams, table) == [arn]


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def engine(data: Path) -> Iterator[Engine]:
    engine = Engine(Store(data))
    yield engine
    engine.close()


def test_a_deleted_tables_stream_survives_a_restart_and_goes_after_24_hours(
        data: Path, engine: Engine) -> None:
    ddb = inprocess.client(engine, config=CLIENT_CONFIG)
    table, arn = table_with_stream(ddb)
    increment(ddb, table, 3)
    ddb.delete_table(TableName=table)
    engine.close()
    engine = Engine(Store(data))
    try:
        streams = inprocess.streams_client(engine, config=CLIENT_CONFIG)
        check_counter_records(read_all(streams, arn), 3)
        engine.sweep_expired(now=time.time() + DAY - 60)  # not yet a day
        assert listed(streams, table) == [arn]
        check_counter_records(read_all(streams, arn), 3)
        assert engine.sweep_expired(now=time.time() + DAY + 60) == 3
        assert listed(streams, table) == []
        with pytest.raises(ClientError) as excinfo:
            streams.describe_stream(StreamArn=arn)
        assert error_of(excinfo) == (
            "ResourceNotFoundException",
            f"Requested resource not found: Stream: {arn} not found", 400)
        with engine.store.transaction() as txn:
            assert txn.retired_tables() == []  # its records' table dropped too
    finally:
        engine.close()
