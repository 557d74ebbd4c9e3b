"""Async counters: :mod:`tallydb.toolkit.counters`' methods, awaited."""

from __future__ import annotations

from collections.abc import Callable

from tallydb.toolkit.aio.table import Table
from tallydb.toolkit.convert import Number
from tallydb.toolkit.counters import CounterBase, Delta, ShardedCounterBase
from tallydb.toolkit.update import Update

__all__ = ["Counter", "ShardedCounter"]


class Counter(CounterBase):
    """A numeric attribute of one item, changed atomically (async API).

    Constructed exactly as :class:`tallydb.Counter`, from a
    :class:`tallydb.aio.Table`.
    """

    table: Table

    async def add(
        self,
        delta: Delta = 1,
        *,
        idempotency_key: str | None = None,
        also: Update | None = None,
    ) -> Number:
        """Add ``delta``; the new value (see :meth:`tallydb.Counter.add`)."""
        result: Number = await self.table.transport.arun(
            self._p_add(delta, idempotency_key, also)
        )
        return result

    async def value(self) -> Number:
        """The current value (strongly consistent); 0 if never set."""
        result: Number = await self.table.transport.arun(self._p_value())
        return result

    async def set(self, value: Delta) -> None:
        """Overwrite the value."""
        await self.table.transport.arun(self._p_set(value))

    async def compare_and_set(self, expected: Delta | None, new: Delta) -> bool:
        """``SET n = :new`` only if ``n = :expected``."""
        result: bool = await self.table.transport.arun(self._p_compare_and_set(expected, new))
        return result

    async def apply(
        self, fn: Callable[[Number], Delta], *, attempts: int = 10, backoff: float = 0.005
    ) -> Number:
        """Change the value to ``fn(current)`` exactly, retrying on contention."""
        result: Number = await self.table.transport.arun(self._p_apply(fn, attempts, backoff))
        return result


class ShardedCounter(ShardedCounterBase):
    """A counter spread over shards (async API); see :class:`tallydb.ShardedCounter`."""

    table: Table

    async def add(
        self,
        delta: Delta = 1,
        *,
        idempotency_key: str | None = None,
        also: Update | None = None,
    ) -> None:
        """Add ``delta`` to a random shard."""
        await self.table.transport.arun(self._p_add(delta, idempotency_key, also))

    async def value(self) -> Number:
        """The total of every shard."""
        result: Number = await self.table.transport.arun(self._p_value())
        return result
