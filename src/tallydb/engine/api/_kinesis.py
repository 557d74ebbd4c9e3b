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
from collections.abc import Callable, Iterable
from typing import Any, Final, Protocol

import orjson
from pybase64 import b64encode

from tallydb.engine.api._stream_records import SAME_AS_LAST, STREAM_SOURCE, read_through
from tallydb.engine.storage import Store, TableRecord, Transaction
from tallydb.engine.values import Item, item_size
from tallydb.engine.values.size import attribute_size

__all__ = [
    "CAPTURE", "KINESIS", "OUTBOX", "Change", "KinesisError", "KinesisSender", "RecordMaker",
    "changes_of", "drop_outbox", "key_names", "put_records_body", "read_outbox", "records_of",
]

#: In a description: {"destinations": [...]} once a destination was enabled.
KINESIS: Final = "_Kinesis"
#: In a description while a destination takes changes: the capture's {"shard", "view"}.
CAPTURE: Final = "_KinesisCapture"
#: The shard (stream source hk) of the records waiting to be sent.
OUTBOX: Final = "kinesis-outbox"
_OUTBOX_HK: Final = OUTBOX.encode()
_SERVICE: Final = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}
_dumps: Final = orjson.dumps
_SERVICE_JSON: Final = _dumps(_SERVICE)
#: What follows a PutRecords entry (after its closing brace): the next one's start.
_NEXT: Final = b',{"Data":"'


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


def read_outbox(store: Store, record: TableRecord, arn: str, read_bytes: int,
                after: bytes | None) -> tuple[TableRecord, dict[str, Any] | None,
                                              list[tuple[bytes, bytes]], bool] | None:
    """One look at a destination's outbox, under the writer: the table as
    it is now (an update of the precision committed before a row is always
    seen with that row), its destination of ``arn`` (None: no longer), the
    oldest rows (rk, stored JSON) after ``after`` (every row up to it sent
    and deleted) until they hold ``read_bytes``, and whether more wait;
    None when the table is gone. The rows read take no more records
    (``read_through``). (Here rather than in the forwarder's module, which
    is left pure, so that the read under the writer is compiled code.)"""
    with store.transaction() as txn:
        current = txn.table_by_key(record.key)
        if current is None or current.id != record.id or STREAM_SOURCE not in current.indexes:
            return None
        destination = None
        for found in current.description.get(KINESIS, {}).get("destinations", []):
            if found["StreamArn"] == arn:
                destination = found
                break
        blobs: list[tuple[bytes, bytes]] = []
        read = 0
        more = False
        for rk, blob in txn.appended_rows(current, STREAM_SOURCE, _OUTBOX_HK, after):
            if read >= read_bytes:
                more = True
                break
            blobs.append((rk, blob))
            read += len(blob)
        if blobs:  # sent and deleted whole: none of them takes more records
            read_through(current.id, blobs[-1][0])
    return current, destination, blobs, more


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

    def put_records(self, stream_arn: str, partitions: list[str], data: list[bytes]
                    ) -> list[bool]:
        """Send records in order, each its partition key (``partitions``)
        and its data as base64 (``data``: as PutRecords carries it);
        whether each was taken."""
        ...

    def describe(self) -> str: ...


#: Partition keys by the key's JSON (an item's records all carry its own).
_partition_keys: Final[dict[bytes, str]] = {}
#: A record's eventID: a UUID's text made of its sequence number (the same on
#: a resend), which is below 2**64 (nanoseconds since 1970, until 2554).
_EVENT_ID: Final = b"00000000-0000-0000-%04x-%012x"
#: The last digit of a whole number without trailing zeros.
_NONZERO: Final = "123456789"


def _partition_key(encoded_key: bytes) -> str:
    partition = _partition_keys.get(encoded_key)
    if partition is None:
        if len(_partition_keys) > 4096:
            _partition_keys.clear()
        partition = _partition_keys[encoded_key] = hashlib.md5(encoded_key).hexdigest()
    return partition


def _name_size(name: str) -> int:
    return len(name) if name.isascii() else len(name.encode("utf-8"))


def size_after(new: Item, old: Item, old_size: int) -> int:
    """``new``'s size (``item_size``), from ``old``'s: only the attributes
    that differ between them are sized (a counter's update: one number)."""
    size = old_size
    kept = 0
    for name, value in new.items():
        before = old.get(name)
        if before is None:
            size += _name_size(name) + attribute_size(value)
        else:
            kept += 1
            if before is not value and before != value:
                size += attribute_size(value) - attribute_size(before)
    if kept != len(old):  # attributes removed
        for name, value in old.items():
            if name not in new:
                size -= _name_size(name) + attribute_size(value)
    return size


def key_names(record: TableRecord) -> tuple[str, ...]:
    """The names of a table's key attributes (partition key first)."""
    return tuple(k["AttributeName"] for k in record.description["KeySchema"])


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


