"""The toolkit for asyncio: the same API, awaited (``tallydb.aio``).

::

    import tallydb.aio

    db = tallydb.aio.connect()                    # same arguments as tallydb.connect
    videos = await db.create_table("videos", hash_key=("PK", "S"), range_key=("SK", "S"))
    plays = tallydb.aio.Counter(videos, {"PK": "VID#9f3a", "SK": "STATS#TOTAL"}, "play_count")
    await plays.add()
    await plays.add(5, idempotency_key="req-7f3")
    async for item in videos.query({"PK": "VID#9f3a"}):
        ...

    class Customer(tallydb.aio.Model, table="customers"):
        id: str = tallydb.HashKey()
        visits: int = tallydb.AtomicCounter()
    Customer.bind(db); await Customer.create_table()
    c = Customer(id="c1"); await c.update()

Each class here is its blocking twin's base class run by the asyncio
driver (:mod:`tallydb.toolkit.driver`): every method is the very same plan,
so behaviour, requests and errors are identical; requests are sent from a
thread pool (botocore is blocking) and pauses are ``asyncio.sleep``, so the
event loop never blocks. The builders (:class:`~tallydb.toolkit.update.Update`,
:class:`~tallydb.toolkit.conditions.Path`, conditions), attribute
declarations and exceptions are the blocking API's own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from tallydb.toolkit import database
from tallydb.toolkit.batch import BatchWriterBase
from tallydb.toolkit.counters import CounterBase, ShardedCounterBase
from tallydb.toolkit.database import DatabaseBase
from tallydb.toolkit.driver import Awaiting
from tallydb.toolkit.model import ModelBase
from tallydb.toolkit.regional import RegionalCounterBase
from tallydb.toolkit.requests import KeySchema
from tallydb.toolkit.table import TableBase
from tallydb.toolkit.transaction import TransactionBase
from tallydb.toolkit.transport import Plan

__all__ = [
    "BatchWriter",
    "Counter",
    "Database",
    "Model",
    "RegionalCounter",
    "ShardedCounter",
    "Table",
    "Transaction",
    "connect",
]

P = ParamSpec("P")
T = TypeVar("T")


class BatchWriter(BatchWriterBase, Awaiting):
    """``async with table.batch_writer() as batch: await batch.put(...)``."""

    async def __aenter__(self) -> BatchWriter:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.flush()


class Table(TableBase, Awaiting):
    """A DynamoDB table, async API; see :class:`tallydb.Table`."""

    async def schema(self) -> KeySchema:
        """The key schema (asked for once, then remembered)."""
        plan: Plan[KeySchema] = self._p_schema()
        return await self.transport.arun(plan)

    def batch_writer(self) -> BatchWriter:
        """BatchWriteItem, 25 at a time: ``async with table.batch_writer() as b:``."""
        return BatchWriter(self)


class Transaction(TransactionBase, Awaiting):
    """``async with db.transaction() as t: ...``: committed when the block ends."""

    async def __aenter__(self) -> Transaction:
        return self

    async def __aexit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        if kind is None and not self.committed:
            await self.commit()


class Database(DatabaseBase[Table, Transaction], Awaiting):
    """A connection to a store (async API). Make one with :func:`connect`;
    ``await db.close()`` (or ``async with``) releases it."""

    _table_class = Table
    _transaction_class = Transaction

    async def __aenter__(self) -> Database:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


def _arguments_of(_: Callable[P, Any]) -> Callable[[Callable[..., T]], Callable[P, T]]:
    """Give the decorated function the arguments of another, for type checkers."""
    return lambda function: function


@_arguments_of(database.connect)
def connect(*args: Any, **kwargs: Any) -> Database:
    """Open a store for asyncio; the arguments are :func:`tallydb.connect`'s.
    (Opening sends nothing, so it is not awaited.)"""
    return Database(database.open_transport(*args, **kwargs))


class Model(ModelBase[Database, Table], Awaiting):
    """Base class of typed models (async API). Declared exactly as
    :class:`tallydb.Model`; bind it to a :class:`tallydb.aio.Database`."""

    _database_class = Database
    _table_class = Table


class Counter(CounterBase, Awaiting):
    """A numeric attribute of one item, changed atomically (async API).

    Constructed exactly as :class:`tallydb.Counter`, from a :class:`tallydb.aio.Table`.
    """


class ShardedCounter(ShardedCounterBase, Awaiting):
    """A counter spread over shards (async API); see :class:`tallydb.ShardedCounter`."""


class RegionalCounter(RegionalCounterBase, Awaiting):
    """A counter for global tables, one shard per region (async API); see
    :class:`tallydb.RegionalCounter`."""
