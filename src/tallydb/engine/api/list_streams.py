"""ListStreams: every stream (current or disabled and retained), of one
table or of all (that the caller may see), paged by ExclusiveStartStreamArn."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api import _streams as streams
from tallydb.engine.api._access import Touch, caller_sees
from tallydb.engine.api._stream_api import STREAMS_SERVICE
from tallydb.engine.storage import Transaction

#: Served as ``DynamoDBStreams_20120810.<Operation>`` (the registry reads it).
SERVICE = STREAMS_SERVICE


def access(txn: Transaction, request: dict[str, Any]) -> tuple[Touch, ...]:
    """What a request touches (``_access``): the streams of the table its
    TableName names, or of every table the caller may see (the list shows
    no other)."""
    table = request.get("TableName")
    return (Touch("ListStreams", table if isinstance(table, str) else None),)


ACCESS = access


def list_streams(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    table = request.get("TableName")
    limit = request.get("Limit") or 100
    start = request.get("ExclusiveStartStreamArn")
    found: list[dict[str, Any]] = []
    started = start is None
    for record, stream in streams.all_streams(txn):
        if not started:
            started = stream["arn"] == start
            continue
        if (table is not None and record.name != table) or not caller_sees(record.name):
            continue
        if len(found) == limit:
            return {"Streams": found, "LastEvaluatedStreamArn": found[-1]["StreamArn"]}
        found.append({"StreamArn": stream["arn"], "TableName": record.name,
                      "StreamLabel": stream["label"]})
    return {"Streams": found}
