"""A GSI on a counter attribute answers "top 10 videos by play_count":
a GSI keyed stat_type (S) / play_count (N); threads
ADD to random videos; one Query with ScanIndexForward=false and Limit=10
returns the ten highest counts, highest first, each the video's exact count.

DynamoDB orders a GSI's range key as it orders a table's (Numbers by value)
and keeps the index in step with every write, here in the same transaction.
"""

from __future__ import annotations

import random
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from index_tables import gsi, make_indexed  # noqa: F401
from tallytest import Backend

VIDEOS = 40
THREADS = 8
INCREMENTS = 150


def test_top_ten_by_play_count_after_concurrent_increments(
    backend: Backend, make_indexed: Any  # noqa: F811
) -> None:
    ddb = backend.client()
    table = make_indexed(
        "top", [("PK", "HASH")], {"PK": "S", "stat_type": "S", "play_count": "N"},
        gsis=[gsi("by_plays", "stat_type", "play_count", projection="INCLUDE",
                  include=["title"])],
    )
    for n in range(VIDEOS):
        ddb.put_item(TableName=table, Item={
            "PK": {"S": f"VID#{n:02d}"}, "stat_type": {"S": "plays"},
            "play_count": {"N": "0"}, "title": {"S": f"video {n}"},
            "description": {"S": "not projected"},
        })
    counts: Counter[str] = Counter()
    lock = threading.Lock()

    def increment(seed: int) -> None:
        client = backend.client()
        rng = random.Random(seed)
        for _ in range(INCREMENTS):
            # Skewed, so the top ten are well apart from the rest.
            video = f"VID#{min(rng.randrange(VIDEOS), rng.randrange(VIDEOS)):02d}"
            client.update_item(
                TableName=table, Key={"PK": {"S": video}},
                UpdateExpression="ADD play_count :one",
                ExpressionAttributeValues={":one": {"N": "1"}},
            )
            with lock:
                counts[video] += 1

    with ThreadPoolExecutor(THREADS) as pool:
        list(pool.map(increment, range(THREADS)))
    assert sum(counts.values()) == THREADS * INCREMENTS

    top = ddb.query(
        TableName=table, IndexName="by_plays",
        KeyConditionExpression="stat_type = :s",
        ExpressionAttributeValues={":s": {"S": "plays"}},
        ScanIndexForward=False, Limit=10,
    )
    got = [(item["PK"]["S"], int(item["play_count"]["N"])) for item in top["Items"]]
    assert len(got) == 10
    # Each entry is the video's exact count, highest first ...
    assert all(counts[video] == plays for video, plays in got)
    assert [plays for _, plays in got] == sorted((c for _, c in got), reverse=True)
    # ... and they are the ten highest (ties broken by the table key, as the
    # index's range key is followed by the table's key).
    expected = sorted(((counts[f"VID#{n:02d}"], f"VID#{n:02d}") for n in range(VIDEOS)),
                      reverse=True)[:10]
    assert got == [(video, plays) for plays, video in expected]
    # The INCLUDE projection: keys plus title, never the rest.
    assert set(top["Items"][0]) == {"PK", "stat_type", "play_count", "title"}
    assert top["LastEvaluatedKey"].keys() == {"PK", "stat_type", "play_count"}
