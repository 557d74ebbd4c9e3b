"""DescribeStream: a stream's status, view type, key schema and its shard
(one per stream) with the shard's sequence-number range.

A stream's one shard is never split, so it has no children: a
``ShardFilter`` of type CHILD_SHARDS answers no shard. ExclusiveStartShardId
lists the shards whose IDs follow it, whether or not it names a shard."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._stream_api import (
    DESCRIBE_LIMIT,
    STREAMS_SERVICE,
    check_limit,
    check_stream_arn,
    find_stream,
    on_stream,
)
from tallydb.engine.api._stream_records import sequence_text
from tallydb.engine.storage import Transaction

#: Served as ``DynamoDBStreams_20120810.<Operation>`` (the registry reads it).
SERVICE = STREAMS_SERVICE
#: What a request touches (``_access``): reads the stream its StreamArn names.
ACCESS = on_stream("DescribeStream")


def validate(request: dict[str, Any]) -> None:
    check_stream_arn(request["StreamArn"])
    check_limit(request, DESCRIBE_LIMIT)


def describe_stream(txn: Transaction, request: dict[str, Any], checked: None) -> dict[str, Any]:
    record, stream = find_stream(txn, request["StreamArn"])
    numbers = {"StartingSequenceNumber": sequence_text(stream["start"])}
    if "end" in stream:
        numbers["EndingSequenceNumber"] = sequence_text(stream["end"])
    shards = [{"ShardId": stream["shard"], "SequenceNumberRange": numbers}]
    start = request.get("ExclusiveStartShardId")
    if start is not None and start >= stream["shard"]:
        # The shards listed are those whose IDs follow ExclusiveStartShardId,
        # an ID of no shard included (Kinesis' reading; one past every ID
        # answers none, as DynamoDB does).
        shards = []
    shard_filter = request.get("ShardFilter")
    if shard_filter is not None and shard_filter.get("Type") == "CHILD_SHARDS":
        shards = []
    return {"StreamDescription": {
        "StreamArn": stream["arn"],
        "StreamLabel": stream["label"],
        "StreamStatus": "DISABLED" if "end" in stream else "ENABLED",
        "StreamViewType": stream["view"],
        "CreationRequestDateTime": stream["created_ms"] / 1000,
        "TableName": record.name,
        "KeySchema": record.description["KeySchema"],
        "Shards": shards,
    }}
