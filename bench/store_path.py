"""The store's own cost per item write, random keys over a small and a large table.

    .venv/bin/python -m bench.store_path                        # 10,000 and 1,000,000 items
    .venv/bin/python -m bench.store_path --sizes 10000,100000 --rounds 4

What scenario B's `UpdateItem ADD` asks of the store, without the engine:
each transaction reads 64 rows at random (``Transaction.get_item``), adds
one to a number in each and writes it back (``put_encoded``), as the
server's group commit of 64 requests does. Every size has its own data
directory (a temp folder), filled with ``put_rows`` before measuring; the
sizes are measured in turn, round after round, in one process (a busy
machine slows them alike), after a warm-up. Prints the CPU µs per write of
the writing thread and of the whole process (the checkpointer's thread
included), medians, and the last size's ratio to the first, per round.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time

import orjson

from tallydb.engine.storage import Store, TableRecord
from tallydb.engine.storage import sqlite as sqlite_store

WRITES = 64  # one transaction's
FILL = 20_000  # rows a put_rows transaction when filling


def fill(directory: str, count: int, page_size: int | None = None
         ) -> tuple[Store, TableRecord, list[bytes]]:
    """A store whose one table holds ``k0``..``k{count-1}`` (``n`` 0), made
    with pages of ``page_size`` bytes (None: the store's own default)."""
    default = sqlite_store.PAGE_SIZE
    sqlite_store.PAGE_SIZE = page_size or default
    try:
        store = Store(directory)
    finally:
        sqlite_store.PAGE_SIZE = default
    with store.transaction() as txn:
        record = txn.create_table("counters", {})
    keys = [f"k{i}".encode() + b"\0\0" for i in range(count)]
    for start in range(0, count, FILL):
        with store.transaction() as txn:
            txn.put_rows(record, {
                (key, b""): orjson.dumps({"pk": {"S": key[:-2].decode()}, "n": {"N": "0"}})
                for key in keys[start:start + FILL]})
    return store, record, keys


def writes(store: Store, record: TableRecord, keys: list[bytes], rng: random.Random,
           transactions: int) -> tuple[float, float]:
    """CPU µs per write (this thread, the process) over ``transactions``."""
    thread, process = time.thread_time(), time.process_time()
    for _ in range(transactions):
        with store.transaction() as txn:
            for _ in range(WRITES):
                key = keys[rng.randrange(len(keys))]
                item = txn.get_item(record, key)
                assert item is not None
                item["n"]["N"] = str(int(item["n"]["N"]) + 1)
                txn.put_encoded(record, key, b"", orjson.dumps(item))
    per = transactions * WRITES / 1e6
    return (time.thread_time() - thread) / per, (time.process_time() - process) / per


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.store_path")
    parser.add_argument("--sizes", default="10000,1000000", help="items, comma-separated")
    parser.add_argument("--page-sizes", default="",
                        help="page sizes of new databases to compare, comma-separated "
                        "(default: the store's own)")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--transactions", type=int, default=400, help="per size and round")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    pages: list[int | None] = [int(p) for p in args.page_sizes.split(",") if p] or [None]
    setups = [(size, page) for page in pages for size in sizes]
    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as folder:
        stores = []
        for size, page in setups:
            began = time.monotonic()
            stores.append(fill(f"{folder}/{size}-{page}", size, page))
            print(f"filled {size:,} items (page size {page or 'default'}) in "
                  f"{time.monotonic() - began:.1f} s", flush=True)
        for store, record, keys in stores:
            writes(store, record, keys, rng, args.transactions)  # warm-up
        figures: list[list[tuple[float, float]]] = [[] for _ in setups]
        for round_ in range(args.rounds):
            order = list(range(len(setups)))
            for at in order if round_ % 2 == 0 else order[::-1]:
                figures[at].append(writes(*stores[at], rng, args.transactions))
        for store, _, _ in stores:
            store.close()
    for (size, page), runs in zip(setups, figures, strict=True):
        print(f"{size:>10,} items, page size {page or 'default'}: "
              f"{statistics.median(r[0] for r in runs):.2f} µs a write "
              f"(process {statistics.median(r[1] for r in runs):.2f})")
    first = 0
    for at in range(1, len(setups)):
        if setups[at][1] != setups[first][1]:
            first = at
            continue
        for kind, pick in (("thread", 0), ("process", 1)):
            ratios = [last[pick] / base[pick]
                      for base, last in zip(figures[first], figures[at], strict=True)]
            print(f"page size {setups[at][1] or 'default'}, {setups[at][0]:,} against "
                  f"{setups[first][0]:,} ({kind}): {statistics.median(ratios):.2f} "
                  f"(per round {', '.join(f'{r:.2f}' for r in ratios)})")


if __name__ == "__main__":
    main()