#: The pieces of a record between its parts (``RecordMaker``).
_OLD_IMAGE: Final = b',"OldImage":'
_SIZE_BYTES: Final = b',"SizeBytes":'
#: A record's event by (old image, new image) present: INSERT, MODIFY, REMOVE.
_INSERT: Final = 0
_MODIFY: Final = 2
_REMOVE: Final = 4
#: Three hex digits of each number below 4096 (an eventID's last six
#: digits: its sequence number's low bits, the only ones that change often).
_HEX: Final = [b"%03x" % n for n in range(4096)]


class RecordMaker:
    """The Kinesis records of a table's run of changes, made a change at a
    time (``add``, or a stored row's at once: ``add_row``), in order: each
    record's partition key in ``partitions``, its data in ``data`` (as
    base64 when ``encoded``: as PutRecords carries it) and its change's
    sequence number in ``numbers``.

    A record is DynamoDB's JSON object (the module docstring), its members in
    that order, joined from pieces made once per table (the members every
    record shares, up to its eventID, between its eventID and its time, and
    after its size), once per item (its key's JSON, partition key and
    size) or kept from the record before (the eventID's first digits, the
    time and size as text, when they are the same). Each image is encoded
    and sized once: an old image that is the record before's new one (the
    same object, or equal: a hot counter's run, across rows too) takes that
    one's JSON and size, and a new image that follows it is sized from it,
    from the values that differ (a counter's value sized as the new one
    is the next record's old value: its size is kept with it)."""

    def __init__(self, table: str, names: tuple[str, ...], region: str, precision: str,
                 encoded: bool) -> None:
        self.names = names
        self.encoded = encoded
        self.dumps: Callable[[Any], bytes] = _dumps  # an attribute: no global's lookup
        self.b64encode: Callable[[bytes], bytes] = b64encode
        self.divisor = 1000 if precision == "MICROSECOND" else 1_000_000
        self.head = b'{"awsRegion":' + _dumps(region) + b',"eventID":"00000000-0000-0000-'
        shared = (b',"recordFormat":"application/json","tableName":' + _dumps(table)
                  + b',"dynamodb":{"ApproximateCreationDateTime":')
        #: Between the eventID and the time, by event (``_INSERT`` ...) plus 1 when by TTL.
        self.events = [b'","eventName":"' + event + b'","userIdentity":' + identity + shared
                       for event in (b"INSERT", b"MODIFY", b"REMOVE")
                       for identity in (b"null", _SERVICE_JSON)]
        self.tail = (b',"ApproximateCreationDateTimePrecision":' + _dumps(precision)
                     + b'},"eventSource":"aws:dynamodb"}')
        self.partitions: list[str] = []
        self.data: list[bytes] = []
        self.numbers: list[int] = []
        #: The most bytes of a record's data (as kept: base64 when ``encoded``)
        #: and of a partition key.
        self.longest = 0
        self.longest_key = 0
        self.last_new: Item | None = None
        self.last_new_json = b""
        self.last_new_size = 0
        self.last_keys: dict[str, Any] | None = None
        self.keys_new = b""  # ',"Keys":' and the key's JSON, then ',"NewImage":'
        self.keys_old = b""  # the same, then ',"OldImage":'
        self.keys_size = 0
        self.partition = ""
        self.id_high = -1  # the sequence number's bits above the low 24 ...
        self.id_text = b""  # ... the record's start: to the eventID's last six digits
        self.time = -1
        self.time_text = b""
        self.size = -1
        self.size_tail = b""  # ',"SizeBytes":', the size and what follows it
        #: The last value sized in a new image (``_resized``), and its size.
        self.value: dict[str, Any] | None = None
        self.value_size = 0

    def add_row(self, entries: list[list[Any]], before: frozenset[int]) -> None:
        """The records of a stored row's changes (``changes_of``), but those
        of the sequence numbers in ``before`` (made, not kept: the records
        after them take their images)."""
        last = None
        for seq, _, _, new, old, by_service in entries:
            self.add(seq, last if old == SAME_AS_LAST else old, new, by_service)
            last = new
            if before and seq in before:
                self.partitions.pop()
                self.data.pop()
                self.numbers.pop()

    def add(self, seq: int, old: Item | None, new: Item | None, by_service: bool) -> None:
        """The record of one change (``Change``), after those made before."""
        last_new = self.last_new
        new_json = b""
        new_size = 0
        if old is not None and (old is last_new or old == last_new):
            # the record before's new image: the same item, its keys, JSON and size
            old_json = self.last_new_json
            old_size = self.last_new_size
            if new is not None:
                new_json = self.dumps(new)
                if by_service or len(new) != len(old):
                    new_size = size_after(new, old, old_size)
                else:  # only values changed (a counter's run): size those
                    new_size = self._resized(new, old, old_size)
        else:
            old_json = b""
            old_size = 0
            if new is not None:
                new_json = self.dumps(new)
                new_size = item_size(new)
            if old is not None:
                old_json = self.dumps(old)
                old_size = item_size(old)
            image = new if new is not None else old
            assert image is not None
            keys = {name: image[name] for name in self.names}
            if keys != self.last_keys:
                keys_json = b',"Keys":' + self.dumps(keys)
                self.keys_new = keys_json + b',"NewImage":'
                self.keys_old = keys_json + _OLD_IMAGE
                self.partition = _partition_key(self.dumps([keys[name] for name in self.names]))
                self.longest_key = max(self.longest_key, len(self.partition))
                self.keys_size = item_size(keys)
                self.last_keys = keys
        high = seq >> 24
        if high != self.id_high:
            self.id_high = high
            self.id_text = self.head + b"%04x-%06x" % (seq >> 48, high & 0xFF_FFFF)
        when = seq // self.divisor
        if when != self.time:
            self.time = when
            self.time_text = b"%d" % when
        size = self.keys_size + new_size + old_size
        if size != self.size:
            self.size = size
            self.size_tail = _SIZE_BYTES + b"%d" % size + self.tail
        low = seq & 0xFF_FFFF
        if new is None:
            data = b"".join([
                self.id_text, _HEX[low >> 12], _HEX[low & 0xFFF],
                self.events[_REMOVE + by_service], self.time_text, self.keys_old, old_json,
                self.size_tail])
        elif old is None:
            data = b"".join([
                self.id_text, _HEX[low >> 12], _HEX[low & 0xFFF],
                self.events[_INSERT + by_service], self.time_text, self.keys_new, new_json,
                self.size_tail])
        else:
            data = b"".join([
                self.id_text, _HEX[low >> 12], _HEX[low & 0xFFF],
                self.events[_MODIFY + by_service], self.time_text, self.keys_new, new_json,
                _OLD_IMAGE, old_json, self.size_tail])
        if self.encoded:
            data = self.b64encode(data)
        if len(data) > self.longest:
            self.longest = len(data)
        self.partitions.append(self.partition)
        self.data.append(data)
        self.numbers.append(seq)
        if new is None:
            self.last_new = None
        else:
            self.last_new = new
            self.last_new_json = new_json
            self.last_new_size = new_size

    def _resized(self, new: Item, old: Item, old_size: int) -> int:
        """``new``'s size from ``old``'s, their names the same in number
        (``size_after``; a counter's value sized without ``number_size``'s
        calls, and the last value sized kept with its size: it is the next
        record's old one)."""
        new_size = old_size
        names = self.names
        for name, value in new.items():
            before = old.get(name)
            if before is value or name in names:  # the same item: its key's the same
                continue
            if before is None:  # a name changed
                return size_after(new, old, old_size)
            if before != value:
                was = self.value_size if before is self.value else attribute_size(before)
                text: str | None = value.get("N")
                if text is not None and text[-1] in _NONZERO and text.isdigit():
                    # a counter's value: a whole number with no trailing
                    # zero, ``number_size`` without its calls
                    now = (len(text) + 3) >> 1
                else:
                    now = attribute_size(value)
                self.value = value
                self.value_size = now
                new_size += now - was
        return new_size


