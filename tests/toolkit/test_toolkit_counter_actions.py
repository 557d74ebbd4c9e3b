"""Counters: other actions in the add's request, dedupe items out of the
user's partitions, and wrong argument types refused clearly."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

import tallydb
from tallydb import Path, Update

KEY = {"PK": "VID#9f3a", "SK": "STATS#TOTAL"}


def test_add_carries_other_actions(videos: tallydb.Table) -> None:
    plays = tallydb.Counter(videos, KEY, "play_count")
    expires = int(time.time()) + 60
    assert plays.add(also=Update().set("last_seen", "t1").set("expires_at", expires)) == 1
    assert plays.add(2, also=Update().set("last_seen", "t2")) == 3
    assert plays.add(1, idempotency_key="k", also=Update().set("last_seen", "t3")) == 4
    assert plays.add(1, idempotency_key="k", also=Update().set("last_seen", "t3")) == 4
    item = videos.get(KEY, consistent=True)
    assert item == {**KEY, "play_count": 4, "last_seen": "t3", "expires_at": expires}
    with pytest.raises(tallydb.ValidationException, match="Two document paths overlap"):
        plays.add(also=Update().set("play_count", 0))
    window = tallydb.ShardedCounter(videos, partition={"PK": "W"}, sort_prefix="MIN#",
                                    shards=2, attribute="n")
    window.add(also=Update().set("expires_at", expires))
    window.add(idempotency_key="w1", also=Update().set("expires_at", expires))
    assert window.value() == 2
    assert all(i["expires_at"] == expires
               for i in videos.query(Path("PK") == "W", consistent=True))


def test_dedupe_items_stay_out_of_the_users_partitions(db: tallydb.Database) -> None:
    class Page(tallydb.Model, table="pages-dedupe"):
        site: str = tallydb.HashKey()
        path: str = tallydb.RangeKey()
        views: int = 0

    Page.bind(db)
    table = Page.create_table()
    views = tallydb.Counter(table, {"site": "s", "path": "/"}, "views")
    for key in ("a", "b", "a"):
        views.add(1, idempotency_key=key)
    assert [p.views for p in Page.query("s", consistent=True)] == [2]
    assert Page.count("s", consistent=True) == 1


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda c, s: c.add("1"), "delta is a number"),
        (lambda c, s: c.add(True), "delta is a number"),
        (lambda c, s: c.set("abc"), "value is a number"),
        (lambda c, s: c.compare_and_set("x", "y"), "expected is a number"),
        (lambda c, s: c.compare_and_set(None, "y"), "new is a number"),
        (lambda c, s: c.add(1, idempotency_key=7), "idempotency key is a non-empty str"),
        (lambda c, s: c.add(1, also="SET a = :b"), "also= is a tallydb.Update"),
        (lambda c, s: s.add("1"), "delta is a number"),
    ],
)
def test_wrong_argument_types_are_refused_clearly(
    videos: tallydb.Table, call: Callable[[Any, Any], Any], message: str
) -> None:
    counter = tallydb.Counter(videos, KEY, "n")
    sharded = tallydb.ShardedCounter(videos, partition={"PK": "S"}, sort_prefix="S#",
                                     shards=2, attribute="n")
    with pytest.raises(TypeError, match=message):
        call(counter, sharded)
    assert videos.count(consistent=True) == 0  # nothing was sent


def test_wrong_configuration_types_are_refused_clearly(videos: tallydb.Table) -> None:
    with pytest.raises(TypeError, match="shards is a whole number"):
        tallydb.ShardedCounter(videos, partition={"PK": "S"}, sort_prefix="S#", shards="10")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="table is a tallydb Table"):
        tallydb.Counter("videos", KEY, "n")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="key is a mapping"):
        tallydb.Counter(videos, "VID#9f3a", "n")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="minimum is a number"):
        tallydb.Counter(videos, KEY, "n", minimum="0")  # type: ignore[arg-type]
