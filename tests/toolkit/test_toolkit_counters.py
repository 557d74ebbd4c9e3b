"""Counters: plain, bounded, compare-and-set, idempotent, sharded."""

from __future__ import annotations

import time
from decimal import Decimal
from typing import Any

import pytest

import tallydb
from tallydb import Update
from tallydb.toolkit.counters import (
    COMPANION_TABLE,
    DEDUPE_TAG,
    DELTA_ATTRIBUTE,
    VALUE_ATTRIBUTE,
)

KEY = {"PK": "VID#9f3a", "SK": "STATS#TOTAL"}


class Recorder:
    """Wraps a Database's transport to see the requests the toolkit sends."""

    def __init__(self, db: tallydb.Database) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        transport = db.transport
        original = transport.call
        original_wire = transport.call_wire

        def call(operation: str, request: dict[str, Any]) -> dict[str, Any]:
            self.calls.append((operation, request))
            return original(operation, request)

        def call_wire(
            operation: str, request: dict[str, Any], wire: dict[str, Any]
        ) -> dict[str, Any]:
            self.calls.append((operation, request))
            return original_wire(operation, request, wire)

        transport.call = call  # type: ignore[method-assign]
        transport.call_wire = call_wire  # type: ignore[method-assign]

    def operations(self) -> list[str]:
        return [op for op, _ in self.calls]


# -- plain -----------------------------------------------------------------------


def test_add_is_one_update_item(db: tallydb.Database, videos: tallydb.Table) -> None:
    plays = tallydb.Counter(videos, KEY, "play_count")
    recorder = Recorder(db)
    assert plays.add() == 1
    assert plays.add(41) == 42
    assert plays.add(-2) == 40
    assert plays.add(Decimal("0.5")) == Decimal("40.5")
    assert recorder.operations() == ["UpdateItem"] * 4
    request = recorder.calls[0][1]
    assert request["UpdateExpression"] == "ADD #play_count :v0"
    assert request["ReturnValues"] == "UPDATED_NEW"
    assert "ConditionExpression" not in request


def test_each_delta_is_sent_as_written(db: tallydb.Database, videos: tallydb.Table) -> None:
    """A counter keeps one request per delta: equal deltas of other types
    (``1``, ``1.0``, ``Decimal("1.0")``) are not mixed up, and the
    answer comes back as an ``int`` when whole, negative or not."""
    plays = tallydb.Counter(videos, KEY, "play_count")
    recorder = Recorder(db)
    assert plays.add(1) == 1
    assert plays.add(1.0) == 2
    assert plays.add(Decimal("1.0")) == 3
    assert plays.add(Decimal("1")) == 4
    assert plays.add(1) == 5
    assert plays.add(-7) == -2 and type(plays.add(-1)) is int
    with pytest.raises(TypeError, match="delta is a number"):
        plays.add(True)  # a BOOL, which ADD would refuse: not sent
    assert plays.add(0.25) == Decimal("-2.75")
    sent = [request["ExpressionAttributeValues"][":v0"] for _, request in recorder.calls]
    assert sent == [
        {"N": "1"}, {"N": "1.0"}, {"N": "1.0"}, {"N": "1"}, {"N": "1"}, {"N": "-7"},
        {"N": "-1"}, {"N": "0.25"},
    ]  # fmt: skip
    assert plays.value() == Decimal("-2.75")


def test_value_and_set(videos: tallydb.Table) -> None:
    plays = tallydb.Counter(videos, KEY, "play_count")
    assert plays.value() == 0  # never set
    plays.set(10)
    assert plays.value() == 10
    assert type(plays.value()) is int
    plays.set(Decimal("2.5"))
    assert plays.value() == Decimal("2.5")


def test_nested_counter(videos: tallydb.Table) -> None:
    videos.put({**KEY, "stats": {"daily": {}}})
    daily = tallydb.Counter(videos, KEY, "stats.daily.plays")
    assert daily.add() == 1
    assert daily.add() == 2
    assert videos.get(KEY, consistent=True) == {**KEY, "stats": {"daily": {"plays": 2}}}
    literal = tallydb.Counter(videos, KEY, tallydb.Path.literal("stats.daily"))
    assert literal.add(3) == 3
    assert videos.get(KEY, consistent=True)["stats.daily"] == 3  # type: ignore[index]


# -- bounds ------------------------------------------------------------------------


