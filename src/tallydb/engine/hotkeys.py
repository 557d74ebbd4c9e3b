"""The busiest items over the last minute, in bounded memory.

What CloudWatch Contributor Insights shows for DynamoDB: the keys taking
the most requests (and, with ``--emulate-limits``, the most throttles). The
console's hot-keys panel feeds one from the change feed while a page
listens; contributor insights (``api/_insights``) keep one per table and
index with insights enabled, fed by the operations that touch its items.

A bounded top-k sketch with per-second buckets: writes are counted exactly
per item within the current second, in a counter that holds at most
``SECOND_KEYS`` items (once full, an item not already in it is counted only
if it evicts an item seen once: so the items written more than once a
second are never lost, whatever the key count). At each second's end its
``TOP_PER_SECOND`` busiest items enter the tracked set, each with a ring of
``WINDOW`` per-second counts; the set keeps the ``TRACKED`` items with the
most writes in the window. Memory is bounded by those constants, not by
how many keys the tables hold.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable, Iterable
from typing import Any

from tallydb.engine.feed import Change

WINDOW = 60  # seconds
SECOND_KEYS = 4096
TOP_PER_SECOND = 32
TRACKED = 64
SHOWN = 20

Item = dict[str, Any]
#: An item's identity: its table and its key as storage encodes it.
ItemId = tuple[str, bytes, bytes]


class _Tracked:
    __slots__ = ("counts", "id", "keys")

    def __init__(self, change: Change) -> None:
        self.id = item_id(change)
        self.keys = change.keys
        self.counts = [0] * WINDOW  # writes in each second of the window, by second % WINDOW


def item_id(change: Change) -> ItemId:
    return (change.table, change.hk, change.rk)


class HotKeys:
    """Feed ``record`` with committed writes (the live hub's coalesced
    changes) and ``throttled`` with refused requests; ``top()`` gives the
    panel."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self._second = int(clock())
        self._current: dict[ItemId, int] = {}
        self._first: dict[ItemId, Change] = {}  # the current second's first change of each
        self._tracked: dict[ItemId, _Tracked] = {}
        #: partitions refused in the current second: (table, hk) -> count
        self._throttles: dict[tuple[str, bytes], int] = {}
        self._throttle_window: dict[tuple[str, bytes], list[int]] = {}

    def record(self, counted: Iterable[tuple[Change, int]]) -> None:
        """Count writes: each item's latest change and how many it had."""
        now = int(self.clock())
        if now != self._second:
            self._roll(now)
        current = self._current
        for change, count in counted:
            key = (change.record.name, change.hk, change.rk)
            previous = current.get(key)
            if previous is not None:
                current[key] = previous + count
            elif len(current) < SECOND_KEYS or self._evict_a_single():
                current[key] = count
                self._first[key] = change

    def _evict_a_single(self) -> bool:
        """Make room for a new item by dropping one written once this second."""
        for key, count in self._current.items():
            if count == 1:
                del self._current[key]
                del self._first[key]
                return True
        return False

    def throttled(self, table: str, hk: bytes) -> None:
        """A request on ``table``'s partition ``hk`` was refused (throttled)."""
        now = int(self.clock())
        if now != self._second:
            self._roll(now)
        key = (table, hk)
        self._throttles[key] = self._throttles.get(key, 0) + 1

    def _roll(self, now: int) -> None:
        """Close the current second (and any idle ones up to ``now``)."""
        second = self._second
        slot = second % WINDOW
        busiest = heapq.nlargest(TOP_PER_SECOND, self._current.items(), key=lambda kv: kv[1])
        tracked = self._tracked
        for key, count in busiest:
            entry = tracked.get(key)
            if entry is None:
                entry = tracked[key] = _Tracked(self._first[key])
            entry.counts[slot] += count
        for partition, refused in self._throttles.items():
            window = self._throttle_window.setdefault(partition, [0] * WINDOW)
            window[slot] += refused
        # clear the slots of the seconds that start now (and those skipped)
        for passed in range(second + 1, min(now, second + WINDOW) + 1):
            cleared = passed % WINDOW
            for entry in tracked.values():
                entry.counts[cleared] = 0
            for window in self._throttle_window.values():
                window[cleared] = 0
        if len(tracked) > TRACKED:
            keep = heapq.nlargest(TRACKED, tracked.items(), key=lambda kv: sum(kv[1].counts))
            self._tracked = dict(keep)
        self._throttle_window = {k: w for k, w in self._throttle_window.items() if any(w)}
        self._current = {}
        self._first = {}
        self._throttles = {}
        self._second = now

    def top(self, limit: int = SHOWN) -> list[dict[str, Any]]:
        """The busiest items of the last ``WINDOW`` seconds, busiest first:
        table, keys, writes, rate (writes/s), spark (per-second writes,
        oldest first, the current second so far last) and throttled
        (refusals of its partition) and throttles (those refusals by
        second, as spark is, the current second so far last)."""
        now = int(self.clock())
        if now != self._second:
            self._roll(now)
        start = (now + 1) % WINDOW  # the oldest second of the window
        shown = []
        candidates = list(self._tracked.values())
        for key, _ in heapq.nlargest(limit, self._current.items(), key=lambda kv: kv[1]):
            if key not in self._tracked:  # busy only this second, so far
                candidates.append(_Tracked(self._first[key]))
        current = self._current
        ranked = sorted(candidates, key=lambda e: -sum(e.counts) - current.get(e.id, 0))
        for entry in ranked[:limit]:
            spark = entry.counts[start:] + entry.counts[:start]
            spark[-1] = current.get(entry.id, 0)
            writes = sum(spark)
            if not writes:
                break
            shown.append({
                "table": entry.id[0],
                "keys": entry.keys,
                "writes": writes,
                "rate": round(writes / WINDOW, 2),
                "spark": spark,
                "throttled": self._throttled_of(entry),
                "throttles": self._throttles_of(entry, start),
            })
        return shown

    def _throttles_of(self, entry: _Tracked, start: int) -> list[int]:
        window = self._throttle_window.get(entry.id[:2]) or [0] * WINDOW
        spark = window[start:] + window[:start]
        spark[-1] = self._throttles.get(entry.id[:2], 0)
        return spark

    def _throttled_of(self, entry: _Tracked) -> int:
        window = self._throttle_window.get(entry.id[:2])  # (table, partition)
        return sum(window) if window else 0
