"""Stream records reduced to what a change is (for comparing two tables)."""

from __future__ import annotations

from typing import Any


def read_stream_events(streams: Any, arn: str) -> list[tuple[Any, ...]]:
    """(eventName, Keys, OldImage, NewImage) of every record, in order."""
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                          ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    events: list[tuple[Any, ...]] = []
    while iterator:
        page = streams.get_records(ShardIterator=iterator)
        if not page["Records"]:
            break
        events += [(r["eventName"], r["dynamodb"]["Keys"], r["dynamodb"].get("OldImage"),
                    r["dynamodb"].get("NewImage")) for r in page["Records"]]
        iterator = page.get("NextShardIterator")
    return events
