"""ListStreams: every stream (current or disabled and retained), of one
table or of all (that the caller may see), paged by ExclusiveStartStreamArn.

Streams come in the order of their ARNs (a table's name, then its stream's
label), and a page starts after the first ARN greater than the one given:
a page goes on where the last ended even when the stream it ended on is
gone since (its table deleted and its records aged out)."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api import _streams as streams
from tallydb.engine.api._access import Touch, caller_sees
from tallydb.engine.api._stream_api import (
    LIST_LIMIT,
    MAX_LIMIT,
    STREAMS_SERVICE,
    check_limit,
    check_stream_arn,
)
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


def validate(request: dict[str, Any]) -> None:
    check_limit(request, LIST_LIMIT)
    start = request.get("ExclusiveStartStreamArn")
    if start is not None:
        check_stream_arn(start)


def list_streams(txn: Transaction, request: dict[str, Any], checked: None) -> dict[str, Any]:
    table = request.get("TableName")
    limit = request.get("Limit") or MAX_LIMIT
    start = request.get("ExclusiveStartStreamArn")
    found: list[dict[str, Any]] = []
    for record, stream in sorted(streams.all_streams(txn), key=lambda pair: pair[1]["arn"]):
        if start is not None and stream["arn"] <= start:
            continue
        if (table is not None and record.name != table) or not caller_sees(record.name):
            continue
        if len(found) == limit:
            return {"Streams": found, "LastEvaluatedStreamArn": found[-1]["StreamArn"]}
        found.append({"StreamArn": stream["arn"], "TableName": record.name,
                      "StreamLabel": stream["label"]})
    return {"Streams": found}
