"""DynamoDB Streams: each table's change records, durable beside its items.

While a table's stream is enabled, ``write_item`` calls :func:`capture` for
every write that changes an item. The record is a row of the table's stream
source (an items table like an index's, ``STREAM_SOURCE``), keyed by the
shard (hk) and a sequence number (rk, 8 bytes big-endian), written in the
same store transaction as the item: item and record commit in one item-log
append, so a record is exactly as durable as its write and a rolled-back
write leaves none. A transaction's records share one row (:func:`capture`).

Sequence numbers come from one clock for the process: nanoseconds since the
epoch, strictly increasing (a write in the same nanosecond as the last
takes the next number), raised at start to the largest one stored
(:func:`recover`). They increase in commit order (there is one writer),
survive a restart, and tell each record's age, so the 24-hour trim
(:func:`trim`, run by the TTL sweeper's loop) is one range delete.

A table keeps the list of its streams (``_Streams`` in its description):
each enable starts a new stream with a new label, ARN and shard; a disabled
stream stays readable until its records age out. One shard per stream.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from typing import Any, cast

import orjson

from tallydb.api.describe_table import REGION, table_arn
from tallydb.errors import ValidationException
from tallydb.storage import TableRecord, Transaction
from tallydb.values import Item, item_size

#: The storage name of a table's stream source (``$`` takes no user index name).
STREAM_SOURCE = "$stream"
#: In a description while the stream is enabled: {"shard", "view"}.
CAPTURE = "_Stream"
#: Every stream a table has had and still retains, oldest first.
STREAMS = "_Streams"
RETENTION = 24 * 3600.0
#: Who TTL's deletions are made by, in their records (DynamoDB's own identity; the
#: Streams API spells the members as botocore's model does, Lambda events in lower case).
SERVICE_IDENTITY = {"Type": "Service", "PrincipalId": "dynamodb.amazonaws.com"}

#: UpdateTable's refusals (the AWS catalogue of 2026 records the first two).
ALREADY_ENABLED = "Table already has an enabled stream: TableName: {}"
NOTHING_TO_DISABLE = "Table has no stream to disable: TableName: {}"
VIEW_TYPE_REQUIRED = (
    "One or more parameter values were invalid: StreamViewType is required when enabling a "
    "stream")

_VIEWS_OLD = frozenset({"OLD_IMAGE", "NEW_AND_OLD_IMAGES"})
_VIEWS_NEW = frozenset({"NEW_IMAGE", "NEW_AND_OLD_IMAGES"})

_last = 0


def next_sequence() -> int:
    """The next sequence number: the clock in ns, above every one before."""
    global _last
    now = time.time_ns()
    _last = now if now > _last else _last + 1
    return _last


def last_sequence() -> int:
    return _last


def sequence_text(seq: int) -> str:
    """A SequenceNumber as the wire carries it: 21 digits (fixed width, so
    text order is number order)."""
    return f"{seq:021d}"


def _seconds_to_sequence(when: float) -> int:
    return int(when * 1_000_000_000)


# --- enabling and disabling ------------------------------------------------------


def enable(description: dict[str, Any], view: str, now: float) -> None:
    """Start a new stream on a table (a new label, ARN and shard)."""
    streams = list(description.get(STREAMS, ()))
    millis = int(now * 1000)
    if streams and streams[-1]["created_ms"] >= millis:
        millis = streams[-1]["created_ms"] + 1
    label = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(millis / 1000)) + \
        f".{millis % 1000:03d}"
    name = description["TableName"]
    shard = f"shardId-{millis:020d}-{hashlib.blake2b(label.encode(), digest_size=4).hexdigest()}"
    start = next_sequence()
    streams.append({"label": label, "arn": f"{table_arn(name)}/stream/{label}",
                    "shard": shard, "view": view, "created_ms": millis, "start": start})
    description[STREAMS] = streams
    description[CAPTURE] = {"shard": shard, "view": view}
    description["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": view}
    description["LatestStreamLabel"] = label
    description["LatestStreamArn"] = streams[-1]["arn"]


def change(description: dict[str, Any], specification: dict[str, Any], now: float) -> None:
    """UpdateTable's StreamSpecification, with DynamoDB's refusals."""
    name = description["TableName"]
    enabled = CAPTURE in description
    if specification.get("StreamEnabled"):
        if enabled:
            raise ValidationException(ALREADY_ENABLED.format(name))
        view = specification.get("StreamViewType")
        if view is None:
            raise ValidationException(VIEW_TYPE_REQUIRED)
        enable(description, view, now)
    else:
        if not enabled:
            raise ValidationException(NOTHING_TO_DISABLE.format(name))
        disable(description)


def disable(description: dict[str, Any]) -> None:
    """Close the current stream: it stays readable, nothing more is written."""
    description.pop(CAPTURE, None)
    streams = [dict(s) for s in description.get(STREAMS, ())]
    if streams:
        streams[-1]["end"] = last_sequence()
        streams[-1]["disabled"] = time.time()
    description[STREAMS] = streams
    description["StreamSpecification"] = {"StreamEnabled": False}


def with_source(txn: Transaction, record: TableRecord) -> TableRecord:
    """``record`` with its stream source, created if it has none yet."""
    if STREAM_SOURCE in record.indexes:
        return record
    return txn.create_index(record, STREAM_SOURCE)


# --- writing ------------------------------------------------------------------------

#: A stored record: [sequence number, event (an index of EVENTS), keys or
#: null when an image holds them, new image or null, old image or null or
#: SAME_AS_LAST, true if TTL's]. Old images equal to the previous record's new
#: image (a counter's run of updates) are stored as SAME_AS_LAST: a row
#: keeps each image once.
EVENTS = ("INSERT", "MODIFY", "REMOVE")
SAME_AS_LAST = 1


class _Capture:
    """What writing one stream's records needs, derived once per catalog
    record, and the records of the open transaction not yet written."""

    __slots__ = ("names", "new", "old", "record", "records", "rk", "segment", "shard", "txn",
                 "view")

    def __init__(self, record: TableRecord, stream: dict[str, str]) -> None:
        self.record = record
        self.view = stream["view"]
        self.names = tuple(k["AttributeName"] for k in record.description["KeySchema"])
        self.new = self.view in _VIEWS_NEW
        self.old = self.view in _VIEWS_OLD
        self.shard = stream["shard"].encode()
        self.segment = -1  # no records held
        self.rk = b""
        self.records: list[tuple[int, int, Item | None, Item | None, bool, bytes | None]] = []
        self.txn: Transaction | None = None

    def write(self) -> None:
        """Write the records held as one row (``Transaction.defer`` calls it)."""
        both = self.new and self.old
        fragment = orjson.Fragment
        last: Item | None = None
        entries: list[Any] = []
        append = entries.append
        for seq, event, old, new, by_service, encoded in self.records:
            if event == 1 and both:  # a MODIFY with both images: a counter's run
                append((seq, 1, None, new if encoded is None else fragment(encoded),
                        SAME_AS_LAST if old == last else old, by_service))
                last = new
                continue
            keep_new = new is not None and self.new
            keep_old = old is not None and self.old
            keys = None
            if not (keep_new or keep_old):
                image = new if new is not None else old
                assert image is not None
                keys = {name: image[name] for name in self.names}
            stored_new: Any = None
            if keep_new:
                stored_new = new if encoded is None else fragment(encoded)
            stored_old: Any = None
            if keep_old:
                stored_old = SAME_AS_LAST if last is not None and old == last else old
            last = new if both else None
            append((seq, event, keys, stored_new, stored_old, by_service))
        assert self.txn is not None
        self.txn.put_entry_encoded(self.record, STREAM_SOURCE, self.shard, self.rk,
                                   orjson.dumps(entries))
        self.records = []
        self.segment = -1


_captures: dict[int, _Capture] = {}


def _capture_of(record: TableRecord, stream: dict[str, str]) -> _Capture:
    found = _captures.get(id(record))
    if found is None or found.record is not record:
        if len(_captures) > 1024:
            _captures.clear()
        found = _captures[id(record)] = _Capture(record, stream)
    return found


def capture(txn: Transaction, record: TableRecord, stream: dict[str, str],
            old: Item | None, new: Item | None, by_service: bool,
            encoded: bytes | None = None) -> None:
    """Record one item change (``old`` != ``new``); ``encoded``: ``new``'s
    JSON, when the writer has it.

    The records of one transaction (a group commit: many requests) are held
    and written as one row of the stream source, keyed by the first one's
    sequence number, just before the transaction's writes leave memory
    (``Transaction.defer``): a hot counter's group costs one row and one
    encoding, not one per request. Records held in a savepoint that fails
    are dropped with it.
    """
    global _last
    now = time.time_ns()
    seq = _last = now if now > _last else _last + 1
    c = _captures.get(id(record))
    if c is None or c.record is not record:
        c = _capture_of(record, stream)
    segment = txn.segment
    if c.segment != segment:  # the first record of a new row
        c.segment, c.rk, c.txn = segment, seq.to_bytes(8, "big"), txn
        c.records = []
        txn.defer(c, c.write)
    c.records.append((seq, 0 if old is None else 2 if new is None else 1, old, new,
                      by_service, encoded))


# --- reading ------------------------------------------------------------------------

Entries = list[list[Any]]


def _stored(txn: Transaction, record: TableRecord, hk: bytes, **where: Any
            ) -> Iterator[tuple[bytes, bytes, Entries]]:
    """Rows of the stream source (each a list of records), as ``txn.items``."""
    for row_hk, rk, entries in txn.items(record, hk, index=STREAM_SOURCE, **where):
        yield row_hk, rk, cast(Entries, entries)


def _first(rows: Iterator[tuple[bytes, bytes, Entries]]) -> tuple[bytes, bytes, Entries] | None:
    for row in rows:
        return row
    return None


def _records(entries: Entries, after: int, names: tuple[str, ...]
             ) -> Iterator[dict[str, Any]]:
    """A row's records after ``after``, each as a dict with its keys and
    old image filled in."""
    last = None
    for seq, event, keys, new, old, by_service in entries:
        if old == SAME_AS_LAST:
            old = last
        last = new
        if seq > after:
            if keys is None:
                image = new if new is not None else old
                keys = {name: image[name] for name in names}
            yield {"s": seq, "e": EVENTS[event], "k": keys, "n": new, "o": old,
                   "u": by_service}


def rows(txn: Transaction, record: TableRecord, shard: str, after: int
         ) -> Iterator[dict[str, Any]]:
    """A shard's records after sequence number ``after``, in order."""
    names = tuple(k["AttributeName"] for k in record.description["KeySchema"])
    hk = shard.encode()
    first = after + 1
    # the row that may hold ``first``: the last one keyed at or before it
    holding = _first(_stored(txn, record, hk, below=(first + 1).to_bytes(8, "big"),
                             forward=False))
    if holding is not None:
        yield from _records(holding[2], after, names)
    for _, _, entries in _stored(txn, record, hk, low=(first + 1).to_bytes(8, "big")):
        yield from _records(entries, after, names)


