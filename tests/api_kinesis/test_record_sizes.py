"""A Kinesis record's SizeBytes: a new image that follows the record
before's is sized from that one's size (only the attributes that differ),
and must come out as sizing it whole does."""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from tallydb.engine.api._kinesis import changes_of, records_of, size_after
from tallydb.engine.api._stream_records import SAME_AS_LAST
from tallydb.engine.values import item_size

_names = st.sampled_from(["PK", "n", "title", "tags", "é", "nested", "flag"])
_values = st.one_of(
    st.integers(-10**30, 10**30).map(lambda n: {"N": str(n)}),
    st.text(max_size=12).map(lambda s: {"S": s}),
    st.booleans().map(lambda b: {"BOOL": b}),
    st.just({"NULL": True}),
    st.lists(st.text(min_size=1, max_size=4), min_size=1, max_size=3, unique=True).map(
        lambda ss: {"SS": ss}),
    st.dictionaries(st.text(max_size=3), st.integers(0, 999).map(lambda n: {"N": str(n)}),
                    max_size=3).map(lambda m: {"M": m}),
)
_items = st.dictionaries(_names, _values, max_size=6)


@settings(max_examples=150, deadline=None)
@given(_items, _items)
def test_a_size_from_the_image_before_is_the_whole_size(old: dict[str, Any],
                                                        new: dict[str, Any]) -> None:
    assert size_after(new, old, item_size(old)) == item_size(new)


TABLE = ("counted", ("PK",))


def test_a_counters_run_of_records_carries_each_records_whole_size() -> None:
    images = [{"PK": {"S": "VID#9f3a"}, "n": {"N": str(n)}, "title": {"S": "été"}}
              for n in (9, 10, 99, 100, 1000)]
    images.append({"PK": {"S": "VID#9f3a"}, "n": {"N": "1001"}})  # an attribute removed
    images.append({"PK": {"S": "VID#9f3a"}, "n": {"N": "1001"}, "tags": {"SS": ["a", "bc"]}})
    entries: list[list[Any]] = [[1, 0, None, images[0], None, False]]
    entries += [[n + 1, 1, None, images[n], SAME_AS_LAST, False]
                for n in range(1, len(images))]
    made = [orjson.loads(data) for _, data in records_of(
        changes_of(orjson.loads(orjson.dumps(entries))), *TABLE, "us-east-1", "MILLISECOND")]
    keys = item_size({"PK": {"S": "VID#9f3a"}})
    assert [record["dynamodb"]["SizeBytes"] for record in made] == [
        keys + item_size(images[0])] + [
        keys + item_size(images[n]) + item_size(images[n - 1]) for n in range(1, len(images))]
    assert [record["dynamodb"].get("OldImage") for record in made] == [None, *images[:-1]]


def test_a_run_split_over_rows_makes_the_same_records_as_one_row() -> None:
    """A hot counter's small group commits: each row's first record stores
    its old image whole (a row is read alone by GetRecords), and the records
    made from many rows at once are those made from one."""
    images = [{"PK": {"S": "VID#9f3a"}, "n": {"N": str(n)}} for n in range(7)]
    one = [[1, 0, None, images[0], None, False]] + [
        [n + 1, 1, None, images[n], SAME_AS_LAST, False] for n in range(1, len(images))]
    split = [[[1, 0, None, images[0], None, False], [2, 1, None, images[1], SAME_AS_LAST, False]],
             [[3, 1, None, images[2], images[1], False]],
             [[4, 1, None, images[3], images[2], False], [5, 1, None, images[4], SAME_AS_LAST,
                                                          False]],
             [[6, 1, None, images[5], images[4], False],
              [7, 1, None, images[6], SAME_AS_LAST, False]]]
    stored = orjson.loads(orjson.dumps(split))
    assert records_of([held for row in stored for held in changes_of(row)], *TABLE,
                      "us-east-1", "MILLISECOND") == records_of(
        changes_of(one), *TABLE, "us-east-1", "MILLISECOND")


@settings(max_examples=100, deadline=None)
@given(st.lists(_items, min_size=1, max_size=8), st.lists(st.booleans(), min_size=8,
                                                            max_size=8))
def test_each_record_of_an_items_run_of_changes_is_made_as_whole(
        images: list[dict[str, Any]], copied: list[bool]) -> None:
    """An item's run of changes (each old image the change before's new
    one, the same object or an equal copy; values kept from it are the same
    objects), ended by a removal: each record as it is made from nothing."""
    key = {"PK": {"S": "VID#9f3a"}}
    news = []
    for image in images:
        new = {**image, **key}
        if news:  # the values an update keeps are the very objects
            new.update({name: value for name, value in news[-1].items()
                        if new.get(name) == value})
        news.append(new)
    changes: list[Any] = []
    old = None
    for i, new in enumerate(news):
        changes.append((i + 1, old, new, False))
        old = orjson.loads(orjson.dumps(new)) if copied[i] else new
    changes.append((len(news) + 1, old, None, True))  # TTL's deletion
    made = [orjson.loads(data) for _, data in records_of(changes, *TABLE, "us-east-1",
                                                         "MICROSECOND")]
    for (seq, before, after, by_service), record in zip(changes, made, strict=True):
        dynamodb = record["dynamodb"]
        assert record["eventName"] == ("INSERT" if before is None else
                                       "REMOVE" if after is None else "MODIFY")
        assert record["userIdentity"] == (
            {"type": "Service", "principalId": "dynamodb.amazonaws.com"} if by_service else None)
        assert dynamodb["Keys"] == key
        assert dynamodb.get("NewImage") == after
        assert dynamodb.get("OldImage") == before
        assert dynamodb["ApproximateCreationDateTime"] == seq // 1000
        assert dynamodb["SizeBytes"] == item_size(key) + sum(
            item_size(image) for image in (before, after) if image is not None)
