"""DynamoDB Streams: each table's change records, durable beside its items.

While a table's stream is enabled, ``write_item`` calls :func:`capture` for
every write that changes an item. The record is a row of the table's stream
source (an items table like an index's, ``STREAM_SOURCE``), keyed by the
shard (hk) and the sequence number (rk, 8 bytes big-endian), written in the
same store transaction as the item: item and record commit in one item-log
append, so a record is exactly as durable as its write and a rolled-back
write leaves none.

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
from itertools import islice
from typing import Any

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


def capture(txn: Transaction, record: TableRecord, stream: dict[str, str],
            old: Item | None, new: Item | None, by_service: bool) -> None:
    """Write the stream record of one item change (``old`` != ``new``)."""
    image = new if new is not None else old
    assert image is not None
    keys = {k["AttributeName"]: image[k["AttributeName"]]
            for k in record.description["KeySchema"]}
    row: dict[str, Any] = {
        "e": "INSERT" if old is None else "REMOVE" if new is None else "MODIFY", "k": keys}
    view = stream["view"]
    if new is not None and view in _VIEWS_NEW:
        row["n"] = new
    if old is not None and view in _VIEWS_OLD:
        row["o"] = old
    if by_service:
        row["u"] = 1
    txn.put_entry(record, STREAM_SOURCE, stream["shard"].encode(),
                  next_sequence().to_bytes(8, "big"), row)


# --- reading ------------------------------------------------------------------------


def rows(txn: Transaction, record: TableRecord, shard: str, after: int
         ) -> Iterator[tuple[int, dict[str, Any]]]:
    """(seq, row) of a shard's records after ``after``, in order."""
    low = (after + 1).to_bytes(8, "big")
    for _, rk, row in txn.items(record, shard.encode(), index=STREAM_SOURCE, low=low):
        yield int.from_bytes(rk, "big"), row


def wire_record(stream: dict[str, Any], seq: int, row: dict[str, Any]) -> dict[str, Any]:
    """A stored row as GetRecords answers it."""
    dynamodb: dict[str, Any] = {
        "ApproximateCreationDateTime": seq // 1_000_000_000,
        "Keys": row["k"],
    }
    size = item_size(row["k"])
    if "n" in row:
        dynamodb["NewImage"] = row["n"]
        size += item_size(row["n"])
    if "o" in row:
        dynamodb["OldImage"] = row["o"]
        size += item_size(row["o"])
    dynamodb["SequenceNumber"] = sequence_text(seq)
    dynamodb["SizeBytes"] = size
    dynamodb["StreamViewType"] = stream["view"]
    record = {
        "eventID": hashlib.blake2b(f"{stream['shard']}/{seq}".encode(),
                                   digest_size=16).hexdigest(),
        "eventName": row["e"],
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "awsRegion": REGION,
        "dynamodb": dynamodb,
    }
    if row.get("u"):
        record["userIdentity"] = SERVICE_IDENTITY
    return record


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
            for _, rk, _ in txn.items(record, stream["shard"].encode(), index=STREAM_SOURCE,
                                      forward=False):
                _last = max(_last, int.from_bytes(rk, "big"))
                break


def trim(txn: Transaction, now: float, limit: int) -> int:
    """Delete up to ``limit`` stream records older than 24 hours, and forget
    disabled streams with nothing left; how many records were deleted."""
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
            found = list(islice(txn.items(record, shard, index=STREAM_SOURCE, below=below),
                                limit - deleted))
            for hk, rk, _ in found:
                txn.delete_entry(record, STREAM_SOURCE, hk, rk)
            deleted += len(found)
            if found:  # the trim horizon: reading from before it is refused
                stream = {**stream, "trimmed": int.from_bytes(found[-1][1], "big")}
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
