"""Kinesis Data Streams destinations: each committed change of a table, as
DynamoDB's Kinesis record, sent to a Kinesis stream in the background.

A table's destinations are kept in its description (``KINESIS``): each
stream's ARN, status and ApproximateCreationDateTimePrecision. While one is
ACTIVE or ENABLING, the table's changes are captured as its DynamoDB stream's
are (``_stream_records.capture``, NEW_AND_OLD_IMAGES), as rows of the
table's stream source under a shard of their own (``OUTBOX``): written in
the same transaction as the item, so exactly as durable as the write, and
a rolled-back write leaves none. That is the change feed made durable: the
forwarder (``_kinesis_forwarder``) reads the rows in commit order, sends
their records, and deletes a row once Kinesis has taken all of it. A row
sent but not yet deleted when the server stops (or is killed) is sent again
at the next start: at least once, in order per item (one partition key per
item, so one shard). No operation talks to Kinesis: Enable records the
destination ENABLING and the forwarder moves it to ACTIVE (or ENABLE_FAILED
when the stream does not exist); an unreachable endpoint is reported in
DestinationStatusDescription while the records wait, and writes never wait
for it.

A record, as DynamoDB writes it to Kinesis (its "Kinesis Data Streams"
format, which differs from the Streams API's)::

    {"awsRegion": ..., "eventID": ..., "eventName": "INSERT" | "MODIFY" | "REMOVE",
     "userIdentity": null, "recordFormat": "application/json", "tableName": ...,
     "dynamodb": {"ApproximateCreationDateTime": <epoch ms, or µs>, "Keys": ...,
                  "NewImage": ..., "OldImage": ..., "SizeBytes": ...,
                  "ApproximateCreationDateTimePrecision": "MILLISECOND" | "MICROSECOND"},
     "eventSource": "aws:dynamodb"}
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterator
from typing import Any, Protocol

import orjson

from tallydb.engine.api._stream_records import EVENTS, SAME_AS_LAST, _Capture
from tallydb.engine.storage import TableRecord
from tallydb.engine.values import item_size

__all__ = [
    "CAPTURE", "KINESIS", "OUTBOX", "KinesisError", "KinesisSender", "captures", "records_of",
]

#: In a description: {"destinations": [...]} once a destination was enabled.
KINESIS = "_Kinesis"
#: In a description while a destination takes changes: the capture's {"shard", "view"}.
CAPTURE = "_KinesisCapture"
#: The shard (stream source hk) of the records waiting to be sent.
OUTBOX = "kinesis-outbox"
#: The Kinesis destinations' captures, by catalog record (``capture``'s ``captures``).
captures: dict[int, _Capture] = {}
_SERVICE = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}


class KinesisError(Exception):
    """Kinesis could not be reached, or refused: ``missing`` when the stream
    does not exist."""

    def __init__(self, message: str, missing: bool = False) -> None:
        super().__init__(message)
        self.missing = missing


class KinesisSender(Protocol):
    """The little of Kinesis a destination needs (``tallydb.server.connectors``)."""

    def check_stream(self, stream_arn: str) -> None:
        """Raise KinesisError unless the stream exists and takes records."""
        ...

    def put_records(self, stream_arn: str, records: list[tuple[str, bytes]]) -> list[bool]:
        """Send (partition key, data) records in order; whether each was taken."""
        ...

    def describe(self) -> str: ...


def records_of(entries: list[list[Any]], record: TableRecord, region: str,
               precision: str) -> Iterator[tuple[str, bytes]]:
    """(partition key, data) of each Kinesis record of one stored row."""
    names = tuple(k["AttributeName"] for k in record.description["KeySchema"])
    table = record.name
    micro = precision == "MICROSECOND"
    last_new = None
    for seq, event, keys, new, old, by_service in entries:
        if old == SAME_AS_LAST:
            old = last_new
        last_new = new
        image = new if new is not None else old
        if keys is None:
            keys = {name: image[name] for name in names}
        size = item_size(keys)
        dynamodb: dict[str, Any] = {
            "ApproximateCreationDateTime": seq // 1000 if micro else seq // 1_000_000,
            "Keys": keys,
        }
        if new is not None:
            dynamodb["NewImage"] = new
            size += item_size(new)
        if old is not None:
            dynamodb["OldImage"] = old
            size += item_size(old)
        dynamodb["SizeBytes"] = size
        dynamodb["ApproximateCreationDateTimePrecision"] = precision
        data = {
            "awsRegion": region,
            "eventID": str(uuid.UUID(int=seq)),  # the same on a resend: a consumer can dedupe
            "eventName": EVENTS[event],
            "userIdentity": _SERVICE if by_service else None,
            "recordFormat": "application/json",
            "tableName": table,
            "dynamodb": dynamodb,
            "eventSource": "aws:dynamodb",
        }
        key = hashlib.md5(orjson.dumps([keys[name] for name in names])).hexdigest()
        yield key, orjson.dumps(data)
