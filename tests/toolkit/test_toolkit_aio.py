"""tallydb.aio: the same API with await, on every store."""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import tallydb.aio
from toolkit_stores import aws_client, http_client, unique

import tallydb
from tallydb import Path, Update

PAIRS = [
    (tallydb.Database, tallydb.aio.Database),
    (tallydb.Table, tallydb.aio.Table),
    (tallydb.Counter, tallydb.aio.Counter),
    (tallydb.ShardedCounter, tallydb.aio.ShardedCounter),
    (tallydb.Model, tallydb.aio.Model),
]


@pytest.mark.parametrize(("sync", "aio"), PAIRS, ids=lambda c: c.__name__)
def test_parity(sync: type, aio: type) -> None:
    """Every public method of the blocking API exists in tallydb.aio with the
    same parameters, awaited (query and scan: ``async for``)."""
    names = {n for n in dir(sync) if not n.startswith("_")}
    for name in sorted(names):
        blocking = inspect.getattr_static(sync, name)
        if isinstance(blocking, property) or not callable(getattr(sync, name)):
            continue
        assert hasattr(aio, name), f"tallydb.aio.{aio.__name__} lacks {name}"
        ours = getattr(aio, name)
        theirs = getattr(sync, name)
        assert list(inspect.signature(ours).parameters) == list(
            inspect.signature(theirs).parameters
        ), name
        if name in ("close", "__enter__", "__exit__"):
            continue
        if name in ("query", "scan") or (
            inspect.isgeneratorfunction(theirs) or inspect.isasyncgenfunction(ours)
        ):
            continue
        if inspect.getattr_static(aio, name) is blocking:
            continue  # inherited from the shared base: no I/O, one method for both
        if name in ("table", "bind", "transaction", "batch_writer"):
            continue  # no I/O: what they return sends (``async with``)
        assert inspect.iscoroutinefunction(ours), f"tallydb.aio.{aio.__name__}.{name}"


def run(store: str, request: pytest.FixtureRequest, body: Callable[[Any], Awaitable[None]]) -> None:
    if store == "embedded":
        db = tallydb.aio.connect(in_memory=True)
    elif store == "mock":
        request.getfixturevalue("tallydb_mock")
        db = tallydb.aio.connect(client=aws_client())
    else:
        fixture = {"serve": "tallydb_server", "moto": "moto_server",
                   "ddblocal": "dynamodb_local"}[store]
        db = tallydb.aio.connect(client=http_client(request.getfixturevalue(fixture).url))

    async def main() -> None:
        async with db:
            await body(db)

    asyncio.run(main())


def test_contract_with_await(store: str, request: pytest.FixtureRequest) -> None:
    async def body(db: tallydb.aio.Database) -> None:
        name = unique("videos")
        videos = await db.create_table(name, hash_key=("PK", "S"), range_key=("SK", "S"))
        key = {"PK": "VID#9f3a", "SK": "STATS#TOTAL"}
        plays = tallydb.aio.Counter(videos, key, "play_count")
        assert await plays.add() == 1
        assert await plays.add(5, idempotency_key="req-7f3") == 6
        assert await plays.add(5, idempotency_key="req-7f3") == 6
        assert await plays.value() == 6
        await plays.set(0)
        assert await plays.compare_and_set(0, 3) is True
        assert await plays.apply(lambda v: v * 2) == 6

        stock = tallydb.aio.Counter(videos, {"PK": "sku", "SK": "A1"}, "stock", minimum=0)
        with pytest.raises(tallydb.CounterLimitError):
            await stock.add(-3)

        views = tallydb.aio.ShardedCounter(
            videos, {"PK": "VID#9f3a"}, "STATS#TOTAL#", shards=10, attribute="play_count"
        )
        for _ in range(20):
            await views.add()
        assert await views.value() == 20

        await videos.update(key, Update().set("title", "Cats"))
        assert (await videos.get(key, consistent=True)) == {
            **key,
            "play_count": 6,
            "title": "Cats",
        }
        rows = [i async for i in videos.query({"PK": "VID#9f3a"}, consistent=True)]
        assert len(rows) >= 2
        assert await videos.count(Path("PK") == "sku", consistent=True) == 0
        assert [i async for i in videos.scan(Path("title") == "Cats", consistent=True)] == [
            await videos.get(key, consistent=True)
        ]
        await videos.delete(key)
        assert await videos.get(key, consistent=True) is None
        assert name in await db.list_tables()
        await db.delete_table(name)

    run(store, request, body)


