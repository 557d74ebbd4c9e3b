"""DescribeStream: a stream's status, view type, key schema and its shard
(one per stream) with the shard's sequence-number range."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._stream_api import STREAMS_SERVICE, find_stream, on_stream
from tallydb.engine.api._stream_records import sequence_text
from tallydb.engine.storage import Transaction

#: Served as ``DynamoDBStreams_20120810.<Operation>`` (the registry reads it).
SERVICE = STREAMS_SERVICE
#: What a request touches (``_access``): reads the stream its StreamArn names.
ACCESS = on_stream("DescribeStream")


def describe_stream(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    record, stream = find_stream(txn, request.get("StreamArn"))
    numbers = {"StartingSequenceNumber": sequence_text(stream["start"])}
    if "end" in stream:
        numbers["EndingSequenceNumber"] = sequence_text(stream["end"])
    shards = [{"ShardId": stream["shard"], "SequenceNumberRange": numbers}]
    if request.get("ExclusiveStartShardId") == stream["shard"]:
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
