"""A counter for global tables: one shard per region, summed on read.

On a global table in its default mode (multi-Region eventual consistency)
every replica takes writes and sends them to the others asynchronously, and
when two regions change one item at about the same time the later write
wins, item by item: two regions that each ``ADD 1`` to the same counter can
end with 1, not 2. :class:`RegionalCounter` never has two regions write one
item: each region adds to its own shard, an item of the counter's partition
whose sort key ends in the region's name, and :meth:`value` sums every
region's shard (one paged Query). No increment is lost, whatever the
replication delay::

    plays = tallydb.RegionalCounter(videos, partition={"PK": "VID#9f3a"},
                                    sort_prefix="PLAYS#", attribute="play_count")
    plays.add()        # UpdateItem ADD on PLAYS#<this client's region>
    plays.value()      # the sum of every region's shard
    plays.by_region()  # {"eu-west-1": 1000, "us-east-1": 1000}

The trade-off: a read is a Query of as many items as regions have written
(not one GetItem), and it sees another region's increments only once they
have been replicated to the region it reads in (after the replication
delay): the total is eventually exact everywhere, never more and never
less than what was added. The region is the one the table's client sends
its requests to (pass ``region=`` to name another). A strongly consistent
global table (MRSC) needs none of this: it refuses a conflicting write
instead (ReplicatedWriteConflictException), and a plain
:class:`~tallydb.toolkit.counters.Counter` is exact there.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from tallydb.toolkit.conditions import Path
from tallydb.toolkit.convert import Number
from tallydb.toolkit.counters import Delta, ShardedCounterBase, _dig, _number
from tallydb.toolkit.driver import Blocking, operation
from tallydb.toolkit.table import TableBase
from tallydb.toolkit.transport import Plan
from tallydb.toolkit.update import Update

__all__ = ["RegionalCounter", "RegionalCounterBase"]


class RegionalCounterBase(ShardedCounterBase):
    """What the blocking and the asyncio regional counter share: the
    configuration, and every method as a plan."""

    def __init__(
        self,
        table: TableBase,
        partition: Mapping[str, Any],
        sort_prefix: str,
        attribute: str = "count",
        *,
        region: str | None = None,
        sort_key: str | None = None,
    ) -> None:
        """A counter whose shards are the items ``sort_prefix + REGION`` of
        one partition, one per region that adds to it.

        ``partition`` is the partition (hash) key (``{"PK": "VID#9f3a"}``);
        the table needs a string sort key (looked up, or ``sort_key=``).
        ``region``: the shard this counter adds to; by default the region of
        the table's client.
        """
        super().__init__(table, partition, sort_prefix, 1, attribute, sort_key=sort_key)
        self.region = region if region is not None else table.transport.region

    def __repr__(self) -> str:
        return (f"<{type(self).__name__} {self.table.name}{self.partition} "
                f"{self.sort_prefix}{self.region} {self.attribute}>")

    @operation
    def add(self, delta: Delta = 1) -> Plan[Number]:
        """Add ``delta`` to this region's shard (one UpdateItem ADD); the
        shard's new value."""
        return self._p_add_here(delta)

    @operation
    def by_region(self) -> Plan[dict[str, Number]]:
        """Each region's shard, as this region sees them (one paged Query)."""
        return self._p_by_region()

    def _p_add_here(self, delta: Delta) -> Plan[Number]:
        _number("delta", delta)
        sort_key = yield from self._p_sort_key()
        key = {**self.partition, sort_key: f"{self.sort_prefix}{self.region}"}
        answer = yield from self.table._p_update(
            key, Update().add(self.path, delta), None, None, None, "UPDATED_NEW")
        value = _dig(answer, self.path.elements)
        return value if isinstance(value, int | Decimal) else 0

    def _p_by_region(self) -> Plan[dict[str, Number]]:
        sort_key = yield from self._p_sort_key()
        ((hash_name, hash_value),) = self.partition.items()
        request = self.table._query_request(
            (Path(hash_name) == hash_value) & Path(sort_key).begins_with(self.sort_prefix),
            None, [self.path, Path.of(sort_key)], None, None, False, True, None, None)
        shards: dict[str, Number] = {}
        start = None
        while True:
            items, start, _ = yield from self.table._p_page("Query", request, start)
            for item in items:
                value = _dig(item, self.path.elements)
                if isinstance(value, int | Decimal) and not isinstance(value, bool):
                    shards[str(item[sort_key])[len(self.sort_prefix):]] = value
            if not start:
                return shards


class RegionalCounter(RegionalCounterBase, Blocking):
    """A counter for global tables, one shard per region (blocking API)."""
