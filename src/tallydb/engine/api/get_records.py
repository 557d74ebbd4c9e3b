"""GetRecords: up to Limit (1,000) records from a shard iterator's
position, at most about 1 MB, and the iterator that follows them.

A closed shard (its stream disabled) read to its end answers no
NextShardIterator, as DynamoDB's does.
"""

from __future__ import annotations

import time
from typing import Any

from tallydb.engine.api import _streams as streams
from tallydb.engine.api._access import Touch
from tallydb.engine.api._jobs import integrations
from tallydb.engine.api._shapes import constraint_error, violation
from tallydb.engine.api._stream_api import (
    STREAMS_SERVICE,
    find_stream,
    make_iterator,
    read_iterator,
    stream_touch,
)
from tallydb.engine.api._stream_records import WireRecords
from tallydb.engine.errors import DynamoDBError, TrimmedDataAccessException
from tallydb.engine.storage import Transaction

#: Served as ``DynamoDBStreams_20120810.<Operation>`` (the registry reads it).
SERVICE = STREAMS_SERVICE

MAX_RECORDS = 1000
PAGE_BYTES = 1024 * 1024
#: DynamoDB's, as a consumer quoted it (DynamoDB Local says "The operation
#: attempted to read past the oldest stream record in a shard.", the API
#: reference's description of the exception).
TRIMMED = "The data you are trying to access has been trimmed"


def access(txn: Transaction, request: dict[str, Any]) -> tuple[Touch, ...]:
    """What a request touches (``_access``): reads the stream its
    ShardIterator, read and verified as ``get_records`` reads it, is of (an
    iterator it cannot read touches nothing: ``get_records`` refuses it)."""
    try:
        arn, _, _ = read_iterator(txn, request.get("ShardIterator"), time.time())
    except DynamoDBError:
        return ()
    return (stream_touch(txn, "GetRecords", arn),)


ACCESS = access


def get_records(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    limit = request.get("Limit") or MAX_RECORDS
    if limit > MAX_RECORDS:
        raise constraint_error([violation(
            "limit", str(limit), f"Member must have value less than or equal to {MAX_RECORDS}")])
    now = time.time()
    arn, shard, after = read_iterator(txn, request.get("ShardIterator"), now)
    record, stream = find_stream(txn, arn)
    if streams.trimmed_before(stream, after, now):
        raise TrimmedDataAccessException(TRIMMED)
    records: list[dict[str, Any]] = []
    size = 0
    last = after
    wires = WireRecords(record, stream, integrations(txn).region)
    for seq, wire in wires.after(txn, record, shard, after):
        records.append(wire)
        last = seq
        size += wire["dynamodb"]["SizeBytes"]
        if len(records) >= limit or size >= PAGE_BYTES:
            break
    response: dict[str, Any] = {"Records": records}
    if "end" not in stream or last < stream["end"]:
        response["NextShardIterator"] = make_iterator(txn, arn, shard, last, now)
    return response