def test_model_with_await(store: str, request: pytest.FixtureRequest) -> None:
    class Customer(tallydb.aio.Model, table=unique("customers")):
        id: str = tallydb.HashKey()
        update_counter: int = tallydb.AtomicCounter()
        custom_counter: int = tallydb.AtomicCounter(delta=5, start=10)
        version: int = tallydb.VersionAttribute()

    async def body(db: tallydb.aio.Database) -> None:
        Customer.bind(db)
        await Customer.create_table()
        c = Customer(id="SOME_ID")
        await c.update()
        assert (c.update_counter, c.custom_counter, c.version) == (0, 10, 1)
        await c.update()
        got = await Customer.get(id="SOME_ID", consistent=True)
        assert (got.update_counter, got.custom_counter, got.version) == (1, 15, 2)
        stale = Customer.from_item({"id": "SOME_ID", "version": 1})
        with pytest.raises(tallydb.VersionConflictError):
            await stale.update()
        assert [x.id async for x in Customer.query("SOME_ID", consistent=True)] == ["SOME_ID"]
        assert len([x async for x in Customer.scan()]) == 1
        await got.delete()
        with pytest.raises(tallydb.ItemNotFoundError):
            await got.refresh()
        await db.delete_table(Customer.table_name())

    run(store, request, body)


@pytest.mark.moto_deviation("concurrent writers lose updates on moto (see MOTO.md)", strict=False)
def test_concurrent_awaits(store: str, request: pytest.FixtureRequest) -> None:
    async def body(db: tallydb.aio.Database) -> None:
        videos = await db.create_table(
            unique("videos"), hash_key=("PK", "S"), range_key=("SK", "S")
        )
        views = tallydb.aio.ShardedCounter(videos, {"PK": "v"}, "S#", shards=4, attribute="n")
        plays = tallydb.aio.Counter(videos, {"PK": "v", "SK": "total"}, "n")
        await asyncio.gather(*(views.add() for _ in range(40)), *(plays.add() for _ in range(40)))
        await asyncio.gather(*(plays.add(1, idempotency_key=str(i % 10)) for i in range(20)))
        assert await views.value() == 40
        assert await plays.value() == 50
        await db.delete_table(videos.name)

    run(store, request, body)


def test_bind_checks_the_flavour() -> None:
    class A(tallydb.aio.Model, table="a"):
        id: str = tallydb.HashKey()

    with tallydb.connect(in_memory=True) as db, pytest.raises(TypeError, match="aio"):
        A.bind(db)  # type: ignore[arg-type]


def test_event_loop_is_not_blocked() -> None:
    """While a request is in flight, the loop keeps running: an add that
    must wait for the store's writer (held by another thread) is still
    pending after the loop has turned 100 times. (Were the add run on the
    loop's thread, the loop would stand still until the writer let go, and
    the add would be done by the time the turns end.)

    Holding the writer makes this independent of speed: adds in flight at
    once can all finish within one turn when the engine is fast enough."""

    async def main() -> None:
        async with tallydb.aio.connect(in_memory=True) as db:
            table = await db.create_table("ticks", hash_key=("id", "S"))
            counter = tallydb.aio.Counter(table, {"id": "x"}, "n")
            store = db.transport.engine.store
            held, release = threading.Event(), threading.Event()

            def hold_the_writer() -> None:
                with store.transaction():
                    held.set()
                    release.wait(5)  # let go in the end, even if the test is failing

            holder = threading.Thread(target=hold_the_writer)
            holder.start()
            held.wait(5)
            add = asyncio.create_task(counter.add())
            for _ in range(100):
                await asyncio.sleep(0)
            assert not add.done()
            release.set()
            assert await add == 1
            holder.join()

    asyncio.run(main())
