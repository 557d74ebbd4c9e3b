"""The operational view's numbers: per table and second, requests by
operation, consumed read and write units, throttles and latency, over the
last ``WINDOW`` seconds, in bounded memory.

What CloudWatch shows for a DynamoDB table, as the server sees it. The
server hands each answered request to ``record`` only while a console page
listens (``LiveHub`` turns it on and off), so with no page open nothing is
counted. A second's latencies go into a histogram of ``BUCKETS`` buckets
growing by ``RATIO`` (about 5 % wide each, from 10 µs), so p50 and p99 are
read from it within that; at most ``TABLES`` tables are kept (the rest are
counted as ``OTHER``) and ``WINDOW`` seconds of each, whatever the load.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

WINDOW = 300  # seconds kept
TABLES = 64
OTHER = "(other tables)"
SMALLEST = 1e-5  # seconds: the first bucket's upper bound
RATIO = 1.05
BUCKETS = 300  # up to SMALLEST * RATIO**BUCKETS, about 22 minutes
_LOG_RATIO = math.log(RATIO)


def _bound(bucket: int) -> float:
    """The upper bound of a bucket, in milliseconds."""
    return SMALLEST * RATIO ** bucket * 1000


class _Second:
    """One table's second."""

    __slots__ = ("latency", "operations", "read", "throttled", "write")

    def __init__(self) -> None:
        self.operations: dict[str, int] = {}
        self.read = 0.0
        self.write = 0.0
        self.throttled = 0
        self.latency: dict[int, int] = {}  # bucket -> requests

    def percentile(self, fraction: float) -> float | None:
        total = sum(self.latency.values())
        if not total:
            return None
        rank = fraction * total
        seen = 0
        for bucket in sorted(self.latency):
            seen += self.latency[bucket]
            if seen >= rank:
                return round(_bound(bucket), 3)
        return None  # not reached: the ranks add up to total

    def summary(self) -> dict[str, Any]:
        return {"operations": self.operations, "read": round(self.read, 2),
                "write": round(self.write, 2), "throttled": self.throttled,
                "p50": self.percentile(0.5), "p99": self.percentile(0.99)}


class Metrics:
    """``record`` each answered request; ``closed()`` gives the seconds
    that ended since it was last asked, ``window()`` all those kept."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self._second = int(clock())
        self._current: dict[str, _Second] = {}
        #: (second, {table: summary}) of the seconds that ended, oldest first
        self._past: deque[tuple[int, dict[str, dict[str, Any]]]] = deque(maxlen=WINDOW)
        self._tables: set[str] = set()
        self._unsent = 0  # how many of _past closed() has not given yet

    def record(self, table: str, operation: str, latency: float, read: float = 0.0,
               write: float = 0.0, throttled: bool = False) -> None:
        self.record_all(((table, operation, latency, read, write, throttled),))

    def record_all(self, requests: Iterable[tuple[str, str, float, float, float, bool]]
                   ) -> None:
        """``record`` each of ``requests`` (table, operation, latency, read
        and write units, throttled), answered in the same second."""
        now = int(self.clock())
        if now != self._second:
            self._roll(now)
        tables = self._tables
        current = self._current
        log = math.log
        for table, operation, latency, read, write, throttled in requests:
            if table not in tables:
                if len(tables) >= TABLES:
                    table = OTHER
                tables.add(table)
            second = current.get(table)
            if second is None:
                second = current[table] = _Second()
            operations = second.operations
            operations[operation] = operations.get(operation, 0) + 1
            second.read += read
            second.write += write
            if throttled:
                second.throttled += 1
            # the latency's bucket: the first is up to SMALLEST, each next RATIO wider
            bucket = (0 if latency <= SMALLEST else
                      min(BUCKETS - 1, int(log(latency / SMALLEST) / _LOG_RATIO) + 1))
            histogram = second.latency
            histogram[bucket] = histogram.get(bucket, 0) + 1

    def _roll(self, now: int) -> None:
        if self._current:
            self._past.append((self._second, {t: s.summary() for t, s in self._current.items()}))
            self._unsent = min(WINDOW, self._unsent + 1)
        self._current = {}
        self._second = now
        oldest = now - WINDOW
        while self._past and self._past[0][0] < oldest:
            self._past.popleft()
        self._unsent = min(self._unsent, len(self._past))
        if not self._past:
            self._tables = set()

    def closed(self) -> list[tuple[int, dict[str, dict[str, Any]]]]:
        """The seconds that ended since the last call, oldest first."""
        now = int(self.clock())
        if now != self._second:
            self._roll(now)
        unsent, self._unsent = self._unsent, 0
        return list(self._past)[len(self._past) - unsent:] if unsent else []

    def window(self) -> list[tuple[int, dict[str, dict[str, Any]]]]:
        """Every second kept, oldest first (seconds with no request left out)."""
        now = int(self.clock())
        if now != self._second:
            self._roll(now)
        return list(self._past)
