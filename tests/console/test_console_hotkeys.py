"""The hot-keys sketch: the busiest items of the last minute, first, in
memory bounded whatever the key count."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tallydb.engine.feed import Change
from tallydb.engine.hotkeys import SECOND_KEYS, TRACKED, WINDOW, HotKeys
from tallydb.engine.values import encode_key_value


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@dataclass(frozen=True)
class Record:
    name: str
    description: dict[str, Any] = field(default_factory=lambda: {
        "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}]})


def change(table: str, pk: str) -> Change:
    item = {"PK": {"S": pk}}
    return Change(Record(table), encode_key_value(item["PK"]), b"", None, item)


def test_the_hammered_item_leads_while_ten_others_trickle() -> None:
    clock = Clock()
    sketch = HotKeys(clock)
    for _ in range(10):
        sketch.record([(change("videos", "hot"), 150)])
        sketch.record([(change("videos", "hot"), 50)])
        sketch.record([(change("videos", f"cold{i}"), 1) for i in range(10)])
        clock.now += 1
    top = sketch.top()
    assert top[0]["keys"] == {"PK": {"S": "hot"}}
    assert top[0]["writes"] == 2000
    assert [entry["writes"] for entry in top[1:]] == [10] * 10
    assert sum(top[0]["spark"]) == 2000 and len(top[0]["spark"]) == WINDOW


def test_the_window_forgets_what_is_older_than_a_minute() -> None:
    clock = Clock()
    sketch = HotKeys(clock)
    sketch.record([(change("videos", "old"), 50)])
    clock.now += WINDOW + 5
    sketch.record([(change("videos", "new"), 5)])
    top = sketch.top()
    assert [entry["keys"]["PK"]["S"] for entry in top] == ["new"]


def test_memory_is_bounded_by_the_sketch_not_by_the_key_count() -> None:
    clock = Clock()
    sketch = HotKeys(clock)
    for second in range(5):
        sketch.record([(change("big", f"k{second}-{i}"), 1) for i in range(20_000)])
        sketch.record([(change("big", "hot"), 50)])
        clock.now += 1
        assert len(sketch._current) <= SECOND_KEYS
    sketch.top()
    assert len(sketch._tracked) <= TRACKED
    assert sketch.top()[0]["keys"] == {"PK": {"S": "hot"}}


def test_throttles_are_counted_against_their_partition() -> None:
    clock = Clock()
    sketch = HotKeys(clock)
    sketch.record([(change("videos", "hot"), 20)])
    sketch.throttled("videos", encode_key_value({"S": "hot"}))
    sketch.throttled("videos", encode_key_value({"S": "hot"}))
    clock.now += 1
    assert sketch.top()[0]["throttled"] == 2
