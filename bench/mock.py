"""``tallydb.testing.mock_dynamodb()`` against moto's ``mock_aws``, per boto3 call.

    .venv/bin/python -m bench.mock                      # 3 reps x 300 calls per row
    .venv/bin/python -m bench.mock --reps 5 --calls 1000

The same boto3 client calls (no endpoint, as a unit test makes them) run
under each mock in turn, repetition by repetition, so that a noisy
neighbour hits both alike:

* ``PutItem``: an item of five attributes;
* ``GetItem``: that item;
* ``UpdateItem ADD``: the atomic counter;
* ``Query``: one partition of 20 items;
* ``test``: what a small unit test does, from an empty mock: enter the mock,
  make a client, CreateTable, 10 PutItem, one Query, leave. Much of it is
  botocore's own first-use work on a new client (the same under both mocks).

Each row is the median over ``--reps`` of the process's CPU time per call
(every thread's: a mock's threads count; CPU rather than wall time, so
that a busy machine slows both alike); the ratio is moto's time over
tallydb's, measured in the same run. Targets: at least ``TARGET`` times
faster on every per-call row, ``TEST_TARGET`` on the whole test.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any

import boto3

from tallydb.testing import mock_dynamodb

#: The speed target: tallydb's mock at least this many times faster than moto's.
TARGET = 5.0
#: ... and at least this many times faster on a whole small test.
TEST_TARGET = 10.0
TABLE = "bench"
KEY_SCHEMA: dict[str, Any] = {
    "AttributeDefinitions": [
        {"AttributeName": "PK", "AttributeType": "S"},
        {"AttributeName": "SK", "AttributeType": "S"},
    ],
    "KeySchema": [
        {"AttributeName": "PK", "KeyType": "HASH"},
        {"AttributeName": "SK", "KeyType": "RANGE"},
    ],
    "BillingMode": "PAY_PER_REQUEST",
}
ITEM = {
    "PK": {"S": "VID#9f3a"},
    "SK": {"S": "META"},
    "title": {"S": "Cats"},
    "plays": {"N": "7"},
    "tags": {"SS": ["a", "b"]},
}


def _moto() -> AbstractContextManager[Any]:
    from moto import mock_aws

    return mock_aws()


MOCKS: dict[str, Callable[[], AbstractContextManager[Any]]] = {
    "tallydb": mock_dynamodb,
    "moto": _moto,
}


def _client() -> Any:
    return boto3.client("dynamodb", region_name="us-east-1")


def _setup(ddb: Any) -> None:
    ddb.create_table(TableName=TABLE, **KEY_SCHEMA)
    for i in range(20):
        ddb.put_item(TableName=TABLE, Item={**ITEM, "PK": {"S": "P"}, "SK": {"S": f"{i:02}"}})
    ddb.put_item(TableName=TABLE, Item=ITEM)


def _calls(ddb: Any) -> dict[str, Callable[[], Any]]:
    key = {"PK": ITEM["PK"], "SK": ITEM["SK"]}
    return {
        "PutItem": lambda: ddb.put_item(TableName=TABLE, Item=ITEM),
        "GetItem": lambda: ddb.get_item(TableName=TABLE, Key=key),
        "UpdateItem ADD": lambda: ddb.update_item(
            TableName=TABLE,
            Key=key,
            UpdateExpression="ADD plays :one",
            ExpressionAttributeValues={":one": {"N": "1"}},
        ),
        "Query": lambda: ddb.query(
            TableName=TABLE,
            KeyConditionExpression="PK = :p",
            ExpressionAttributeValues={":p": {"S": "P"}},
        ),
    }


def _small_test(mock: Callable[[], AbstractContextManager[Any]]) -> None:
    with mock():
        ddb = _client()
        ddb.create_table(TableName=TABLE, **KEY_SCHEMA)
        for i in range(10):
            ddb.put_item(TableName=TABLE, Item={**ITEM, "SK": {"S": str(i)}})
        ddb.query(
            TableName=TABLE,
            KeyConditionExpression="PK = :p",
            ExpressionAttributeValues={":p": ITEM["PK"]},
        )


def _per_call(fn: Callable[[], Any], calls: int) -> float:
    """CPU seconds of the process (every thread: a mock's own count) per call."""
    started = time.process_time()
    for _ in range(calls):
        fn()
    return (time.process_time() - started) / calls


def measure(reps: int, calls: int) -> Iterator[tuple[str, float, float]]:
    """(row, tallydb seconds per call, moto seconds per call)."""
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(reps):
        for name, mock in MOCKS.items():
            with mock():
                ddb = _client()
                _setup(ddb)
                for row, fn in _calls(ddb).items():
                    fn()  # warm
                    times.setdefault((row, name), []).append(_per_call(fn, calls))
            tests = max(3, calls // 30)
            times.setdefault(("test", name), []).append(
                _per_call(lambda mock=mock: _small_test(mock), tests)  # type: ignore[misc]
            )
    rows = dict.fromkeys(row for row, _ in times)
    for row in rows:
        yield (
            row,
            statistics.median(times[(row, "tallydb")]),
            statistics.median(times[(row, "moto")]),
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args(argv)
    print(f"{'call':<16} {'tallydb µs':>11} {'moto µs':>9} {'moto/tallydb':>13}")
    worst = float("inf")
    test = 0.0
    for row, ours, moto in measure(args.reps, args.calls):
        ratio = moto / ours
        if row == "test":
            test = ratio
        else:
            worst = min(worst, ratio)
        print(f"{row:<16} {ours * 1e6:>11.0f} {moto * 1e6:>9.0f} {ratio:>12.1f}x")
    verdict = "met" if worst >= TARGET else "NOT met"
    print(f"target: tallydb's mock >= {TARGET:.0f}x faster per call: {verdict} "
          f"(worst {worst:.1f}x)")
    verdict = "met" if test >= TEST_TARGET else "NOT met"
    print(f"target: tallydb's mock >= {TEST_TARGET:.0f}x faster on a whole small test: "
          f"{verdict} ({test:.1f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
