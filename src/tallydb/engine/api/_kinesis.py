"""Kinesis Data Streams destinations: each committed change of a table, as
DynamoDB's Kinesis record, sent to a Kinesis stream in the background.

A table's destinations are kept in its description (``KINESIS``): each
stream's ARN, status and ApproximateCreationDateTimePrecision. While one is
ACTIVE or ENABLING, the table's changes are captured as its DynamoDB
stream's are (``_stream_records.capture``, NEW_AND_OLD_IMAGES), as rows of
the table's stream source under a shard of their own (``OUTBOX``): written
in the same transaction as the item, so exactly as durable as the write,
and a rolled-back write leaves none. A row takes the records of later
commits too (put again, longer) until it holds ``SHARED_ROW_BYTES`` or the
forwarder reads it: a hot counter's small group commits share rows. That is
the change feed made durable: the forwarder (``_kinesis_forwarder``) reads
the rows in commit order, sends their records, and deletes a row once
Kinesis has taken all of it. A row sent but not yet deleted when the server
stops (or is killed) is sent again at the next start: at least once, in
order per item (one partition key per item, so one shard). No operation
talks to Kinesis: Enable records the destination ENABLING and the forwarder
moves it to ACTIVE (or ENABLE_FAILED when the stream does not exist); an
unreachable endpoint is reported in DestinationStatusDescription while the
records wait, and writes never wait for it.

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
from collections.abc import Iterable
from typing import Any, Protocol

import orjson

from tallydb.engine.api._stream_records import SAME_AS_LAST, STREAM_SOURCE
from tallydb.engine.storage import TableRecord, Transaction
from tallydb.engine.values import Item, item_size
from tallydb.engine.values.size import attribute_size

__all__ = [
    "CAPTURE", "KINESIS", "OUTBOX", "Change", "KinesisError", "KinesisSender", "changes_of",
    "drop_outbox", "key_names", "records_of",
]

#: In a description: {"destinations": [...]} once a destination was enabled.
KINESIS = "_Kinesis"
#: In a description while a destination takes changes: the capture's {"shard", "view"}.
CAPTURE = "_KinesisCapture"
#: The shard (stream source hk) of the records waiting to be sent.
OUTBOX = "kinesis-outbox"
_SERVICE = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}


def drop_outbox(txn: Transaction, record: TableRecord) -> None:
    """Delete the records waiting in the table's outbox, where its capture
    starts or stops: a destination takes the changes from its enabling on
    (DynamoDB starts its replication then), so none a destination disabled
    or failed before it had sent."""
    if STREAM_SOURCE not in record.indexes:
        return
    shard = OUTBOX.encode()
    for rk, _ in list(txn.appended_rows(record, STREAM_SOURCE, shard)):
        txn.delete_entry(record, STREAM_SOURCE, shard, rk)


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


#: Partition keys by the key's JSON (an item's records all carry its own).
_partition_keys: dict[bytes, str] = {}
#: A record's eventID: a UUID's text made of its sequence number (the same on
#: a resend), which is below 2**64 (nanoseconds since 1970, until 2554).
_EVENT_ID = b"00000000-0000-0000-%04x-%012x"
#: The last digit of a whole number without trailing zeros.
_NONZERO = "123456789"


def _partition_key(encoded_key: bytes) -> str:
    partition = _partition_keys.get(encoded_key)
    if partition is None:
        if len(_partition_keys) > 4096:
            _partition_keys.clear()
        partition = _partition_keys[encoded_key] = hashlib.md5(encoded_key).hexdigest()
    return partition


def _name_size(name: str) -> int:
    return len(name) if name.isascii() else len(name.encode("utf-8"))


def size_after(new: Item, old: Item, old_size: int, sized: dict[int, int] | None = None) -> int:
    """``new``'s size (``item_size``), from ``old``'s: only the attributes
    that differ between them are sized (a counter's update: one number).
    ``sized``: sizes of values by their ``id``, which the caller keeps alive
    (a run of records: a value sized as a new image's is the next old one's)."""
    size = old_size
    kept = 0
    if sized is None:
        sized = {}
    for name, value in new.items():
        before = old.get(name)
        if before is None:
            size += _name_size(name) + attribute_size(value)
        else:
            kept += 1
            if before is not value and before != value:
                was = sized.get(id(before))
                if was is None:
                    was = attribute_size(before)
                now = sized[id(value)] = attribute_size(value)
                size += now - was
    if kept != len(old):  # attributes removed
        for name, value in old.items():
            if name not in new:
                size -= _name_size(name) + attribute_size(value)
    return size


#: What every record of a table shares, by (table name, key names, region,
#: precision): what ``_shared`` gives.
_templates: dict[tuple[str, tuple[str, ...], str, str], tuple[bytes, bytes, int]] = {}
_SERVICE_JSON = orjson.dumps(_SERVICE)


def key_names(record: TableRecord) -> tuple[str, ...]:
    """The names of a table's key attributes (partition key first)."""
    return tuple(k["AttributeName"] for k in record.description["KeySchema"])


def _shared(table: str, names: tuple[str, ...], region: str, precision: str
            ) -> tuple[bytes, bytes, int]:
    """The records' % template, that of a MODIFY not made by TTL (a
    counter's run: eventID, ApproximateCreationDateTime, Keys, the new and
    the old image, SizeBytes) and the clock's divisor (made once, not once
    per row: a small group commit's row holds one record)."""
    key = (table, names, region, precision)
    cached = _templates.get(key)
    if cached is not None:
        return cached
    dumps = orjson.dumps

    def literal(value: str) -> bytes:  # JSON, as a piece of the % template
        return dumps(value).replace(b"%", b"%%")

    def made(event: bytes, identity: bytes, images: bytes) -> bytes:
        return (b'{"awsRegion":' + literal(region) + b',"eventID":"' + _EVENT_ID
                + b'","eventName":"' + event + b'","userIdentity":' + identity
                + b',"recordFormat":"application/json","tableName":' + literal(table)
                + b',"dynamodb":{"ApproximateCreationDateTime":%d,"Keys":%s' + images
                + b',"SizeBytes":%d,"ApproximateCreationDateTimePrecision":'
                + literal(precision) + b'},"eventSource":"aws:dynamodb"}')

    # eventID (two parts), eventName, userIdentity, ApproximateCreationDateTime,
    # Keys, images, SizeBytes
    template = made(b"%s", b"%s", b"%s")
    modify = made(b"MODIFY", b"null", b',"NewImage":%s,"OldImage":%s')
    if len(_templates) > 256:
        _templates.clear()
    found = _templates[key] = (template, modify,
                               1000 if precision == "MICROSECOND" else 1_000_000)
    return found


#: A change as a stored row gives it: (sequence number, old image, new
#: image, by TTL).
Change = tuple[int, Item | None, Item | None, bool]


def changes_of(entries: list[list[Any]]) -> list[Change]:
    """A stored row's changes (the old image that a row stores as
    ``SAME_AS_LAST`` is the record before's new one, the very object)."""
    changes: list[Change] = []
    last = None
    for seq, _, _, new, old, by_service in entries:
        changes.append((seq, last if old == SAME_AS_LAST else old, new, by_service))
        last = new
    return changes


def records_of(changes: Iterable[Change], table: str, names: tuple[str, ...], region: str,
               precision: str) -> list[tuple[str, bytes]]:
    """(partition key, data) of each Kinesis record of a run of changes
    (``changes_of`` stored rows) of the table named ``table``, whose key
    attributes are ``names``, in order.

    A record is DynamoDB's JSON object (the module docstring), its members in
    that order, put together from pieces made once per table (the members
    every record shares) or once per item (its key's JSON, partition key and
    size). Each image is encoded and sized once: an old image that is the
    record before's new one (the same object, or equal: a hot counter's run,
    across rows too) takes that one's JSON and size, and a new image that
    follows it is sized from it (``size_after``)."""
    template, modify, divisor = _shared(table, names, region, precision)
    dumps = orjson.dumps
    service = _SERVICE_JSON
    made: list[tuple[str, bytes]] = []
    append = made.append
    last_new: Any = None
    last_new_json = b""
    last_new_size = 0
    last_keys: dict[str, Any] | None = None
    keys_json = b""
    keys_size = 0
    partition = ""
    sized: dict[int, int] = {}  # the changes' values, alive while they are read
    for seq, old, new, by_service in changes:
        if (old is not None and new is not None and not by_service
                and (old is last_new or old == last_new)):
            # an update of the item of the record before (a counter's run):
            # its old image is that one's new image, JSON and size
            new_json = dumps(new)
            new_size = last_new_size
            if len(new) == len(old):  # only values changed: size those (``size_after``)
                for name, value in new.items():
                    before = old.get(name)
                    if before is value:
                        continue
                    if before is None:  # a name changed
                        new_size = size_after(new, old, last_new_size, sized)
                        break
                    if before != value:
                        was = sized.get(id(before))
                        if was is None:
                            was = attribute_size(before)
                        text = value.get("N")
                        if text is not None and text[-1] in _NONZERO and text.isdigit():
                            # a counter's value: a whole number with no trailing
                            # zero, ``number_size`` without its calls
                            now = (len(text) + 3) >> 1
                        else:
                            now = attribute_size(value)
                        sized[id(value)] = now
                        new_size += now - was
            else:
                new_size = size_after(new, old, last_new_size, sized)
            append((partition, modify % (
                seq >> 48, seq & 0xFFFF_FFFF_FFFF, seq // divisor, keys_json, new_json,
                last_new_json, keys_size + new_size + last_new_size)))
            last_new, last_new_json, last_new_size = new, new_json, new_size
            continue
        if old is not None and (old is last_new or old == last_new):
            # the record before's new image: the same item, its keys
            old_json, old_size = last_new_json, last_new_size
            if new is not None:
                new_json = dumps(new)
                new_size = size_after(new, old, old_size, sized)
        else:
            if new is not None:
                new_json = dumps(new)
                new_size = item_size(new)
            if old is not None:
                old_json = dumps(old)
                old_size = item_size(old)
            image = new if new is not None else old
            assert image is not None
            keys = {name: image[name] for name in names}
            if keys != last_keys:
                keys_json = dumps(keys)
                partition = _partition_key(dumps([keys[name] for name in names]))
                keys_size = item_size(keys)
                last_keys = keys
        size = keys_size
        if new is None:
            images = b""
            event = b"REMOVE"
        else:
            images = b',"NewImage":' + new_json
            size += new_size
            event = b"INSERT" if old is None else b"MODIFY"
        if old is not None:
            images += b',"OldImage":' + old_json
            size += old_size
        append((partition, template % (
            seq >> 48, seq & 0xFFFF_FFFF_FFFF, event,
            service if by_service else b"null", seq // divisor, keys_json, images, size)))
        if new is None:
            last_new = None
        else:
            last_new, last_new_json, last_new_size = new, new_json, new_size
    return made
