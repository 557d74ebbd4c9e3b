"""A table's change records (DynamoDB Streams) as Python values: what
``table.changes()`` iterates.

It reads through the Streams API of whatever the table lives on (the
embedded engine, ``tallydb serve``, DynamoDB Local, Amazon DynamoDB), shard
after shard in the order DescribeStream gives them (a parent before its
children), and hands out each change with a ``position``: pass it back as
``changes(after=position)`` to resume right after that change, in this
process or another. Positions are plain strings, to be kept wherever the
consumer keeps its own state.

The sync iterator and its async twin share :class:`ChangeReader`, whose
``next_batch`` makes the (blocking) requests for one batch of records.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tallydb.engine.errors import ExpiredIteratorException
from tallydb.toolkit.convert import Item, item_from_wire
from tallydb.toolkit.transport import EngineTransport, Transport, client_call

__all__ = ["Change", "ChangeReader", "streams_client_for"]

#: Amazon DynamoDB's own endpoints, whose Streams API lives at another host.
_AWS_ENDPOINT = re.compile(r"^https://dynamodb\.[a-z0-9-]+\.amazonaws\.com(\.cn)?/?$")
NO_STREAM = "table {!r} has no stream: enable one with StreamSpecification"


@dataclass(frozen=True)
class Change:
    """One change record: ``event`` is INSERT, MODIFY or REMOVE; ``old`` and
    ``new`` are the images the stream's view type carries (None otherwise);
    ``by_service`` marks DynamoDB's own deletions (TTL)."""

    event: str
    keys: Item
    old: Item | None
    new: Item | None
    sequence_number: str
    position: str
    by_service: bool


def streams_client_for(transport: Transport) -> Any:
    """A ``dynamodbstreams`` client on the same store as ``transport``: the
    embedded engine's own, or one with the DynamoDB client's endpoint,
    region and credentials (on AWS, the region's Streams endpoint)."""
    if isinstance(transport, EngineTransport):
        from tallydb.toolkit import inprocess

        return inprocess.streams_client(transport.engine)
    import boto3

    client = transport.client
    meta = client.meta
    kwargs: dict[str, Any] = {"region_name": meta.region_name, "config": meta.config}
    if not _AWS_ENDPOINT.match(meta.endpoint_url or ""):
        kwargs["endpoint_url"] = meta.endpoint_url
    # botocore has no public accessor for a client's credentials
    credentials = client._request_signer._credentials
    if credentials is not None:
        frozen = credentials.get_frozen_credentials()
        kwargs.update(aws_access_key_id=frozen.access_key,
                      aws_secret_access_key=frozen.secret_key,
                      aws_session_token=frozen.token)
    return boto3.session.Session().client("dynamodbstreams", **kwargs)


class ChangeReader:
    """Where a reader is in a table's stream, and how to read on from there."""

    def __init__(self, streams: Any, describe_table: Callable[[], dict[str, Any]],
                 table: str, after: str | None, latest: bool) -> None:
        self.streams = streams
        self.describe_table = describe_table
        self.table = table
        self.after = after
        self.latest = latest
        self.arn: str | None = None
        self.shard: str | None = None
        self.iterator: str | None = None
        self.last: str | None = None  # the last sequence number handed out
        self.finished = False  # the stream is disabled and read to its end

    def _call(self, operation: str, request: dict[str, Any]) -> dict[str, Any]:
        return client_call(self.streams, operation, request)

    def _shards(self) -> list[str]:
        assert self.arn is not None
        answer = self._call("DescribeStream", {"StreamArn": self.arn})
        return [shard["ShardId"] for shard in answer["StreamDescription"]["Shards"]]

    def _iterator(self, kind: str, sequence: str | None = None) -> str:
        request = {"StreamArn": self.arn, "ShardId": self.shard, "ShardIteratorType": kind}
        if sequence is not None:
            request["SequenceNumber"] = sequence
        return str(self._call("GetShardIterator", request)["ShardIterator"])

    def _start(self) -> None:
        if self.after is not None:
            self.arn, self.shard, self.last = self.after.rsplit("|", 2)
            self.iterator = self._iterator("AFTER_SEQUENCE_NUMBER", self.last)
            return
        self.arn = self.describe_table().get("LatestStreamArn")
        if self.arn is None:
            raise ValueError(NO_STREAM.format(self.table))
        shards = self._shards()
        self.shard = shards[-1] if self.latest else shards[0]
        self.iterator = self._iterator("LATEST" if self.latest else "TRIM_HORIZON")

    def _next_shard(self) -> bool:
        """Move to the shard after the current one; False when there is none."""
        shards = self._shards()
        if self.shard not in shards or shards.index(self.shard) + 1 >= len(shards):
            return False
        self.shard = shards[shards.index(self.shard) + 1]
        self.iterator = self._iterator("TRIM_HORIZON")
        return True

    def next_batch(self) -> list[Change]:
        """The next records (an empty list when caught up)."""
        if self.finished:
            return []
        if self.iterator is None:
            self._start()
        try:
            answer = self._call("GetRecords", {"ShardIterator": self.iterator})
        except ExpiredIteratorException:  # a long pause: go on from the last record
            self.iterator = (self._iterator("AFTER_SEQUENCE_NUMBER", self.last)
                             if self.last is not None else self._iterator("TRIM_HORIZON"))
            answer = self._call("GetRecords", {"ShardIterator": self.iterator})
        batch = [self._change(record) for record in answer["Records"]]
        self.iterator = answer.get("NextShardIterator")
        if self.iterator is None and not self._next_shard():
            self.finished = True
        return batch

    def _change(self, record: dict[str, Any]) -> Change:
        data = record["dynamodb"]
        self.last = data["SequenceNumber"]
        return Change(
            event=record["eventName"],
            keys=item_from_wire(data["Keys"]),
            old=item_from_wire(data["OldImage"]) if "OldImage" in data else None,
            new=item_from_wire(data["NewImage"]) if "NewImage" in data else None,
            sequence_number=data["SequenceNumber"],
            position=f"{self.arn}|{self.shard}|{data['SequenceNumber']}",
            by_service=record.get("userIdentity", {}).get("Type") == "Service",
        )