def wire_record(stream: dict[str, Any], entry: dict[str, Any], sizes: dict[int, int]
                ) -> dict[str, Any]:
    """A stored record as GetRecords answers it. ``sizes``: item sizes by
    ``id`` of the image, shared by one page's records (an old image is
    often the record before's new one, the very same dict)."""
    seq = entry["s"]
    dynamodb: dict[str, Any] = {
        "ApproximateCreationDateTime": seq // 1_000_000_000,
        "Keys": entry["k"],
    }
    size = item_size(entry["k"])
    for member, image in (("NewImage", entry["n"]), ("OldImage", entry["o"])):
        if image is not None:
            dynamodb[member] = image
            known = sizes.get(id(image))
            if known is None:
                known = sizes[id(image)] = item_size(image)
            size += known
    dynamodb["SequenceNumber"] = sequence_text(seq)
    dynamodb["SizeBytes"] = size
    dynamodb["StreamViewType"] = stream["view"]
    wire = {
        # unique: sequence numbers never repeat, across streams and restarts
        "eventID": f"{seq:032x}",
        "eventName": entry["e"],
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "awsRegion": REGION,
        "dynamodb": dynamodb,
    }
    if entry["u"]:
        wire["userIdentity"] = SERVICE_IDENTITY
    return wire


