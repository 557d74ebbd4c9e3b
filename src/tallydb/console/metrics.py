"""The operational view's numbers: per table and second, requests by
operation, consumed read and write units, throttles and latency, over the
last ``WINDOW`` seconds, in bounded memory.

What CloudWatch shows for a DynamoDB table, as the server sees it. The
server hands each batch of answered requests to ``record_answers`` only
while a console page listens (``LiveHub`` turns it on and off), so with no
page open nothing is counted. Requests, units and throttles are counted
exactly. A second's latencies go into a histogram of ``BUCKETS`` buckets
growing by ``RATIO`` (about 5 % wide each, from 10 µs), so p50 and p99 are
read from it within that; a table's first ``TIMED_EXACTLY`` requests of a
second are each timed, and past that every ``STRIDE``-th, counted
``STRIDE`` times (a busy second's percentiles are then those of a
systematic sample of thousands of requests). At most ``TABLES`` tables are
kept (the rest are counted as ``OTHER``) and ``WINDOW`` seconds of each,
whatever the load.
"""

from __future__ import annotations

import time
from bisect import bisect_left
from collections import deque
from collections.abc import Callable, Iterable
from itertools import accumulate
from typing import Any, Protocol

WINDOW = 300  # seconds kept
TABLES = 64
OTHER = "(other tables)"
SMALLEST = 1e-5  # seconds: the first bucket's upper bound
RATIO = 1.05
BUCKETS = 300  # up to SMALLEST * RATIO**BUCKETS, about 22 minutes
TIMED_EXACTLY = 2000  # a table's requests a second that are each timed
STRIDE = 7  # past those, one in STRIDE (prime: batches come in powers of two)
#: each bucket's upper bound, in seconds (the last one's is the rest)
_UPPER = [SMALLEST * RATIO ** bucket for bucket in range(BUCKETS - 1)]
#: the operations whose units are read units (the others': write units)
READS = frozenset({"GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems"})
UNKNOWN = "(no table)"


def _bound(bucket: int) -> float:
    """The upper bound of a bucket, in milliseconds."""
    return SMALLEST * RATIO ** bucket * 1000


class Answer(Protocol):
    """An answered request, as the server hands it over: its operation
    (None: not one), the ``perf_counter`` time it was complete, and what it
    consumed: ``(table, units)`` (a float: ConsumedCapacity TOTAL), or the
    table's name alone for one unit, or the ConsumedCapacity it was answered
    with (one entry, or a list), or for an answer without one (an error,
    say) ``(table, whether it was a throttle)``; None: not counted."""

    @property
    def operation(self) -> str | None: ...
    @property
    def started(self) -> float: ...
    @property
    def observed(self) -> dict[str, Any] | list[Any] | tuple[str, bool | float] | str | None:
        ...
    @property
    def request(self) -> Any: ...


class _Second:
    """One table's second."""

    __slots__ = ("latency", "operations", "read", "requests", "throttled", "write")

    def __init__(self) -> None:
        self.operations: dict[str, int] = {}
        self.requests = 0
        self.read = 0.0
        self.write = 0.0
        self.throttled = 0
        self.latency = [0] * BUCKETS  # requests timed, by bucket

    def percentile(self, fraction: float) -> float | None:
        """The upper bound (ms) of the bucket holding the ``fraction``-th
        request timed."""
        timed = list(accumulate(self.latency))  # requests timed up to each bucket
        if not timed[-1]:
            return None
        return round(_bound(bisect_left(timed, fraction * timed[-1])), 3)

    def summary(self) -> dict[str, Any]:
        return {"operations": self.operations, "read": round(self.read, 2),
                "write": round(self.write, 2), "throttled": self.throttled,
                "p50": self.percentile(0.5), "p99": self.percentile(0.99)}


_NOWHERE = _Second()


