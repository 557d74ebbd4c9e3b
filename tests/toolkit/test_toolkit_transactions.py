"""Transactions on every store: db.transaction() and db.transact_get()."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from test_toolkit_batches import Requests
from toolkit_stores import unique

import tallydb
from tallydb import Path, Update


@pytest.fixture
def shop(make_table: Callable[..., tallydb.Table]) -> tuple[tallydb.Table, tallydb.Table]:
    items = make_table("items", hash_key=("sku", "S"))
    orders = make_table("orders", hash_key=("id", "S"))
    items.put({"sku": "A1", "stock": 1})
    return items, orders


def test_a_transaction_commits_every_action_as_one_request(
    db: tallydb.Database, shop: tuple[tallydb.Table, tallydb.Table]
) -> None:
    items, orders = shop
    orders.put({"id": "old"})
    items.put({"sku": "C3"})
    requests = Requests(db)
    with db.transaction() as t:
        t.put(orders, {"id": "o1", "sku": "A1"}, condition=Path("id").not_exists())
        t.update(items, {"sku": "A1"}, Update().add("stock", -1), condition=Path("stock") >= 1)
        t.condition_check(items.name, {"sku": "C3"}, Path("sku").exists())
        t.delete(orders, {"id": "old"})
    (request,) = requests.of("TransactWriteItems")
    assert len(request["TransactItems"]) == 4
    assert request["ClientRequestToken"] == t.token
    assert items.get({"sku": "A1"}, consistent=True) == {"sku": "A1", "stock": 0}
    assert orders.get({"id": "o1"}, consistent=True) == {"id": "o1", "sku": "A1"}
    assert orders.get({"id": "old"}, consistent=True) is None


def test_a_cancelled_transaction_says_which_action_failed_and_why(
    db: tallydb.Database, shop: tuple[tallydb.Table, tallydb.Table]
) -> None:
    items, orders = shop
    with pytest.raises(tallydb.TransactionCancelled) as caught, db.transaction() as t:
        t.put(orders, {"id": "o2"})
        t.update(items, {"sku": "A1"}, Update().add("stock", -5), condition=Path("stock") >= 5)
    error = caught.value
    assert isinstance(error, tallydb.TransactionCanceledException)
    assert error.code() == "TransactionCanceledException"
    assert [(i, code) for i, _, code, _ in error.failures] == [(1, "ConditionalCheckFailed")]
    assert f"action 1 (update of {{'sku': 'A1'}} on {items.name!r}) failed" in str(error)
    assert "ConditionalCheckFailed" in str(error)
    assert orders.get({"id": "o2"}, consistent=True) is None  # nothing applied


def test_an_exception_in_the_block_sends_nothing(
    db: tallydb.Database, shop: tuple[tallydb.Table, tallydb.Table]
) -> None:
    _, orders = shop
    with pytest.raises(RuntimeError), db.transaction() as t:
        t.put(orders, {"id": "o3"})
        raise RuntimeError("changed my mind")
    assert orders.get({"id": "o3"}, consistent=True) is None


@pytest.mark.moto_deviation("ClientRequestToken is ignored: the same transaction is applied twice")
def test_the_same_token_is_applied_once(
    db: tallydb.Database, shop: tuple[tallydb.Table, tallydb.Table]
) -> None:
    """DynamoDB's ClientRequestToken: a retry of a committed transaction
    with the same token is not applied again."""
    items, _ = shop
    items.put({"sku": "B2", "n": 0})
    for _ in range(2):
        with db.transaction(token="fixed-token-1") as t:
            t.update(items, {"sku": "B2"}, Update().add("n", 1))
    assert items.get({"sku": "B2"}, consistent=True) == {"sku": "B2", "n": 1}


def test_transact_get_reads_in_order(
    db: tallydb.Database, shop: tuple[tallydb.Table, tallydb.Table]
) -> None:
    items, orders = shop
    orders.put({"id": "o9", "total": 3})
    assert db.transact_get([(items, {"sku": "A1"}), (orders, {"id": "missing"}),
                            (orders.name, {"id": "o9"})]) == [
        {"sku": "A1", "stock": 1}, None, {"id": "o9", "total": 3}]
    assert db.transact_get([]) == []
    with pytest.raises(TypeError, match="pairs"):
        db.transact_get([items])  # type: ignore[list-item]


def test_async_transactions(store: str, request: pytest.FixtureRequest) -> None:
    from test_toolkit_aio import run

    async def body(db: Any) -> None:
        table = await db.create_table(unique("tx"), hash_key=("id", "S"))
        async with db.transaction() as t:
            t.put(table, {"id": "a", "n": 1})
            t.put(table, {"id": "b", "n": 2})
        assert await db.transact_get([(table, {"id": "a"}), (table, {"id": "b"})]) == [
            {"id": "a", "n": 1}, {"id": "b", "n": 2}]
        with pytest.raises(tallydb.TransactionCancelled):
            async with db.transaction() as t:
                t.put(table, {"id": "a"}, condition=Path("id").not_exists())
        await db.delete_table(table.name)

    run(store, request, body)
