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


def _event_id(seq: int) -> str:
    """A UUID's text made of the sequence number: the same on a resend."""
    h = f"{seq:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


#: Partition keys by the key's JSON (an item's records all carry its own).
_partition_keys: dict[bytes, str] = {}


def records_of(entries: list[list[Any]], record: TableRecord, region: str,
               precision: str) -> Iterator[tuple[str, bytes]]:
    """(partition key, data) of each Kinesis record of one stored row.

    What records of one item share is made once: its key's JSON, partition
    key and size, and each image's size (an old image is the record
    before's new one)."""
    names = tuple(k["AttributeName"] for k in record.description["KeySchema"])
    table = record.name
    micro = precision == "MICROSECOND"
    dumps = orjson.dumps
    last_new: Any = None
    last_new_size = 0
    last_keys: dict[str, Any] | None = None
    keys_size = 0
    partition = ""
    for seq, event, keys, new, old, by_service in entries:
        old_size = -1
        if old == SAME_AS_LAST:
            old = last_new
            old_size = last_new_size
        image = new if new is not None else old
        if keys is None:
            keys = {name: image[name] for name in names}
        if keys != last_keys:
            encoded = dumps([keys[name] for name in names])
            partition = _partition_keys.get(encoded, "")
            if not partition:
                if len(_partition_keys) > 4096:
                    _partition_keys.clear()
                partition = _partition_keys[encoded] = hashlib.md5(encoded).hexdigest()
            keys_size = item_size(keys)
            last_keys = keys
        size = keys_size
        dynamodb: dict[str, Any] = {
            "ApproximateCreationDateTime": seq // 1000 if micro else seq // 1_000_000,
            "Keys": keys,
        }
        new_size = 0
        if new is not None:
            dynamodb["NewImage"] = new
            new_size = item_size(new)
            size += new_size
        if old is not None:
            dynamodb["OldImage"] = old
            size += old_size if old_size >= 0 else item_size(old)
        last_new, last_new_size = new, new_size
        dynamodb["SizeBytes"] = size
        dynamodb["ApproximateCreationDateTimePrecision"] = precision
        yield partition, dumps({
            "awsRegion": region,
            "eventID": _event_id(seq),
            "eventName": EVENTS[event],
            "userIdentity": _SERVICE if by_service else None,
            "recordFormat": "application/json",
            "tableName": table,
            "dynamodb": dynamodb,
            "eventSource": "aws:dynamodb",
        })