def test_bounds_both_ways(items: tallydb.Table) -> None:
    seats = tallydb.Counter(items, {"sku": "S"}, "taken", minimum=0, maximum=3)
    assert seats.add(3) == 3
    with pytest.raises(tallydb.CounterLimitError) as caught:
        seats.add()
    assert caught.value.maximum == 3 and caught.value.delta == 1
    assert "maximum 3" in str(caught.value)
    # It names the bound the addition would pass, not both.
    assert caught.value.explanation == (
        "adding 1 to taken would pass its maximum 3; nothing was changed")
    assert seats.add(-3) == 0
    with pytest.raises(tallydb.CounterLimitError) as caught:
        seats.add(-1)
    assert caught.value.explanation == (
        "adding -1 to taken would pass its minimum 0; nothing was changed")
    with pytest.raises(tallydb.CounterLimitError):
        seats.add(4)  # even from a missing attribute it would pass 3
    assert seats.value() == 0
    with pytest.raises(tallydb.CounterLimitError):
        seats.set(7)  # refused before sending
    with pytest.raises(ValueError):
        tallydb.Counter(items, {"sku": "S"}, "taken", minimum=5, maximum=1)


def test_bound_from_missing_attribute(items: tallydb.Table) -> None:
    stock = tallydb.Counter(items, {"sku": "new"}, "stock", minimum=0)
    assert stock.add(5) == 5  # a missing counter counts as 0, and 0 + 5 >= 0
    floor = tallydb.Counter(items, {"sku": "floor"}, "n", minimum=10)
    with pytest.raises(tallydb.CounterLimitError):
        floor.add(5)  # 0 + 5 < 10


def test_bounds_are_one_conditional_update(db: tallydb.Database, items: tallydb.Table) -> None:
    stock = tallydb.Counter(items, {"sku": "A1"}, "stock", minimum=0)
    stock.set(10)
    recorder = Recorder(db)
    assert stock.add(-3) == 7
    ((operation, request),) = recorder.calls
    assert operation == "UpdateItem"
    # stock - 3 >= 0, i.e. stock >= 3; a missing stock (0) could not pay 3.
    assert request["ConditionExpression"] == "#stock >= :v1"
    assert request["ExpressionAttributeValues"][":v1"] == {"N": "3"}
    assert stock.add(2) == 9
    request = recorder.calls[1][1]
    # stock + 2 >= 0, i.e. stock >= -2, and a missing stock (0) may take 2.
    assert request["ConditionExpression"] == "attribute_not_exists(#stock) OR #stock >= :v1"
    assert request["ExpressionAttributeValues"][":v1"] == {"N": "-2"}


def test_float_bounds_are_exact(items: tallydb.Table) -> None:
    budget = tallydb.Counter(items, {"sku": "B"}, "spent", maximum=0.3)
    assert budget.add(0.1) == Decimal("0.1")
    assert budget.add(0.2) == Decimal("0.3")  # exactly 0.3, not 0.30000000000000004
    with pytest.raises(tallydb.CounterLimitError):
        budget.add(0.1)


# -- compare-and-set ------------------------------------------------------------------


def test_compare_and_set(items: tallydb.Table) -> None:
    version = tallydb.Counter(items, {"sku": "V"}, "v")
    assert version.compare_and_set(None, 1) is True  # only if not set
    assert version.compare_and_set(None, 1) is False
    assert version.compare_and_set(1, 2) is True
    assert version.compare_and_set(1, 3) is False  # the retry of the same CAS fails
    assert version.value() == 2


def test_apply_retries_on_contention(items: tallydb.Table) -> None:
    n = tallydb.Counter(items, {"sku": "X"}, "n")
    n.set(3)
    interfered: list[int | Decimal] = []

    def double(current: int | Decimal) -> int | Decimal:
        if not interfered:  # another writer gets in between read and write once
            interfered.append(current)
            n.add(1)
        return current * 2

    assert n.apply(double) == 8  # (3 + 1) * 2: the first attempt lost
    assert n.value() == 8
    assert interfered == [3]


def test_apply_gives_up(items: tallydb.Table) -> None:
    n = tallydb.Counter(items, {"sku": "Y"}, "n")

    def always_interfered(current: int | Decimal) -> int | Decimal:
        n.add(1)
        return current + 100

    with pytest.raises(tallydb.ContentionError):
        n.apply(always_interfered, attempts=3, backoff=0)
    assert n.value() == 3  # only the interfering adds


# -- idempotent ------------------------------------------------------------------------


