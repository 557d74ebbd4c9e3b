"""Kinesis streaming destinations: Enable/Describe/Update/Disable through
boto3 against a real ``tallydb serve``, with kinesalite (a real Kinesis
implementation) receiving DynamoDB's Kinesis records."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError, ConnectTimeoutError, EndpointConnectionError
from kinesiskit import Kinesalite
from tallytest import TallyServer, unique_name

WAIT = 180.0


def _table(ddb: Any) -> str:
    name = unique_name("counted")
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}])
    return name


def _status(ddb: Any, table: str) -> dict[str, Any]:
    destinations = ddb.describe_kinesis_streaming_destination(
        TableName=table)["KinesisDataStreamDestinations"]
    assert len(destinations) == 1
    found: dict[str, Any] = destinations[0]
    return found


def _wait_status(ddb: Any, table: str, wanted: str) -> dict[str, Any]:
    deadline = time.monotonic() + WAIT
    while True:
        destination = _status(ddb, table)
        if destination["DestinationStatus"] == wanted or time.monotonic() > deadline:
            return destination
        time.sleep(0.1)


def _add(ddb: Any, table: str, key: str) -> None:
    """One ``ADD n :one``. A connection that could not even be opened (the
    request never left: nothing counted) is opened again until the server
    answers, within ``WAIT``; any other failure is the test's."""
    deadline = time.monotonic() + WAIT
    while True:
        try:
            ddb.update_item(TableName=table, Key={"PK": {"S": key}},
                            UpdateExpression="ADD n :one",
                            ExpressionAttributeValues={":one": {"N": "1"}})
            return
        except (EndpointConnectionError, ConnectTimeoutError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def _answering(server: TallyServer) -> None:
    """Wait (``WAIT`` at most) until the server answers a request."""
    deadline = time.monotonic() + WAIT
    while True:
        try:
            server.client().list_tables(Limit=1)
            return
        except (EndpointConnectionError, ConnectTimeoutError):
            assert server.running, f"tallydb serve exited:\n{server.log()}"
            assert time.monotonic() < deadline, f"tallydb serve never answered:\n{server.log()}"
            time.sleep(0.2)


def _increments(server: TallyServer, table: str, keys: list[str], each: int) -> None:
    """``each`` increments of every key, a thread per key; a thread's
    failure fails the test, with the server's log."""
    failures: list[BaseException] = []

    def run(key: str) -> None:
        try:
            ddb = server.client()
            for _ in range(each):
                _add(ddb, table, key)
        except BaseException as error:
            failures.append(error)

    _answering(server)
    threads = [threading.Thread(target=run, args=(key,)) for key in keys]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise AssertionError(f"increments failed (server running: {server.running}):\n"
                             f"{server.log()}") from failures[0]


def _delivered(kinesalite: Kinesalite, stream: str, expected: int) -> list[dict[str, Any]]:
    """The stream's records, first copy of each (a resend repeats a record
    with its eventID), once ``expected`` distinct ones arrived."""
    deadline = time.monotonic() + WAIT
    while True:
        seen: set[str] = set()
        distinct = []
        for record in kinesalite.records(stream):
            if record["eventID"] not in seen:
                seen.add(record["eventID"])
                distinct.append(record)
        if len(distinct) >= expected or time.monotonic() > deadline:
            return distinct
        time.sleep(0.5)


@pytest.mark.timeout(900)
def test_ten_thousand_increments_arrive_in_order_per_item_across_kill_9(
    tallydb_server_factory: Callable[..., TallyServer], kinesalite: Kinesalite,
) -> None:
    server = tallydb_server_factory(extra_args=("--kinesis-endpoint", kinesalite.url))
    ddb = server.client()
    table = _table(ddb)
    stream = unique_name("changes")
    arn = kinesalite.create_stream(stream)
    answer = ddb.enable_kinesis_streaming_destination(TableName=table, StreamArn=arn)
    assert answer["DestinationStatus"] == "ENABLING"
    assert _wait_status(ddb, table, "ACTIVE")["DestinationStatus"] == "ACTIVE"

    keys = ["hot-a", "hot-b", "hot-c", "hot-d"]
    _increments(server, table, keys, 1000)  # 4,000 acknowledged
    # Kinesis stops answering: the worker's PutRecords in flight holds rows
    # read before (or within a poll of) the stop, and the next 1,000 are
    # acknowledged and kept in the outbox when tallydb is killed, so the
    # restarted server has records of its own to send.
    kinesalite.process.send_signal(signal.SIGSTOP)
    try:
        _increments(server, table, keys, 250)  # 5,000 acknowledged
        server.stop(signal.SIGKILL)
    finally:
        kinesalite.process.send_signal(signal.SIGCONT)
    assert len(_delivered(kinesalite, stream, 0)) < 5_000
    server.start()
    _increments(server, table, keys, 1250)  # 5,000 more
    ddb = server.client()
    for key in keys:
        item = ddb.get_item(TableName=table, Key={"PK": {"S": key}}, ConsistentRead=True)
        assert item["Item"]["n"] == {"N": "2500"}

    records = _delivered(kinesalite, stream, 10_000)
    assert len(records) == 10_000
    by_key: dict[str, list[int]] = {key: [] for key in keys}
    partition: dict[str, set[str]] = {key: set() for key in keys}
    for record in records:
        assert record["eventSource"] == "aws:dynamodb"
        assert record["recordFormat"] == "application/json"
        assert record["tableName"] == table and record["awsRegion"] == "us-east-1"
        assert record["userIdentity"] is None
        change = record["dynamodb"]
        key = change["Keys"]["PK"]["S"]
        count = int(change["NewImage"]["n"]["N"])
        if count == 1:
            assert record["eventName"] == "INSERT" and "OldImage" not in change
        else:
            assert record["eventName"] == "MODIFY"
            assert change["OldImage"]["n"] == {"N": str(count - 1)}
        assert change["ApproximateCreationDateTimePrecision"] == "MILLISECOND"
        assert isinstance(change["ApproximateCreationDateTime"], int)
        assert change["SizeBytes"] > 0
        by_key[key].append(count)
        partition[key].add(record["_partitionKey"])
    for key in keys:
        assert by_key[key] == list(range(1, 2501)), key  # in order, none lost
        assert len(partition[key]) == 1  # one partition key per item: one shard


@pytest.mark.timeout(300)
def test_an_unreachable_endpoint_is_reported_and_writes_go_on(
    tallydb_server_factory: Callable[..., TallyServer],
) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]  # nothing listens here once closed
    server = tallydb_server_factory(
        extra_args=("--kinesis-endpoint", f"http://127.0.0.1:{closed}"))
    ddb = server.client()
    table = _table(ddb)
    arn = "arn:aws:kinesis:us-east-1:000000000000:stream/nowhere"
    ddb.enable_kinesis_streaming_destination(TableName=table, StreamArn=arn)
    deadline = time.monotonic() + WAIT
    while True:
        destination = _status(ddb, table)
        if "DestinationStatusDescription" in destination or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert destination["DestinationStatus"] == "ENABLING"
    assert "unreachable" in destination["DestinationStatusDescription"]
    for _ in range(200):
        _add(ddb, table, "still-counting")
    item = ddb.get_item(TableName=table, Key={"PK": {"S": "still-counting"}})
    assert item["Item"]["n"] == {"N": "200"}


