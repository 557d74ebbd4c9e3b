"""What Streams keeps and for how long: records survive ``kill -9`` and a
restart (they commit with their item), sequence numbers keep increasing
after it, TTL's deletions are marked as DynamoDB's own, and records older
than 24 hours are trimmed by the sweeper's loop (reading before the trim
horizon is TrimmedDataAccessException).
"""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError
from streamkit import (
    check_counter_records,
    increment,
    read_all,
    server_streams_client,
    shard_of,
    table_with_stream,
)
from tallytest import CLIENT_CONFIG, error_of

from tallydb.engine.api import Engine
from tallydb.engine.storage import Store
from tallydb.toolkit import inprocess

DAY = 24 * 3600


@pytest.mark.timeout(120)
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_records_survive_kill_and_restart(tallydb_server_factory: Any, sig: int) -> None:
    server = tallydb_server_factory()
    ddb = server.client()
    table, arn = table_with_stream(ddb)
    increment(ddb, table, 100)
    before = read_all(server_streams_client(server.url), arn)
    if sig == signal.SIGKILL:
        server.kill()
        server.start()
    else:
        server.restart(sig)
    streams = server_streams_client(server.url)
    after = read_all(streams, arn)
    assert after == before
    check_counter_records(after, 100)
    increment(server.client(), table, 1)
    later = read_all(streams, arn)
    check_counter_records(later, 101)


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    engine = Engine(Store(tmp_path / "data"))
    yield engine
    engine.close()


def test_ttl_deletions_carry_the_service_identity(engine: Engine) -> None:
    ddb = inprocess.client(engine, config=CLIENT_CONFIG)
    streams = inprocess.streams_client(engine, config=CLIENT_CONFIG)
    table, arn = table_with_stream(ddb)
    ddb.update_time_to_live(TableName=table, TimeToLiveSpecification={
        "AttributeName": "expires", "Enabled": True})
    now = time.time()
    key = {"PK": {"S": "session"}, "SK": {"S": "1"}}
    ddb.put_item(TableName=table, Item={**key, "expires": {"N": str(int(now) - 10)}})
    ddb.delete_item(TableName=table, Key=key)  # a user's delete: no identity
    ddb.put_item(TableName=table, Item={**key, "expires": {"N": str(int(now) - 10)}})
    assert engine.sweep_expired(now=now) == 1
    records = read_all(streams, arn)
    assert [r["eventName"] for r in records] == ["INSERT", "REMOVE", "INSERT", "REMOVE"]
    assert "userIdentity" not in records[1]
    assert records[3]["userIdentity"] == {"Type": "Service",
                                          "PrincipalId": "dynamodb.amazonaws.com"}


def test_records_older_than_24_hours_are_trimmed(engine: Engine) -> None:
    ddb = inprocess.client(engine, config=CLIENT_CONFIG)
    streams = inprocess.streams_client(engine, config=CLIENT_CONFIG)
    table, arn = table_with_stream(ddb)
    increment(ddb, table, 3)
    first = read_all(streams, arn)[0]["dynamodb"]["SequenceNumber"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard_of(streams, arn),
                                          ShardIteratorType="AFTER_SEQUENCE_NUMBER",
                                          SequenceNumber=first)["ShardIterator"]
    engine.sweep_expired(now=time.time() + DAY - 60)  # not yet a day old
    assert len(read_all(streams, arn)) == 3
    assert engine.sweep_expired(now=time.time() + DAY + 60) == 3
    assert read_all(streams, arn) == []
    with pytest.raises(ClientError) as excinfo:
        streams.get_shard_iterator(StreamArn=arn, ShardId=shard_of(streams, arn),
                                   ShardIteratorType="AT_SEQUENCE_NUMBER", SequenceNumber=first)
    assert error_of(excinfo)[0] == "TrimmedDataAccessException"
    with pytest.raises(ClientError) as excinfo:  # issued before the trim
        streams.get_records(ShardIterator=iterator)
    assert error_of(excinfo) == (
        "TrimmedDataAccessException", "The data you are trying to access has been trimmed", 400)
    increment(ddb, table, 1)  # a new record, after the horizon: read from TRIM_HORIZON
    assert [r["eventName"] for r in read_all(streams, arn)] == ["MODIFY"]


def test_a_group_commit_keeps_exactly_its_committed_records(engine: Engine) -> None:
    """Records of one transaction share a stored row; an operation undone
    with its savepoint takes its records along, the others stay, in order."""
    from tallydb.engine.api import run

    ddb = inprocess.client(engine, config=CLIENT_CONFIG)
    streams = inprocess.streams_client(engine, config=CLIENT_CONFIG)
    table, arn = table_with_stream(ddb)
    add = {"TableName": table, "Key": {"PK": {"S": "c"}, "SK": {"S": "1"}},
           "UpdateExpression": "ADD n :one", "ExpressionAttributeValues": {":one": {"N": "1"}}}
    with engine.batch() as call:  # one transaction, as a server's group commit
        call("UpdateItem", add)
        call("UpdateItem", add)
    with engine.store.transaction() as txn:
        run(txn, "UpdateItem", add)  # n = 3
        with pytest.raises(RuntimeError), txn.savepoint():
            run(txn, "UpdateItem", add)  # undone with its savepoint
            raise RuntimeError("an operation failing after its write")
        with txn.savepoint():
            run(txn, "UpdateItem", add)  # n = 4
        run(txn, "UpdateItem", add)  # n = 5
    records = read_all(streams, arn)
    assert [r["dynamodb"]["NewImage"]["n"]["N"] for r in records] == ["1", "2", "3", "4", "5"]
    numbers = [int(r["dynamodb"]["SequenceNumber"]) for r in records]
    assert numbers == sorted(numbers)
    second = records[1]["dynamodb"]["SequenceNumber"]  # inside a stored row, not its first
    assert [r["dynamodb"]["NewImage"]["n"]["N"] for r in read_all(
        streams, arn, "AT_SEQUENCE_NUMBER", SequenceNumber=second)] == ["2", "3", "4", "5"]
    assert [r["dynamodb"]["NewImage"]["n"]["N"] for r in read_all(
        streams, arn, "AFTER_SEQUENCE_NUMBER", SequenceNumber=second)] == ["3", "4", "5"]
