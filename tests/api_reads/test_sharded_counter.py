"""The sharded counter (the seed article's "shard it:
spread writes across STATS#TOTAL#0..N and sum on read").

Ten shards under VID#9f3a; 16 threads make 60 increments each on random
shards; one Query with begins_with(SK, :p) sums to exactly 960, and so does
the same Query paged three items at a time. (16 writers on 10 shards meet on
a shard at every turn: more increments would add time, not collisions.)
"""

from __future__ import annotations

import random
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from tallytest import Backend

SHARDS = 10
THREADS = 16
INCREMENTS = 60
PARTITION = {"S": "VID#9f3a"}


def _increment_many(backend: Backend, table: str, seed: int) -> None:
    ddb = backend.client()
    rng = random.Random(seed)
    for _ in range(INCREMENTS):
        shard = rng.randrange(SHARDS)
        ddb.update_item(
            TableName=table,
            Key={"PK": PARTITION, "SK": {"S": f"STATS#TOTAL#{shard}"}},
            UpdateExpression="ADD play_count :one",
            ExpressionAttributeValues={":one": {"N": "1"}},
        )


def _query_sum(ddb: Any, table: str, **kwargs: Any) -> tuple[int, int]:
    total = pages = 0
    start: dict[str, Any] | None = None
    while True:
        page = ddb.query(
            TableName=table,
            KeyConditionExpression="PK = :pk AND begins_with(SK, :p)",
            ExpressionAttributeValues={":pk": PARTITION, ":p": {"S": "STATS#TOTAL#"}},
            **kwargs, **({"ExclusiveStartKey": start} if start else {}),
        )
        pages += 1
        total += sum(int(item["play_count"]["N"]) for item in page["Items"])
        start = page.get("LastEvaluatedKey")
        if start is None:
            return total, pages


def test_sharded_counter_sums_exactly(
    backend: Backend, make_table: Callable[..., str]
) -> None:
    table = make_table("videos", hash=("PK", "S"), range=("SK", "S"))
    ddb = backend.client()
    # Items of the same partition that the prefix must leave out.
    ddb.put_item(TableName=table, Item={"PK": PARTITION, "SK": {"S": "META"},
                                        "play_count": {"N": "1000"}})
    ddb.put_item(TableName=table, Item={"PK": PARTITION, "SK": {"S": "STATS#DAILY#1"},
                                        "play_count": {"N": "1000"}})
    with ThreadPoolExecutor(THREADS) as pool:
        for future in [pool.submit(_increment_many, backend, table, seed)
                       for seed in range(THREADS)]:
            future.result()

    assert _query_sum(ddb, table) == (THREADS * INCREMENTS, 1)
    total, pages = _query_sum(ddb, table, Limit=3)
    assert total == THREADS * INCREMENTS
    assert pages == 4  # 10 shards, 3 a page: the 4th page holds the last one
    shards = ddb.query(
        TableName=table, KeyConditionExpression="PK = :pk AND begins_with(SK, :p)",
        ExpressionAttributeValues={":pk": PARTITION, ":p": {"S": "STATS#TOTAL#"}},
        Select="COUNT")
    assert shards["Count"] == SHARDS
