"""The toolkit's ``table.changes()`` (and its async twin): an aggregate
counter kept from a stream, exact across a consumer stopped and resumed
mid-stream, on the embedded engine and through ``tallydb serve``.

The consumer is the README's: each order's INSERT adds one to its
customer's ``orders`` in ``orders_per_customer``, conditioned on the
customer's ``seen`` sequence number being older, so a change handed out
again after a stop (its position not yet saved) is not counted twice.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from contextlib import suppress
from decimal import Decimal
from pathlib import Path as FsPath
from typing import Any

import pytest
from tallydb.aio import connect as aio_connect
from tallytest import TallyServer, unique_name

import tallydb
from tallydb import Path, Update
from tallydb.engine.errors import ConditionalCheckFailedException

CUSTOMERS = ["ann", "bob", "cyd"]


def _tables(db: Any) -> tuple[str, str]:
    orders, totals = unique_name("orders"), unique_name("totals")
    db.client.create_table(
        TableName=orders, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "order", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "order", "KeyType": "HASH"}],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
    db.create_table(totals, hash_key=("customer", "S"))
    return orders, totals


def _place(db: Any, orders: str, first: int, count: int) -> Counter[str]:
    placed: Counter[str] = Counter()
    for n in range(first, first + count):
        customer = CUSTOMERS[n % 3]
        db.table(orders).put({"order": f"o{n:04d}", "customer": customer})
        placed[customer] += 1
    db.table(orders).update({"order": f"o{first:04d}"}, Update().set("paid", True))  # MODIFY
    return placed


def consume(db: Any, orders: str, totals: str, stop_after: int | None = None,
            forget_last_position: bool = False) -> int:
    """The README's consumer; stops after ``stop_after`` changes (a crash:
    with ``forget_last_position`` the last change is counted but its
    position not saved). How many changes it handled."""
    table, counts = db.table(orders), db.table(totals)
    saved = counts.get({"customer": "#position"}) or {}
    handled = 0
    for change in table.changes(after=saved.get("position")):
        if change.event == "INSERT":
            seq = Decimal(change.sequence_number)
            with suppress(ConditionalCheckFailedException):  # counted before a stop
                counts.update({"customer": change.new["customer"]},
                              Update().add("orders", 1).set("seen", seq),
                              condition=Path("seen").not_exists() | (Path("seen") < seq))
        handled += 1
        if stop_after is not None and handled == stop_after and forget_last_position:
            return handled
        counts.put({"customer": "#position", "position": change.position})
        if stop_after is not None and handled == stop_after:
            return handled
    return handled


def _totals(db: Any, totals: str) -> dict[str, int]:
    return {c: int(db.table(totals).get({"customer": c})["orders"]) for c in CUSTOMERS}


@pytest.fixture(params=["embedded", "server"])
def db(request: pytest.FixtureRequest, tmp_path: FsPath) -> Iterator[Any]:
    if request.param == "embedded":
        database = tallydb.connect(path=tmp_path / "data")
    else:
        server: TallyServer = request.getfixturevalue("tallydb_server")
        database = tallydb.connect(server.url)
    yield database
    database.close()


def test_orders_per_customer_stays_exact_across_stops(db: Any) -> None:
    orders, totals = _tables(db)
    placed = _place(db, orders, 0, 30)
    assert consume(db, orders, totals, stop_after=10) == 10
    assert consume(db, orders, totals, stop_after=7, forget_last_position=True) == 7
    placed += _place(db, orders, 30, 12)  # more orders while the consumer is down
    consume(db, orders, totals)
    assert _totals(db, totals) == dict(placed)
    assert consume(db, orders, totals) == 0  # caught up: nothing handed out again


def test_changes_carry_images_and_positions(db: Any) -> None:
    orders, _ = _tables(db)
    table = db.table(orders)
    table.put({"order": "o1", "customer": "ann"})
    table.delete({"order": "o1"})
    changes = list(table.changes())
    assert [c.event for c in changes] == ["INSERT", "REMOVE"]
    assert changes[0].keys == {"order": "o1"} and changes[0].new == {
        "order": "o1", "customer": "ann"}
    assert changes[1].new is None and changes[1].old is None  # NEW_IMAGE: no old image
    assert list(table.changes(after=changes[0].position)) == changes[1:]
    assert list(table.changes(latest=True)) == []


def test_a_table_without_a_stream(db: Any) -> None:
    name = unique_name("plain")
    table = db.create_table(name, hash_key=("id", "S"))
    with pytest.raises(ValueError, match="has no stream"):
        list(table.changes())


def test_async_twin(tmp_path: FsPath) -> None:
    async def run() -> list[str]:
        async with aio_connect(path=tmp_path / "aio") as db:
            orders = unique_name("orders")
            await asyncio.to_thread(
                db.client.create_table, TableName=orders, BillingMode="PAY_PER_REQUEST",
                AttributeDefinitions=[{"AttributeName": "order", "AttributeType": "S"}],
                KeySchema=[{"AttributeName": "order", "KeyType": "HASH"}],
                StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
            table = db.table(orders)
            for n in range(3):
                await table.put({"order": f"o{n}"})
            return [change.keys["order"] async for change in table.changes()]

    assert asyncio.run(run()) == ["o0", "o1", "o2"]