@pytest.mark.timeout(300)
def test_destination_life_and_refusals(
    tallydb_server_factory: Callable[..., TallyServer], kinesalite: Kinesalite,
) -> None:
    server = tallydb_server_factory(extra_args=("--kinesis-endpoint", kinesalite.url))
    ddb = server.client()
    table = _table(ddb)
    missing = "arn:aws:kinesis:us-east-1:000000000000:stream/" + unique_name("missing")
    ddb.enable_kinesis_streaming_destination(TableName=table, StreamArn=missing)
    assert _wait_status(ddb, table, "ENABLE_FAILED")["DestinationStatus"] == "ENABLE_FAILED"

    stream = unique_name("precise")
    arn = kinesalite.create_stream(stream, shards=1)
    table = _table(ddb)
    ddb.enable_kinesis_streaming_destination(
        TableName=table, StreamArn=arn,
        EnableKinesisStreamingConfiguration={"ApproximateCreationDateTimePrecision": "MICROSECOND"})
    with pytest.raises(ClientError) as info:
        ddb.enable_kinesis_streaming_destination(TableName=table, StreamArn=arn)
    assert info.value.response["Error"]["Code"] == "ResourceInUseException"
    _wait_status(ddb, table, "ACTIVE")
    _add(ddb, table, "k")
    records = _delivered(kinesalite, stream, 1)
    assert records[0]["dynamodb"]["ApproximateCreationDateTimePrecision"] == "MICROSECOND"
    assert records[0]["dynamodb"]["ApproximateCreationDateTime"] > 10**15  # µs since 1970
    updated = ddb.update_kinesis_streaming_destination(
        TableName=table, StreamArn=arn,
        UpdateKinesisStreamingConfiguration={"ApproximateCreationDateTimePrecision": "MILLISECOND"})
    assert updated["UpdateKinesisStreamingConfiguration"] == {
        "ApproximateCreationDateTimePrecision": "MILLISECOND"}
    _add(ddb, table, "k")
    records = _delivered(kinesalite, stream, 2)
    assert records[1]["dynamodb"]["ApproximateCreationDateTimePrecision"] == "MILLISECOND"
    assert records[1]["dynamodb"]["ApproximateCreationDateTime"] < 10**15  # ms since 1970
    ddb.delete_item(TableName=table, Key={"PK": {"S": "k"}})
    removed = _delivered(kinesalite, stream, 3)[2]
    assert removed["eventName"] == "REMOVE" and removed["userIdentity"] is None
    assert removed["dynamodb"]["Keys"] == {"PK": {"S": "k"}}
    assert removed["dynamodb"]["OldImage"] == {"PK": {"S": "k"}, "n": {"N": "2"}}
    assert "NewImage" not in removed["dynamodb"]
    assert removed["dynamodb"]["SizeBytes"] > 0
    disabled = ddb.disable_kinesis_streaming_destination(TableName=table, StreamArn=arn)
    assert disabled["DestinationStatus"] == "DISABLING"
    assert _status(ddb, table)["DestinationStatus"] == "DISABLED"
    with pytest.raises(ClientError) as info:
        ddb.disable_kinesis_streaming_destination(TableName=table, StreamArn=arn)
    assert info.value.response["Error"]["Code"] == "ValidationException"
    with pytest.raises(ClientError) as info:
        ddb.describe_kinesis_streaming_destination(TableName="no-such-table")
    assert info.value.response["Error"]["Code"] == "ResourceNotFoundException"