class Metrics:
    """``record_answers`` each batch of answered requests (or ``record``
    one); ``closed()`` gives the seconds
    that ended since it was last asked, ``window()`` all those kept."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self._second = int(clock())
        self._current: dict[str, _Second] = {}
        #: (second, {table: summary}) of the seconds that ended, oldest first
        self._past: deque[tuple[int, dict[str, dict[str, Any]]]] = deque(maxlen=WINDOW)
        self._tables: set[str] = set()
        self._unsent = 0  # how many of _past closed() has not given yet

    def record(self, table: str, operation: str, latency: float | None, read: float = 0.0,
               write: float = 0.0, throttled: bool = False) -> None:
        """Count one request, and time it (None: not timed) whatever
        ``TIMED_EXACTLY``."""
        now = int(self.clock())
        if now != self._second:
            self._roll(now)
        self._count(table, operation, latency, read, write, throttled)

    def _count(self, table: str, operation: str, latency: float | None, read: float = 0.0,
               write: float = 0.0, throttled: bool = False) -> None:
        """``record`` in the current second, whatever the clock says now."""
        second = self._table(table)
        operations = second.operations
        operations[operation] = operations.get(operation, 0) + 1
        second.requests += 1
        second.read += read
        second.write += write
        if throttled:
            second.throttled += 1
        if latency is not None:
            second.latency[bisect_left(_UPPER, latency)] += 1

    def _table(self, table: str) -> _Second:
        """The current second of ``table`` (or of ``OTHER``, past ``TABLES``)."""
        second = self._current.get(table)
        if second is None:
            if table not in self._tables:
                if len(self._tables) >= TABLES:
                    table = OTHER
                    second = self._current.get(table)
                self._tables.add(table)
            if second is None:
                second = self._current[table] = _Second()
        return second

    def record_answers(self, answers: Iterable[Answer], now: float) -> None:
        """Count a batch of answered requests (each ``Answer``), answered
        at ``perf_counter`` time ``now``: the common answers (one table's
        units, as a pair, a table's name or a ConsumedCapacity TOTAL) read in
        place, the rest by ``_other``. Answers of one operation with the very
        same ``observed`` one after another (an engine's units report gives a
        hot counter's writes one) are a run, counted once it ends; each
        answer of it is still timed as ``TIMED_EXACTLY`` says."""
        second_now = int(self.clock())
        if second_now != self._second:
            self._roll(second_now)
        current = self._current
        upper = _UPPER
        same: object = None  # the run's observed (None: no run)
        operation_of_run: str | None = None
        second = _NOWHERE  # the run's table's second
        latency = second.latency
        units = 0.0
        started = counted = 0  # the second's requests before the run, and with it
        for answer in answers:
            observed = answer.observed
            operation = answer.operation
            if observed is not same or operation is not operation_of_run:
                if counted != started:
                    _count_run(second, operation_of_run, units, counted - started)
                    started = counted
                same = None
                if observed is None or operation is None:
                    continue
                if type(observed) is str:  # the engine's report of one unit
                    found: object = observed
                    spent: object = 1.0
                elif type(observed) is tuple:  # (table, units), or (table, throttled)
                    found, spent = observed
                elif type(observed) is dict and len(observed) == 2:  # TOTAL, one table
                    found = observed.get("TableName")
                    spent = observed.get("CapacityUnits")
                else:
                    found = spent = None
                if type(found) is not str or type(spent) is not float:
                    self._other(answer, now)
                    continue
                second = current.get(found) or self._table(found)
                latency = second.latency
                units, same, operation_of_run = spent, observed, operation
                started = counted = second.requests
            counted += 1
            if counted <= TIMED_EXACTLY:
                weight = 1
            elif counted % STRIDE:
                continue
            else:
                weight = STRIDE
            try:
                latency[bisect_left(upper, now - answer.started)] += weight
            except AttributeError:  # complete before the page opened: not timed
                continue
        if counted != started:
            _count_run(second, operation_of_run, units, counted - started)

    def _other(self, answer: Answer, now: float) -> None:
        """Count an answer other than the common one: each table of a list
        of ConsumedCapacity entries (the transactions' Read/WriteCapacityUnits
        where given), or an answer without units; in the second the batch is
        counted in (``record_answers`` holds that second's numbers)."""
        observed = answer.observed
        operation = answer.operation
        assert operation is not None
        try:
            latency: float | None = now - answer.started
        except AttributeError:  # complete before the page opened: not timed
            latency = None
        if type(observed) is tuple:
            self._count(observed[0], operation, latency, throttled=bool(observed[1]))
            return
        entries = observed if isinstance(observed, list) else [observed]
        reads = operation in READS
        counted = False
        for entry in entries:
            if not isinstance(entry, dict):
                continue
            total = float(entry.get("CapacityUnits") or 0.0)
            read = entry.get("ReadCapacityUnits")
            write = entry.get("WriteCapacityUnits")
            if read is None and write is None:
                read, write = (total, 0.0) if reads else (0.0, total)
            self._count(str(entry.get("TableName") or table_of(answer.request)), operation,
                        latency, float(read or 0.0), float(write or 0.0))
            counted = True
        if not counted:
            self._count(table_of(answer.request), operation, latency)

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


def _count_run(second: _Second, operation: str | None, units: float, run: int) -> None:
    """Count ``run`` answers of ``operation``, each of ``units``, in ``second``
    (units are whole or half units, so ``units * run`` is their exact sum)."""
    assert operation is not None
    operations = second.operations
    operations[operation] = operations.get(operation, 0) + run
    second.requests += run
    if operation in READS:
        second.read += units * run
    else:
        second.write += units * run


def table_of(request: Any) -> str:
    """The table a request names (its first, for a batch)."""
    if type(request) is dict:
        name = request.get("TableName")
        if isinstance(name, str):
            return name
        items = request.get("RequestItems")
        if isinstance(items, dict) and items:
            return str(next(iter(items)))
    return UNKNOWN
