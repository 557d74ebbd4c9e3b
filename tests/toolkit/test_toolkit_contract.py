"""Every example of the toolkit's contract, as written, on every store."""

from __future__ import annotations

import re
from pathlib import Path as FsPath
from typing import Any

import boto3
import pytest

import tallydb

KEY = {"PK": "VID#9f3a", "SK": "STATS#TOTAL"}


def test_connect_embedded_default_path(tmp_path: FsPath, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with tallydb.connect() as db:
        db.create_table("videos", hash_key=("PK", "S"), range_key=("SK", "S"))
    assert (tmp_path / "tallydb-data").is_dir()
    with tallydb.connect() as db:  # the data is still there
        assert db.list_tables() == ["videos"]


def test_connect_embedded_path(tmp_path: FsPath) -> None:
    with tallydb.connect(path=tmp_path / "demo") as db:
        plays = tallydb.Counter(
            db.create_table("videos", hash_key=("PK", "S"), range_key=("SK", "S")),
            KEY,
            "play_count",
        )
        assert plays.add() == 1
    with tallydb.connect(path=str(tmp_path / "demo")) as db:
        assert tallydb.Counter(db.table("videos"), KEY, "play_count").value() == 1


def test_connect_endpoint_and_client(tallydb_server: Any) -> None:
    with tallydb.connect(tallydb_server.url) as db:
        db.create_table("ep-videos", hash_key=("PK", "S"), range_key=("SK", "S"))
        assert "ep-videos" in db.list_tables()
    client = boto3.client(
        "dynamodb",
        endpoint_url=tallydb_server.url,
        region_name="us-east-1",
        aws_access_key_id="x",
        aws_secret_access_key="y",
    )
    with tallydb.connect(client=client) as db:
        assert db.client is client
        videos = db.table("ep-videos")
        assert tallydb.Counter(videos, KEY, "play_count").add(2) == 2
        db.delete_table("ep-videos")


def test_connect_takes_one_target() -> None:
    with pytest.raises(ValueError, match="one of"):
        tallydb.connect("http://127.0.0.1:1", path="/tmp/x")


def test_create_table_returns_active_table(db: tallydb.Database) -> None:
    videos = db.create_table("videos", hash_key=("PK", "S"), range_key=("SK", "S"))
    assert isinstance(videos, tallydb.Table)
    description = videos.describe()
    assert description["TableStatus"] == "ACTIVE"
    assert db.table("videos").schema == videos.schema
    assert videos.schema.names == ("PK", "SK")


def test_create_table_twice(db: tallydb.Database) -> None:
    db.create_table("twice", hash_key=("id", "S"))
    with pytest.raises(tallydb.ResourceInUseException):
        db.create_table("twice", hash_key=("id", "S"))
    assert db.create_table("twice", hash_key=("id", "S"), exist_ok=True).name == "twice"


def test_plain_values_in_and_out(videos: tallydb.Table) -> None:
    from decimal import Decimal

    item = {
        **KEY,
        "s": "text",
        "i": 42,
        "d": Decimal("3.25"),
        "f": 0.1,
        "b": b"\x00\x01",
        "t": True,
        "n": None,
        "l": [1, "two", [3]],
        "m": {"a": {"b": 2}},
        "ss": {"x", "y"},
        "ns": {1, 2},
        "bs": {b"a"},
    }
    videos.put(item)
    got = videos.get(KEY)
    assert got == {**item, "f": Decimal("0.1")}
    assert type(got["i"]) is int and type(got["d"]) is Decimal and type(got["b"]) is bytes


@pytest.mark.moto_deviation("UPDATED_NEW on a new item also returns its key attributes")
def test_update_builder_example(videos: tallydb.Table) -> None:
    u = tallydb.Update().add("play_count", 1).set("last_played", "2026-11-21").remove("draft")
    result = videos.update({"PK": "VID#9f3a", "SK": "STATS#TOTAL"}, u, return_values="UPDATED_NEW")
    assert result == {"play_count": 1, "last_played": "2026-11-21"}
    assert videos.get(KEY, consistent=True) == {**KEY, "play_count": 1, "last_played": "2026-11-21"}


def test_update_builder_example_effect(videos: tallydb.Table) -> None:
    u = tallydb.Update().add("play_count", 1).set("last_played", "2026-11-21").remove("draft")
    videos.put({**KEY, "draft": True})
    videos.update(KEY, u)
    videos.update(KEY, u)
    assert videos.get(KEY, consistent=True) == {**KEY, "play_count": 2, "last_played": "2026-11-21"}


def test_render_example() -> None:
    u = tallydb.Update().add("play_count", 1).set("last_played", "2026-11-21").remove("draft")
    assert u.render() == {
        "UpdateExpression": "ADD #play_count :v0 SET #last_played = :v1 REMOVE #draft",
        "ExpressionAttributeNames": {
            "#play_count": "play_count",
            "#last_played": "last_played",
            "#draft": "draft",
        },
        "ExpressionAttributeValues": {":v0": {"N": "1"}, ":v1": {"S": "2026-11-21"}},
    }


def test_counter_examples(videos: tallydb.Table) -> None:
    plays = tallydb.Counter(videos, {"PK": "VID#9f3a", "SK": "STATS#TOTAL"}, "play_count")
    assert plays.add() == 1
    assert plays.add(5, idempotency_key="req-7f3") == 6
    assert plays.add(5, idempotency_key="req-7f3") == 6  # the retry: nothing changes
    assert plays.value() == 6
    plays.set(0)
    assert plays.value() == 0
    assert plays.add(5, idempotency_key="req-7f3") == 6  # still remembered


def test_bounded_counter_example(items: tallydb.Table) -> None:
    stock = tallydb.Counter(items, {"sku": "A1"}, "stock", minimum=0)
    with pytest.raises(tallydb.CounterLimitError) as caught:
        stock.add(-3)
    assert caught.value.code() == "ConditionalCheckFailedException"
    assert caught.value.message == "The conditional request failed"
    assert isinstance(caught.value, tallydb.ConditionalCheckFailedException)
    assert items.get({"sku": "A1"}, consistent=True) is None  # nothing was written
    stock.set(5)
    assert stock.add(-3) == 2
    with pytest.raises(tallydb.CounterLimitError):
        stock.add(-3)
    assert stock.value() == 2


def test_sharded_counter_example(videos: tallydb.Table) -> None:
    views = tallydb.ShardedCounter(
        videos,
        partition={"PK": "VID#9f3a"},
        sort_prefix="STATS#TOTAL#",
        shards=10,
        attribute="play_count",
    )
    views.add()
    assert views.value() == 1
    for _ in range(99):
        views.add()
    assert views.value() == 100
    shards = [i["SK"] for i in videos.query({"PK": "VID#9f3a"}, consistent=True)]
    assert all(re.fullmatch(r"STATS#TOTAL#\d", s) for s in shards)
    assert len(shards) > 1  # spread over shards


def test_model_example(db: tallydb.Database) -> None:
    class Customer(tallydb.Model, table="customers"):
        id: str = tallydb.HashKey()
        update_counter: int = tallydb.AtomicCounter()  # start 0, delta 1
        custom_counter: int = tallydb.AtomicCounter(delta=5, start=10)

    Customer.bind(db)
    Customer.create_table()  # the table from the declared keys
    c = Customer(id="SOME_ID")
    c.update()  # counters appear: 0 and 10
    assert (c.update_counter, c.custom_counter) == (0, 10)
    stored = Customer.get(id="SOME_ID", consistent=True)
    assert (stored.update_counter, stored.custom_counter) == (0, 10)
    c.update()
    got = Customer.get(id="SOME_ID", consistent=True)  # 1 and 15
    assert (got.update_counter, got.custom_counter) == (1, 15)
    assert db.table("customers").schema.names == ("id",)
