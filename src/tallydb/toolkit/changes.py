"""A table's change records (DynamoDB Streams) as Python values: what
``table.changes()`` iterates.

It reads through the Streams API of whatever the table lives on (the
embedded engine, ``tallydb serve``, DynamoDB Local, Amazon DynamoDB), shard
after shard in the order DescribeStream gives them (a parent before its
children), and hands out each change with a ``position``: pass it back as
``changes(after=position)`` to resume right after that change, in this
process or another. Positions are plain strings, to be kept wherever the
consumer keeps its own state.

:class:`ChangeReader` is a stream plan (:mod:`tallydb.toolkit.transport`):
its requests go to the transport's Streams client (or the one given), so
the blocking and the asyncio toolkit read with the very same code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tallydb.engine.errors import ExpiredIteratorException
from tallydb.toolkit.convert import Item, item_from_wire
from tallydb.toolkit.transport import Call, Emit, Plan, Sleep, Stream

__all__ = ["Change", "ChangeReader"]

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


class ChangeReader:
    """Where a reader is in a table's stream, and how to read on from there.

    ``describe_table`` is the plan that finds the table's stream;
    ``streams`` a ``dynamodbstreams`` client to read with (None: the
    transport's own, on the same store).
    """

    def __init__(self, describe_table: Callable[[], Plan[dict[str, Any]]], table: str,
                 after: str | None, latest: bool, streams: Any = None) -> None:
        self.describe_table = describe_table
        self.table = table
        self.after = after
        self.latest = latest
        self.streams = streams
        self.arn: str | None = None
        self.shard: str | None = None
        self.iterator: str | None = None
        self.last: str | None = None  # the last sequence number handed out
        self.finished = False  # the stream is disabled and read to its end

    def _call(self, operation: str, request: dict[str, Any]) -> Call:
        return Call(operation, request, streams=True, client=self.streams)

    def _shards(self) -> Plan[list[str]]:
        assert self.arn is not None
        answer = yield self._call("DescribeStream", {"StreamArn": self.arn})
        return [shard["ShardId"] for shard in answer["StreamDescription"]["Shards"]]

    def _iterator(self, kind: str, sequence: str | None = None) -> Plan[str]:
        request = {"StreamArn": self.arn, "ShardId": self.shard, "ShardIteratorType": kind}
        if sequence is not None:
            request["SequenceNumber"] = sequence
        answer = yield self._call("GetShardIterator", request)
        return str(answer["ShardIterator"])

    def _start(self) -> Plan[None]:
        if self.after is not None:
            self.arn, self.shard, self.last = self.after.rsplit("|", 2)
            self.iterator = yield from self._iterator("AFTER_SEQUENCE_NUMBER", self.last)
            return
        described = yield from self.describe_table()
        self.arn = described.get("LatestStreamArn")
        if self.arn is None:
            raise ValueError(NO_STREAM.format(self.table))
        shards = yield from self._shards()
        self.shard = shards[-1] if self.latest else shards[0]
        self.iterator = yield from self._iterator("LATEST" if self.latest else "TRIM_HORIZON")

    def _next_shard(self) -> Plan[bool]:
        """Move to the shard after the current one; False when there is none."""
        shards = yield from self._shards()
        if self.shard not in shards or shards.index(self.shard) + 1 >= len(shards):
            return False
        self.shard = shards[shards.index(self.shard) + 1]
        self.iterator = yield from self._iterator("TRIM_HORIZON")
        return True

    def next_batch(self) -> Plan[list[Change]]:
        """The next records (an empty list when caught up)."""
        if self.finished:
            return []
        if self.iterator is None:
            yield from self._start()
        try:
            answer = yield self._call("GetRecords", {"ShardIterator": self.iterator})
        except ExpiredIteratorException:  # a long pause: go on from the last record
            self.iterator = yield from (
                self._iterator("AFTER_SEQUENCE_NUMBER", self.last)
                if self.last is not None else self._iterator("TRIM_HORIZON"))
            answer = yield self._call("GetRecords", {"ShardIterator": self.iterator})
        batch = [self._change(record) for record in answer["Records"]]
        self.iterator = answer.get("NextShardIterator")
        if self.iterator is None and not (yield from self._next_shard()):
            self.finished = True
        return batch

    def read(self, follow: bool, poll: float) -> Stream[Change]:
        """Every change from where the reader is: until caught up, or, with
        ``follow``, on and on (a pause of ``poll`` seconds when caught up)."""
        while True:
            batch = yield from self.next_batch()
            if batch:
                yield Emit(batch)
            elif not follow or self.finished:
                return
            else:
                yield Sleep(poll)

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
