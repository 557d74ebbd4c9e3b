"""The toolkit for asyncio: the same API, awaited.

::

    import tallydb.toolkit.aio

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

Every operation is the very same plan as the blocking API's (see
:mod:`tallydb.toolkit.transport`), so behaviour, requests and errors are identical;
only the driver differs: requests are sent from a thread pool (botocore is
blocking) and pauses are ``asyncio.sleep``, so the event loop never blocks.
The builders (:class:`~tallydb.toolkit.update.Update`, :class:`~tallydb.toolkit.conditions.Path`,
conditions), attribute declarations and exceptions are the blocking API's own.
"""

from tallydb.toolkit.aio.counters import Counter, ShardedCounter
from tallydb.toolkit.aio.database import Database, connect
from tallydb.toolkit.aio.model import Model
from tallydb.toolkit.aio.table import Table

__all__ = ["Counter", "Database", "Model", "ShardedCounter", "Table", "connect"]
