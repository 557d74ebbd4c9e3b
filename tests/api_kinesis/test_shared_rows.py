"""A hot counter's small commits share Kinesis outbox rows (a row takes the
records of later commits until the forwarder reads it), and no record is
lost or sent twice for it: a change committed while the forwarder sends a
row goes into a row of its own, and arrives. In-process engines, their
records sent to kinesalite by the server's own Kinesis client (in the
forwarder's worker process), through a relay that runs something before
the first PutRecords reaches kinesalite (while the forwarder is between
reading rows and deleting them)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from kinesiskit import Kinesalite, Relay
from tallytest import unique_name

from tallydb.engine import Engine, Store
from tallydb.engine.api._kinesis import OUTBOX
from tallydb.engine.api._stream_records import STREAM_SOURCE
from tallydb.server.connectors import KinesisStreams

WAIT = 120.0
TABLE = {"TableName": "counted", "BillingMode": "PAY_PER_REQUEST",
         "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
         "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}]}
ADD = {"TableName": "counted", "Key": {"PK": {"S": "hot"}}, "UpdateExpression": "ADD n :one",
       "ExpressionAttributeValues": {":one": {"N": "1"}}}


def _engine(tmp_path: Path, relay: Relay) -> tuple[Engine, str]:
    kinesalite = relay.kinesalite
    engine = Engine(Store(tmp_path), kinesis=KinesisStreams(relay.url))
    engine.call("CreateTable", TABLE)
    stream = unique_name("shared")
    engine.call("EnableKinesisStreamingDestination", {
        "TableName": "counted", "StreamArn": kinesalite.create_stream(stream, shards=1)})
    deadline = time.monotonic() + WAIT
    while engine.call("DescribeKinesisStreamingDestination", {"TableName": "counted"})[
            "KinesisDataStreamDestinations"][0]["DestinationStatus"] != "ACTIVE":
        assert time.monotonic() < deadline, "the destination never became ACTIVE"
        time.sleep(0.02)
    return engine, stream


def _counts(kinesalite: Kinesalite, stream: str, expected: int) -> list[int]:
    """Every record's new count, in the order the stream holds them, once
    ``expected`` arrived (or ``WAIT`` passed)."""
    deadline = time.monotonic() + WAIT
    while True:
        records = kinesalite.records(stream)
        if len(records) >= expected or time.monotonic() > deadline:
            return [int(record["dynamodb"]["NewImage"]["n"]["N"]) for record in records]
        time.sleep(0.2)


def _outbox_rows(engine: Engine) -> int:
    with engine.store.transaction() as txn:
        record = txn.table("counted")
        assert record is not None
        return sum(1 for _ in txn.appended_rows(record, STREAM_SOURCE, OUTBOX.encode()))


def test_a_change_committed_while_a_row_is_sent_is_not_lost(
    tmp_path: Path, kinesalite: Kinesalite,
) -> None:
    """The forwarder deletes the rows it read once Kinesis took them: a
    commit made in between must not add its record to one of those rows."""
    engine: Engine | None = None

    def another_change() -> None:
        assert engine is not None
        with engine.batch() as call:
            call("UpdateItem", ADD)

    with Relay(kinesalite, another_change) as relay:
        engine, stream = _engine(tmp_path, relay)
        try:
            with engine.batch() as call:
                call("UpdateItem", ADD)
            assert _counts(kinesalite, stream, 2) == [1, 2]
        finally:
            engine.close()


def test_a_counters_commits_share_rows_and_each_record_arrives_once_in_order(
    tmp_path: Path, kinesalite: Kinesalite,
) -> None:
    sending = threading.Event()
    release = threading.Event()

    def hold() -> None:  # the forwarder waits here, holding the first row it read
        sending.set()
        release.wait(WAIT)

    with Relay(kinesalite, hold) as relay:
        engine, stream = _engine(tmp_path, relay)
        try:
            with engine.batch() as call:
                call("UpdateItem", ADD)
            assert sending.wait(WAIT)
            for _ in range(40):  # forty commits of one change each
                with engine.batch() as call:
                    call("UpdateItem", ADD)
            rows = _outbox_rows(engine)
            assert 2 <= rows <= 10  # the row being sent, and a few that the forty share
            release.set()
            assert _counts(kinesalite, stream, 41) == list(range(1, 42))
            deadline = time.monotonic() + WAIT
            while _outbox_rows(engine) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert _outbox_rows(engine) == 0
        finally:
            release.set()
            engine.close()
