"""DescribeTable on a big table: kept counts against counting the rows.

    .venv/bin/python -m bench.describe_table                 # 1,000,000 items
    .venv/bin/python -m bench.describe_table --items 100000 --reps 50

Fills a table (hash key ``PK``, an item of about 60 bytes each) in a fresh
on-disk store, then times, in turn:

* ``DescribeTable``: ``engine.call("DescribeTable", ...)``, what a server
  runs on its event loop for every DescribeTable (and the console asks for
  it often): ItemCount and TableSizeBytes read from the kept counts;
* ``count(*) scan``: the same figures counted from the rows, as
  DescribeTable did before counts were kept: the baseline, in the same run;
* ``DescribeTable after a write``: a PutItem, then DescribeTable (which
  first moves the pending writes into SQLite).

Medians and p99 of ``--reps`` calls each, in milliseconds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable

from tallydb.engine.api import Engine
from tallydb.engine.storage import Store

TABLE = {
    "TableName": "big",
    "BillingMode": "PAY_PER_REQUEST",
    "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
    "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
}
BATCH = 25


def fill(engine: Engine, items: int) -> None:
    """``items`` items through BatchWriteItem, many batches per transaction."""
    done = 0
    while done < items:
        with engine.batch() as call:
            for _ in range(400):
                if done >= items:
                    break
                n = min(BATCH, items - done)
                call("BatchWriteItem", {"RequestItems": {"big": [
                    {"PutRequest": {"Item": {"PK": {"S": f"key-{done + i:09d}"},
                                             "n": {"N": str(done + i)},
                                             "note": {"S": "tally"}}}}
                    for i in range(n)]}})
                done += n


def timed(fn: Callable[[], object], reps: int) -> list[float]:
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--reps", type=int, default=20)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        engine = Engine(Store(folder))
        engine.call("CreateTable", TABLE)
        start = time.perf_counter()
        fill(engine, args.items)
        print(f"filled {args.items:,} items in {time.perf_counter() - start:.1f} s",
              file=sys.stderr)

        def describe() -> object:
            return engine.call("DescribeTable", {"TableName": "big"})

        def scan_count() -> object:
            with engine.store.transaction() as txn:
                record = txn.table("big")
                assert record is not None
                return txn._conn.execute(
                    f"SELECT count(*), coalesce(sum(length(item)), 0) "
                    f"FROM {record.items_table}").fetchone()

        counter = iter(range(10**9))

        def write_then_describe() -> object:
            engine.call("PutItem", {"TableName": "big", "Item": {
                "PK": {"S": f"new-{next(counter)}"}, "n": {"N": "1"}}})
            return describe()

        described = describe()["Table"]  # type: ignore[index]
        assert described["ItemCount"] == args.items, described["ItemCount"]
        rows = [("DescribeTable", describe), ("count(*) scan", scan_count),
                ("DescribeTable after a write", write_then_describe)]
        results: dict[str, list[float]] = {name: [] for name, _ in rows}
        for _ in range(args.reps):
            for name, fn in rows:
                results[name] += timed(fn, 1)
        engine.close()
    print(f"| {args.items:,} items | median ms | p99 ms |")
    print("|---|---:|---:|")
    for name, times in results.items():
        times.sort()
        p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
        print(f"| {name} | {statistics.median(times):.3f} | {p99:.3f} |")
    base = statistics.median(results["count(*) scan"])
    kept = statistics.median(results["DescribeTable"])
    print(f"\nkept counts: {base / kept:,.0f}x faster than counting the rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
