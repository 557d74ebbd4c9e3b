"""DynamoDB Streams records: how a change is written beside its item and
read back as GetRecords answers it.

While a table's stream is enabled, ``write_item`` calls :func:`capture` for
every write that changes an item. The records of one transaction are written
as one row of the table's stream source (an items table like an index's,
``STREAM_SOURCE``), keyed by the shard (hk) and the first record's sequence
number (rk, 8 bytes big-endian), in the same store transaction as the items:
they commit in the same item-log append, so a record is exactly as durable
as its write and a rolled-back write leaves none.

Sequence numbers come from one clock for the process: nanoseconds since the
epoch, strictly increasing (a write in the same nanosecond as the last takes
the next number), raised at start to the largest one stored
(``_streams.recover``). They increase in commit order (there is one writer),
survive a restart, and tell each record's age (the 24-hour trim).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any, Final, cast

import orjson

from tallydb.engine.api._regions import DEFAULT_REGION
from tallydb.engine.storage import TableRecord, Transaction
from tallydb.engine.values import Item, item_size

#: The storage name of a table's stream source (``$`` takes no user index name).
STREAM_SOURCE: Final = "$stream"
#: Who TTL's deletions are made by, in their records (DynamoDB's own identity; the
#: Streams API spells the members as botocore's model does, Lambda events in lower case).
SERVICE_IDENTITY: Final = {"Type": "Service", "PrincipalId": "dynamodb.amazonaws.com"}

_VIEWS_OLD: Final = frozenset({"OLD_IMAGE", "NEW_AND_OLD_IMAGES"})
_VIEWS_NEW: Final = frozenset({"NEW_IMAGE", "NEW_AND_OLD_IMAGES"})

class _Clock:
    """The sequence clock: the last number handed out, for the process.
    (An attribute of a compiled class: read and set as a C field, where a
    module global is a dict's item.)"""

    def __init__(self) -> None:
        self.last = 0


_CLOCK: Final = _Clock()
_time_ns: Final = time.time_ns


def next_sequence() -> int:
    """The next sequence number: the clock in ns, above every one before."""
    clock = _CLOCK
    now = _time_ns()
    last = clock.last
    clock.last = now if now > last else last + 1
    return clock.last


def now_ns() -> int:
    """The clock in ns, never below a number handed out before (the same
    clock as sequence numbers, without taking one)."""
    clock = _CLOCK
    now = _time_ns()
    if now > clock.last:
        clock.last = now
    return clock.last


def last_sequence() -> int:
    return _CLOCK.last


def sequence_text(seq: int) -> str:
    """A SequenceNumber as the wire carries it: 21 digits (fixed width, so
    text order is number order)."""
    return f"{seq:021d}"


def raise_clock(to: int) -> None:
    """Never hand out a sequence number at or below ``to`` (one stored)."""
    _CLOCK.last = max(_CLOCK.last, to)


def sequence_of_time(when: float) -> int:
    """The sequence numbers of records written before ``when`` are below this."""
    return int(when * 1_000_000_000)


# --- writing ------------------------------------------------------------------------

#: A stored record: [sequence number, event (an index of EVENTS), keys or
#: null when an image holds them, new image or null, old image or null or
#: SAME_AS_LAST, true if TTL's]. Old images equal to the previous record's new
#: image (a counter's run of updates) are stored as SAME_AS_LAST: a row
#: keeps each image once.
EVENTS: Final = ("INSERT", "MODIFY", "REMOVE")
SAME_AS_LAST: Final = 1


#: A Kinesis outbox row takes the records of later commits until it holds
#: this many bytes (or the forwarder has read it): a hot counter's small
#: group commits share rows, so the forwarder reads, sends and deletes one
#: row for many of them.
SHARED_ROW_BYTES: Final = 1024

#: The last row of each table's Kinesis outbox (by table id) that the
#: forwarder has read: it sends and deletes rows whole, so a row it read
#: takes no more records (``read_through``).
_read: Final[dict[int, bytes]] = {}

#: A change as a capture holds it: (sequence number, old image, new image,
#: by TTL, the new image's JSON when its writer made it). The number is
#: only passed on, into its row's JSON: typed ``object``, compiled code
#: hands on the int object it holds rather than converting it to a C
#: integer and back for each change.
Held = tuple[object, Item | None, Item | None, object, bytes | None]


def read_through(table_id: int, rk: bytes) -> None:
    """The forwarder read the table's outbox rows up to ``rk``: none of them
    takes records of later commits (called holding the writer). Row keys
    are sequence numbers, of one clock for the process, so the largest is
    kept: tables of the same id in several stores only start rows sooner."""
    if rk > _read.get(table_id, b""):
        _read[table_id] = rk


class _Capture:
    """What writing one table's change records needs, derived once per
    catalog record, and the records of the open transaction not yet written.

    A table's stream and its Kinesis destinations share one capture: each
    change takes one sequence number and is held once; at the write, each
    of them gets its row (its shard's), and rows of the same view are the
    same bytes, encoded once.

    A table whose only target is the Kinesis outbox (``shared``) extends
    its last row with a later commit's records (the row put again, whole),
    while that row is still only in memory (a fresh row, not yet in SQLite),
    is as this capture last wrote it (not rolled back since), holds fewer
    than ``SHARED_ROW_BYTES`` and has not been read by the forwarder."""

    __slots__ = ("last", "names", "record", "records", "rk", "segment", "shared", "targets",
                 "txn")

    def __init__(self, record: TableRecord, streams: tuple[dict[str, str] | None, ...]) -> None:
        self.record = record
        self.names = tuple(k["AttributeName"] for k in record.description["KeySchema"])
        #: (shard, view) of each row a segment's records are written as.
        self.targets = tuple((stream["shard"].encode(), stream["view"])
                             for stream in streams if stream is not None)
        #: (``streams`` is the table's stream, then its Kinesis outbox.)
        self.shared = streams[0] is None and len(self.targets) == 1
        self.segment = -1  # no records held
        self.rk = b""  # the row's key: its first record's sequence number
        #: (sequence number, old, new, by TTL, new's JSON or None) of each change held.
        self.records: list[Held] = []
        self.txn: Transaction | None = None
        #: The row last written (``shared``): its key, its length, and the
        #: new image of its last record.
        self.last: tuple[bytes, int, Item | None] | None = None

    def write(self) -> None:
        """Write the records held as one row per target, keyed by the first
        one's sequence number (``Transaction.defer`` calls it)."""
        txn = self.txn
        assert txn is not None
        if self.shared:
            self._write_shared(txn)
            return
        blobs: dict[str, bytes] = {}
        for shard, view in self.targets:
            blob = blobs.get(view)
            if blob is None:
                blob = blobs[view] = self.encode(view)[0]
            # fresh: a row's key is a sequence number, never written before
            txn.put_entry_encoded(self.record, STREAM_SOURCE, shard, self.rk, blob,
                                  fresh=True)
        self.records = []
        self.segment = -1

    def _write_shared(self, txn: Transaction) -> None:
        shard, view = self.targets[0]
        last = self.last
        if last is not None:
            rk, length, image = last
            if rk > _read.get(self.record.id, b""):
                kept = txn.fresh_entry(self.record, STREAM_SOURCE, shard, rk)
                if kept is not None and len(kept) == length < SHARED_ROW_BYTES:
                    more, image = self.encode(view, image)
                    blob = kept[:-1] + b"," + more[1:]  # one JSON array
                    txn.put_entry_encoded(self.record, STREAM_SOURCE, shard, rk, blob,
                                          fresh=True)
                    self.last = (rk, len(blob), image)
                    self.records = []
                    self.segment = -1
                    return
        blob, image = self.encode(view)
        txn.put_entry_encoded(self.record, STREAM_SOURCE, shard, self.rk, blob, fresh=True)
        self.last = (self.rk, len(blob), image)
        self.records = []
        self.segment = -1

    def encode(self, view: str, last: Item | None = None) -> tuple[bytes, Item | None]:
        """The records held, as a stored row of ``view`` (the JSON array of
        entries ``_of_row`` reads); each new image as its writer encoded it,
        when it did (a fragment, copied as it is). ``last``: the new image
        of the record before these in the row (NEW_AND_OLD_IMAGES); with
        the JSON, the last record's new image, if the view keeps both."""
        keep_new = view in _VIEWS_NEW
        keep_old = view in _VIEWS_OLD
        both = keep_new and keep_old
        fragment = orjson.Fragment
        entries: list[Any] = []
        append = entries.append
        for seq, old, new, by_service, encoded in self.records:
            if both and old is not None and new is not None:  # a counter's run
                append((seq, 1, None, new if encoded is None else fragment(encoded),
                        SAME_AS_LAST if old is last or old == last else old, by_service))
                last = new
                continue
            event = 0 if old is None else 2 if new is None else 1
            stored_new: Any = None
            if keep_new and new is not None:
                stored_new = new if encoded is None else fragment(encoded)
            stored_old: Any = None
            if keep_old and old is not None:
                stored_old = (SAME_AS_LAST if last is not None and (old is last or old == last)
                              else old)
            keys = None
            if stored_new is None and stored_old is None:
                image = new if new is not None else old
                assert image is not None
                keys = {name: image[name] for name in self.names}
            append((seq, event, keys, stored_new, stored_old, by_service))
            last = new if both else None
        return orjson.dumps(entries), last


_captures: Final[dict[int, _Capture]] = {}


class _Latest:
    """The capture used last: a hot table's, found without a lookup."""

    def __init__(self) -> None:
        self.capture: _Capture | None = None


_LATEST: Final = _Latest()


def _capture_of(record: TableRecord, streams: tuple[dict[str, str] | None, ...]) -> _Capture:
    found = _captures.get(id(record))
    if found is None or found.record is not record:
        if len(_captures) > 1024:
            _captures.clear()
        found = _captures[id(record)] = _Capture(record, streams)
    return found


def capture(txn: Transaction, record: TableRecord, stream: dict[str, str] | None,
            kinesis: dict[str, str] | None, old: Item | None, new: Item | None,
            by_service: bool, encoded: bytes | None = None) -> None:
    """Record one item change (``old`` != ``new``) for the table's stream
    and its Kinesis destinations' outbox (either may be None: not
    capturing); ``encoded``: ``new``'s JSON, when the writer has it.

    The records of one transaction (a group commit: many requests) are held
    and written as one row of the stream source per target, just before the
    transaction's writes leave memory (``Transaction.defer``): a hot
    counter's group costs one row and one encoding, not one per request,
    and a change costs its sequence number and a tuple. Records held in a
    savepoint that fails are dropped with it.
    """
    clock = _CLOCK
    now = _time_ns()
    last = clock.last
    seq = clock.last = now if now > last else last + 1
    c = _LATEST.capture
    if c is None or c.record is not record:
        c = _LATEST.capture = _capture_of(record, (stream, kinesis))
    segment = txn.segment
    if c.segment != segment:  # the first record of a new row
        c.segment, c.rk, c.txn = segment, seq.to_bytes(8, "big"), txn
        c.records = []
        txn.defer(c, c.write)
    c.records.append((seq, old, new, by_service, encoded))


# --- reading ------------------------------------------------------------------------

Entries = list[list[Any]]


def stored_rows(txn: Transaction, record: TableRecord, hk: bytes, **where: Any
            ) -> Iterator[tuple[bytes, bytes, Entries]]:
    """Rows of the stream source (each a list of records), as ``txn.items``."""
    for row_hk, rk, entries in txn.items(record, hk, index=STREAM_SOURCE, **where):
        yield row_hk, rk, cast(Entries, entries)


def first_row(rows: Iterator[tuple[bytes, bytes, Entries]]) -> tuple[bytes, bytes, Entries] | None:
    for row in rows:
        return row
    return None


def rows(txn: Transaction, record: TableRecord, shard: str, after: int) -> Iterator[Entries]:
    """The stored rows that hold a shard's records after sequence number
    ``after``, in order (the first may also hold some before it)."""
    hk = shard.encode()
    first = after + 1
    # the row that may hold ``first``: the last one keyed at or before it
    holding = first_row(stored_rows(txn, record, hk, below=(first + 1).to_bytes(8, "big"),
                                    forward=False))
    if holding is not None:
        yield holding[2]
    for _, _, entries in stored_rows(txn, record, hk, low=(first + 1).to_bytes(8, "big")):
        yield entries


class WireRecords:
    """A shard's records as GetRecords answers them, made one page at a time.

    What the records of a page share is made once: the constant members, and
    each image's and key's size (SizeBytes), kept by the ``id`` of the very
    dict (an old image is the record before's new one, and a run of records
    of one item shares one ``Keys`` dict), which the page keeps alive.
    """

    __slots__ = ("names", "region", "sizes", "view")

    def __init__(self, record: TableRecord, stream: dict[str, Any], region: str) -> None:
        self.names = tuple(k["AttributeName"] for k in record.description["KeySchema"])
        #: ``awsRegion``: the table's region, which is the request's (a
        #: region sees only its own tables, or, shared, every region's as its own).
        self.region = region or DEFAULT_REGION
        self.view = stream["view"]
        self.sizes: dict[int, int] = {}

    def after(self, txn: Transaction, record: TableRecord, shard: str, after: int
              ) -> Iterator[tuple[int, dict[str, Any]]]:
        """(sequence number, wire record) of a shard's records after
        ``after``, in order."""
        for entries in rows(txn, record, shard, after):
            yield from self._of_row(entries, after)

    def _of_row(self, entries: Entries, after: int) -> Iterator[tuple[int, dict[str, Any]]]:
        names, view, sizes, region = self.names, self.view, self.sizes, self.region
        last_new = None
        last_keys: dict[str, Any] | None = None
        for seq, event, keys, new, old, by_service in entries:
            if old == SAME_AS_LAST:
                old = last_new
            last_new = new
            if seq <= after:
                continue
            if keys is None:
                image = new if new is not None else old
                keys = {name: image[name] for name in names}
            if keys == last_keys:
                keys = last_keys  # one dict, sized once
            last_keys = keys
            size = sizes.get(id(keys))
            if size is None:
                size = sizes[id(keys)] = item_size(keys)
            dynamodb: dict[str, Any] = {
                "ApproximateCreationDateTime": seq // 1_000_000_000, "Keys": keys}
            if new is not None:
                dynamodb["NewImage"] = new
                known = sizes.get(id(new))
                if known is None:
                    known = sizes[id(new)] = item_size(new)
                size += known
            if old is not None:
                dynamodb["OldImage"] = old
                known = sizes.get(id(old))
                if known is None:
                    known = sizes[id(old)] = item_size(old)
                size += known
            dynamodb["SequenceNumber"] = sequence_text(seq)
            dynamodb["SizeBytes"] = size
            dynamodb["StreamViewType"] = view
            wire = {
                # unique: sequence numbers never repeat, across streams and restarts
                "eventID": f"{seq:032x}",
                "eventName": EVENTS[event],
                "eventVersion": "1.1",
                "eventSource": "aws:dynamodb",
                "awsRegion": region,
                "dynamodb": dynamodb,
            }
            if by_service:
                wire["userIdentity"] = SERVICE_IDENTITY
            yield seq, wire