def test_idempotent_add_requests(db: tallydb.Database, videos: tallydb.Table) -> None:
    plays = tallydb.Counter(videos, KEY, "play_count", retention=3600)
    recorder = Recorder(db)
    before = int(time.time())
    assert plays.add(5, idempotency_key="req-7f3") == 5
    ops = recorder.operations()
    # The connection's first idempotent add makes sure of the companion table.
    assert ops[0] == "CreateTable" and "TransactWriteItems" in ops
    transaction = next(r for op, r in recorder.calls if op == "TransactWriteItems")
    put, update = transaction["TransactItems"]
    assert put["Put"]["TableName"] == COMPANION_TABLE
    assert put["Put"]["ConditionExpression"] == ("attribute_not_exists(#id) OR #expires_at < :v0")
    assert update["Update"]["TableName"] == videos.name
    assert update["Update"]["UpdateExpression"] == "ADD #play_count :v0"
    dedupe = put["Put"]["Item"]
    assert dedupe["id"]["S"].startswith(f"{videos.name}#{DEDUPE_TAG}")
    assert dedupe["id"]["S"].endswith("#req-7f3")
    recorder.calls.clear()
    assert plays.add(5, idempotency_key="req-7f4") == 10
    assert "CreateTable" not in recorder.operations()  # once a connection
    expires = int(dedupe["expires_at"]["N"])
    assert before + 3600 <= expires <= int(time.time()) + 3600
    assert dedupe[DELTA_ATTRIBUTE] == {"N": "5"}


def test_idempotent_retry_changes_nothing(videos: tallydb.Table) -> None:
    plays = tallydb.Counter(videos, KEY, "play_count")
    assert plays.add(5, idempotency_key="a") == 5
    assert plays.add(1) == 6
    assert plays.add(5, idempotency_key="a") == 5  # the first answer, again
    assert plays.value() == 6
    assert plays.add(5, idempotency_key="b") == 11
    other = tallydb.Counter(videos, KEY, "other")  # keys are per counter
    assert other.add(5, idempotency_key="a") == 5
    partition = list(videos.query({"PK": "VID#9f3a"}, consistent=True))
    assert [i["SK"] for i in partition] == ["STATS#TOTAL"]  # no dedupe item in it
    assert videos.count({"PK": "VID#9f3a"}, consistent=True) == 1
    assert videos.count(consistent=True) == 1
    companion = videos.database.table(COMPANION_TABLE)
    dedupes = [i for i in companion.scan(consistent=True) if i["id"].startswith(videos.name)]
    assert len(dedupes) == 3
    assert all(VALUE_ATTRIBUTE in d and "expires_at" in d for d in dedupes)


def test_idempotency_records_are_not_among_the_users_items(
    store: str, db: tallydb.Database, videos: tallydb.Table
) -> None:
    # As reported: they showed in Scan, in the console's grid (a Scan) and in
    # DescribeTable's item count, and never expired on a table without TTL.
    plays = tallydb.Counter(videos, KEY, "play_count")
    plays.add(1, idempotency_key="a")
    plays.add(1, idempotency_key="b")
    assert list(videos.scan(consistent=True)) == [{**KEY, "play_count": 2}]
    if store in ("embedded", "serve", "mock"):  # where ItemCount is exact at once
        assert videos.describe()["ItemCount"] == 1
    ttl = db.client.describe_time_to_live(TableName=COMPANION_TABLE)["TimeToLiveDescription"]
    assert ttl["AttributeName"] == "expires_at"
    assert ttl["TimeToLiveStatus"] in ("ENABLED", "ENABLING")


def test_idempotency_key_reused_for_another_delta(videos: tallydb.Table) -> None:
    plays = tallydb.Counter(videos, KEY, "play_count")
    plays.add(5, idempotency_key="k")
    with pytest.raises(tallydb.IdempotencyKeyMismatchError):
        plays.add(6, idempotency_key="k")
    assert plays.value() == 5


def test_idempotency_key_expires_after_retention(videos: tallydb.Table) -> None:
    plays = tallydb.Counter(videos, KEY, "play_count", retention=3600)
    assert plays.add(1, idempotency_key="k") == 1
    assert plays.add(1, idempotency_key="k") == 1
    # Its record past its expiry (whether or not TTL swept it yet): no longer
    # honoured. (Set so, not waited for: a busy machine may take any time.)
    companion = videos.database.table(COMPANION_TABLE)
    (record,) = [r for r in companion.scan(consistent=True)
                 if r["id"].startswith(f"{videos.name}#") and r["id"].endswith("#k")]
    companion.update({"id": record["id"]}, Update().set("expires_at", int(time.time()) - 1))
    assert plays.add(1, idempotency_key="k") == 2


@pytest.mark.needs_operation("UpdateTimeToLive", "DescribeTimeToLive")
def test_ttl_for_dedupe_items(db: tallydb.Database) -> None:
    table = db.create_table(
        "with-ttl", hash_key=("PK", "S"), range_key=("SK", "S"), ttl_attribute="expires_at"
    )
    ttl = db.client.describe_time_to_live(TableName=table.name)["TimeToLiveDescription"]
    assert ttl["TimeToLiveStatus"] in ("ENABLED", "ENABLING")
    assert ttl["AttributeName"] == "expires_at"
    other = db.create_table("later-ttl", hash_key=("PK", "S"))
    other.enable_ttl("expires_at")
    ttl = db.client.describe_time_to_live(TableName=other.name)["TimeToLiveDescription"]
    assert ttl["AttributeName"] == "expires_at"


