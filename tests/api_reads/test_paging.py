"""Paging visits every item exactly once: Query in both
directions and Scan, serial and parallel (4 segments), on 10,000 items of
mixed sizes, so that pages end on Limit and on DynamoDB's 1 MB cap."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest

ITEMS = 10_000
PARTITIONS = 4


@pytest.fixture
def big_table(ddb: Any, make_table: Callable[..., str]) -> str:
    name = make_table("paging", hash=("PK", "S"), range=("SK", "N"))
    rng = random.Random(3)
    requests: list[dict[str, Any]] = []
    for i in range(ITEMS):
        # Mostly small items, some of a few KB, a few of 100-300 KB.
        roll = rng.random()
        size = (rng.randrange(100_000, 300_000) if roll < 0.002
                else rng.randrange(1_000, 8_000) if roll < 0.1 else rng.randrange(0, 200))
        item = {"PK": {"S": f"P{i % PARTITIONS}"}, "SK": {"N": str(i)},
                "pad": {"S": "x" * size}, "even": {"BOOL": i % 2 == 0}}
        requests.append({"PutRequest": {"Item": item}})
        if len(requests) == 25:
            ddb.batch_write_item(RequestItems={name: requests})
            requests = []
    return name


def _pages(call: Callable[..., dict[str, Any]], **kwargs: Any) -> Iterator[dict[str, Any]]:
    start: dict[str, Any] | None = None
    while True:
        page = call(**kwargs, **({"ExclusiveStartKey": start} if start else {}))
        yield page
        start = page.get("LastEvaluatedKey")
        if start is None:
            return


def _sks(pages: Iterator[dict[str, Any]]) -> list[int]:
    return [int(item["SK"]["N"]) for page in pages for item in page["Items"]]


def _query_pages_both_directions(ddb: Any, big_table: str) -> None:
    everything: Counter[int] = Counter()
    for p in range(PARTITIONS):
        expected = list(range(p, ITEMS, PARTITIONS))
        for forward in (True, False):
            for limit in (None, 97):
                kwargs: dict[str, Any] = {"Limit": limit} if limit else {}
                got = _sks(_pages(
                    ddb.query, TableName=big_table, KeyConditionExpression="PK = :p",
                    ExpressionAttributeValues={":p": {"S": f"P{p}"}},
                    ProjectionExpression="SK", ScanIndexForward=forward, **kwargs))
                assert got == (expected if forward else expected[::-1])
        everything.update(expected)
    assert set(everything) == set(range(ITEMS))


def _query_with_a_filter_pages_exactly(ddb: Any, big_table: str) -> None:
    pages = list(_pages(
        ddb.query, TableName=big_table, KeyConditionExpression="PK = :p",
        FilterExpression="even = :t",
        ExpressionAttributeValues={":p": {"S": "P1"}, ":t": {"BOOL": True}}, Limit=50))
    assert sum(page["Count"] for page in pages) == 0  # P1 holds odd numbers only
    assert sum(page["ScannedCount"] for page in pages) == ITEMS // PARTITIONS


def _one_megabyte_pages_on_the_way(ddb: Any, big_table: str) -> None:
    pages = list(_pages(ddb.scan, TableName=big_table, ProjectionExpression="SK"))
    assert len(pages) > 1  # the table is far over 1 MB: no page returned it all
    got = _sks(iter(pages))
    assert sorted(got) == list(range(ITEMS))


def _scan_pages(ddb: Any, big_table: str, limit: int | None) -> None:
    kwargs: dict[str, Any] = {"Limit": limit} if limit else {}
    got = _sks(_pages(ddb.scan, TableName=big_table, ProjectionExpression="SK", **kwargs))
    assert len(got) == ITEMS
    assert sorted(got) == list(range(ITEMS))


def _parallel_scan_with_four_segments(ddb: Any, big_table: str) -> None:
    seen: Counter[int] = Counter()
    per_segment = []
    for segment in range(4):
        got = _sks(_pages(ddb.scan, TableName=big_table, ProjectionExpression="SK",
                          Segment=segment, TotalSegments=4, Limit=500))
        per_segment.append(len(got))
        seen.update(got)
    assert sorted(seen) == list(range(ITEMS))
    assert max(seen.values()) == 1
    assert sum(per_segment) == ITEMS


def test_paging_visits_every_item_once(ddb: Any, big_table: str) -> None:
    # One table per backend (filling it is the slow part), every way of paging it.
    _query_pages_both_directions(ddb, big_table)
    _query_with_a_filter_pages_exactly(ddb, big_table)
    _one_megabyte_pages_on_the_way(ddb, big_table)
    _scan_pages(ddb, big_table, None)
    _scan_pages(ddb, big_table, 333)
    _parallel_scan_with_four_segments(ddb, big_table)