def records_of(changes: Iterable[Change], table: str, names: tuple[str, ...], region: str,
               precision: str) -> list[tuple[str, bytes]]:
    """(partition key, data) of each Kinesis record of a run of changes
    (``changes_of`` stored rows) of the table named ``table``, whose key
    attributes are ``names``, in order (``RecordMaker``)."""
    maker = RecordMaker(table, names, region, precision, False)
    for seq, old, new, by_service in changes:
        maker.add(seq, old, new, by_service)
    return list(zip(maker.partitions, maker.data, strict=True))


def put_records_body(stream_name: str, partitions: list[str], data: list[bytes]) -> bytes:
    """A PutRecords request's JSON: the records of ``partitions`` and
    ``data`` (already base64), in order; a run of records of one partition
    key (an item's) joined by the key's member and the next record's
    opening: one join a run."""
    parts: list[bytes] = [b'{"StreamName":', orjson.dumps(stream_name),
                          b',"Records":[{"Data":"']
    count = len(partitions)
    start = 0
    tail = b""
    while start < count:
        key = partitions[start]
        end = start + 1
        while end < count and partitions[end] == key:
            end += 1
        tail = b'","PartitionKey":' + orjson.dumps(key) + b"}"
        between = tail + _NEXT
        parts.append(between.join(data[start:end]))
        parts.append(between)
        start = end
    parts[-1] = tail + b"]}"
    return b"".join(parts)