@pytest.mark.timeout(300)
def test_records_a_throttled_shard_refuses_are_sent_again_alone_in_order(
    tallydb_server_factory: Callable[..., TallyServer], kinesalite: Kinesalite,
) -> None:
    """A PutRecords that Kinesis takes only in part (a throttled shard: the
    first records taken, the rest refused one by one) is followed by one of
    the refused records only: no record arrives twice, so every copy of an
    item's records is in order. (kinesalite_server.js throttles a stream
    named ``throttled-...`` to three records a call.)"""
    server = tallydb_server_factory(extra_args=("--kinesis-endpoint", kinesalite.url))
    ddb = server.client()
    table = _table(ddb)
    stream = unique_name("throttled")
    arn = kinesalite.create_stream(stream)
    ddb.enable_kinesis_streaming_destination(TableName=table, StreamArn=arn)
    assert _wait_status(ddb, table, "ACTIVE")["DestinationStatus"] == "ACTIVE"
    keys = [f"item-{i}" for i in range(10)]
    for n in range(1, 6):  # each batch one transaction: one outbox row of ten records
        ddb.batch_write_item(RequestItems={table: [
            {"PutRequest": {"Item": {"PK": {"S": key}, "n": {"N": str(n)}}}} for key in keys]})
    deadline = time.monotonic() + 120
    while True:
        copies = kinesalite.records(stream)
        if len(copies) >= 50 or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    by_key: dict[str, list[int]] = {key: [] for key in keys}
    for record in copies:
        by_key[record["dynamodb"]["Keys"]["PK"]["S"]].append(
            int(record["dynamodb"]["NewImage"]["n"]["N"]))
    for key in keys:
        assert by_key[key] == [1, 2, 3, 4, 5], key  # each once, in order
    assert "DestinationStatusDescription" not in _status(ddb, table)


@pytest.mark.timeout(300)
def test_a_new_destination_takes_only_the_changes_from_its_enabling_on(
    tallydb_server_factory: Callable[..., TallyServer], kinesalite: Kinesalite,
) -> None:
    """Records a disabled destination never sent (its stream gone) are not
    sent to the next destination enabled on the table: DynamoDB starts a
    destination's replication at its enabling."""
    server = tallydb_server_factory(extra_args=("--kinesis-endpoint", kinesalite.url))
    ddb = server.client()
    table = _table(ddb)
    first = unique_name("first")
    first_arn = kinesalite.create_stream(first, shards=1)
    ddb.enable_kinesis_streaming_destination(TableName=table, StreamArn=first_arn)
    assert _wait_status(ddb, table, "ACTIVE")["DestinationStatus"] == "ACTIVE"
    kinesalite.client().delete_stream(StreamName=first)  # its records now wait
    for _ in range(3):
        _add(ddb, table, "before")
    deadline = time.monotonic() + WAIT
    while "DestinationStatusDescription" not in _status(ddb, table):  # a send failed
        assert time.monotonic() < deadline, _status(ddb, table)
        time.sleep(0.1)
    ddb.disable_kinesis_streaming_destination(TableName=table, StreamArn=first_arn)

    second = unique_name("second")
    second_arn = kinesalite.create_stream(second, shards=1)
    ddb.enable_kinesis_streaming_destination(TableName=table, StreamArn=second_arn)
    deadline = time.monotonic() + WAIT
    while True:
        statuses = {d["StreamArn"]: d["DestinationStatus"] for d in
                    ddb.describe_kinesis_streaming_destination(
                        TableName=table)["KinesisDataStreamDestinations"]}
        if statuses[second_arn] == "ACTIVE":
            break
        assert time.monotonic() < deadline, statuses
        time.sleep(0.1)
    assert statuses[first_arn] == "DISABLED"
    _add(ddb, table, "after")
    # An outbox is sent oldest first: once the new change arrived, any
    # record left from the first destination would have arrived before it.
    records = _delivered(kinesalite, second, 1)
    assert [r["dynamodb"]["Keys"]["PK"]["S"] for r in records] == ["after"]