# --- upkeep ---------------------------------------------------------------------------


def recover(txn: Transaction) -> None:
    """Raise the sequence clock to the largest number stored (a clock that
    went back while the server was down must not reuse numbers)."""
    global _last
    for record in txn.tables():
        if STREAM_SOURCE not in record.indexes:
            continue
        for stream in record.description.get(STREAMS, ()):
            _last = max(_last, stream.get("end", 0), stream["start"])
            row = _first(_stored(txn, record, stream["shard"].encode(), forward=False))
            if row is not None:
                _last = max(_last, row[2][-1][0])


def trim(txn: Transaction, now: float, limit: int) -> int:
    """Delete stream records older than 24 hours (whole rows, up to about
    ``limit`` records), and forget disabled streams with nothing left; how
    many records were deleted."""
    cutoff = _seconds_to_sequence(now - RETENTION)
    below = cutoff.to_bytes(8, "big")
    deleted = 0
    for record in txn.tables():
        if STREAM_SOURCE not in record.indexes:
            continue
        streams = record.description.get(STREAMS, ())
        kept = []
        for stream in streams:
            shard = stream["shard"].encode()
            old = []
            for hk, rk, entries in _stored(txn, record, shard, below=below):
                if entries[-1][0] >= cutoff or deleted >= limit:
                    break  # a row is trimmed whole, once all of it is old
                old.append((hk, rk, entries[-1][0]))
                deleted += len(entries)
            for hk, rk, _ in old:
                txn.delete_entry(record, STREAM_SOURCE, hk, rk)
            if old:  # the trim horizon: reading from before it is refused
                stream = {**stream, "trimmed": old[-1][2]}
            if "disabled" not in stream or stream["disabled"] > now - RETENTION:
                kept.append(stream)
        if kept != streams:
            txn.update_table(record.with_description({**record.description, STREAMS: kept}))
        if deleted >= limit:
            break
    return deleted


def trimmed_before(stream: dict[str, Any], after: int, now: float) -> bool:
    """Whether the records after ``after`` reach back past the trim horizon
    (0 is TRIM_HORIZON itself, never refused)."""
    if after == 0:
        return False
    return after < stream.get("trimmed", 0) or after < _seconds_to_sequence(now - RETENTION)


# --- finding a stream -----------------------------------------------------------------


def table_of_arn(arn: str) -> str | None:
    """The table name in a stream ARN (``...:table/NAME/stream/LABEL``)."""
    _, found, rest = arn.partition(":table/")
    name, found_stream, _ = rest.partition("/stream/")
    return name if found and found_stream else None


def find(txn: Transaction, arn: Any) -> tuple[TableRecord, dict[str, Any]] | None:
    """The table and stream an ARN names, if it exists."""
    name = table_of_arn(arn) if isinstance(arn, str) else None
    record = txn.table(name) if name else None
    if record is None:
        return None
    for stream in record.description.get(STREAMS, ()):
        if stream["arn"] == arn:
            return record, stream
    return None


def all_streams(txn: Transaction) -> list[tuple[TableRecord, dict[str, Any]]]:
    return [(record, stream) for record in txn.tables()
            for stream in record.description.get(STREAMS, ())]