def test_idempotent_add_with_bounds(items: tallydb.Table) -> None:
    stock = tallydb.Counter(items, {"sku": "A1"}, "stock", minimum=0)
    stock.set(7)
    assert stock.add(-7, idempotency_key="order-1") == 0
    assert stock.add(-7, idempotency_key="order-1") == 0  # a retry, not a limit error
    with pytest.raises(tallydb.CounterLimitError):
        stock.add(-1, idempotency_key="order-2")
    stock.set(1)
    assert stock.add(-1, idempotency_key="order-2") == 0  # order-2 was not remembered


def test_any_key_type_and_a_dedupe_table_of_ones_own(
    db: tallydb.Database, make_table: Any
) -> None:
    items = make_table("items", hash_key=("sku", "S"))
    stock = tallydb.Counter(items, {"sku": "A1"}, "stock")
    assert stock.add(2, idempotency_key="x") == 2
    assert stock.add(2, idempotency_key="x") == 2
    assert list(items.scan(consistent=True)) == [{"sku": "A1", "stock": 2}]
    numbered = make_table("numbered", hash_key=("id", "N"))
    n = tallydb.Counter(numbered, {"id": 1}, "n")
    assert n.add(1, idempotency_key="x") == 1
    assert n.add(1, idempotency_key="x") == 1
    with pytest.raises(ValueError, match="dedupe_table"):
        tallydb.Counter(items, {"sku": "A1"}, "n", dedupe_table=numbered).add(
            1, idempotency_key="x")
    dedupe = make_table("dedupe", hash_key=("key", "S"), ttl_attribute="expires_at")
    m = tallydb.Counter(numbered, {"id": 1}, "m", dedupe_table=dedupe)
    assert m.add(1, idempotency_key="x") == 1
    assert m.add(1, idempotency_key="x") == 1
    assert len(list(dedupe.scan(consistent=True))) == 1
    assert list(numbered.scan(consistent=True)) == [{"id": 1, "n": 1, "m": 1}]


def test_a_dedupe_table_without_ttl_is_warned_of(make_table: Any) -> None:
    numbered = make_table("numbered", hash_key=("id", "N"))
    forever = make_table("forever", hash_key=("key", "S"))
    n = tallydb.Counter(numbered, {"id": 1}, "n", dedupe_table=forever)
    with pytest.warns(UserWarning, match=r"TTL is not on for 'expires_at' there: they are never"):
        n.add(1, idempotency_key="x")


# -- sharded ----------------------------------------------------------------------------


def test_sharded_value_is_one_paged_query(db: tallydb.Database, videos: tallydb.Table) -> None:
    views = tallydb.ShardedCounter(
        videos, {"PK": "VID#9f3a"}, "STATS#TOTAL#", shards=4, attribute="play_count"
    )
    for _ in range(20):
        views.add()
    views.add(Decimal("0.5"))
    recorder = Recorder(db)
    assert views.value() == Decimal("20.5")
    ((operation, request),) = recorder.calls
    assert operation == "Query"
    assert request["KeyConditionExpression"] == "#PK = :v0 AND begins_with(#SK, :v1)"
    assert request["ConsistentRead"] is True


def test_sharded_grow_keeps_total(videos: tallydb.Table) -> None:
    views = tallydb.ShardedCounter(
        videos, {"PK": "v"}, "S#", shards=2, attribute="n", sort_key="SK"
    )
    for _ in range(10):
        views.add()
    views.shards = 8
    assert views.value() == 10
    for _ in range(30):
        views.add()
    assert views.value() == 40
    shards = {i["SK"] for i in videos.query({"PK": "v"}, consistent=True)}
    assert shards <= {f"S#{i}" for i in range(8)}
    assert len(shards) > 2
    views.shards = 1  # shrinking stops writes to the others; their counts stay
    views.add()
    assert views.value() == 41
    with pytest.raises(ValueError):
        views.shards = 0


def test_sharded_idempotent(videos: tallydb.Table) -> None:
    views = tallydb.ShardedCounter(videos, {"PK": "v"}, "S#", shards=3, attribute="n")
    views.add(1, idempotency_key="e1")
    views.add(1, idempotency_key="e1")
    views.shards = 7  # a retry after a resize is still caught
    views.add(1, idempotency_key="e1")
    views.add(1, idempotency_key="e2")
    assert views.value() == 2


def test_sharded_needs_a_string_sort_key(items: tallydb.Table) -> None:
    views = tallydb.ShardedCounter(items, {"sku": "x"}, "S#")
    with pytest.raises(ValueError, match="string sort key"):
        views.add()
