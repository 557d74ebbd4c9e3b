"""What a read of many rows costs a store whose overlay holds many rows,
and what it costs the writes around it.

In-process (the engine alone on a temp data directory, no sockets): group
commits of 64 ``ADD``s on random keys of ``--keys`` counters (as a
server's batcher commits them under 64 connections), and a one-key
consistent Query every ``--every`` groups, each timed; then the same with
the overlay held to each size in ``--overlays`` (``OVERLAY_ROWS_CACHED``),
in turns. Prints the groups' and the Queries' latency and the CPU seconds
of each run.

    .venv/bin/python -m bench.read_pause [--keys 10000] [--groups 6000]
        [--every 40,400] [--overlays 8192,32768] [--turns 1]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from tallydb.engine.api import Engine
from tallydb.engine.storage import Store
from tallydb.engine.storage import sqlite as store_module

TABLE = {
    "TableName": "counters",
    "BillingMode": "PAY_PER_REQUEST",
    "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
}
GROUP = 64


def _add(key: str) -> dict[str, object]:
    return {"TableName": "counters", "Key": {"pk": {"S": key}},
            "UpdateExpression": "ADD play_count :one",
            "ExpressionAttributeValues": {":one": {"N": "1"}}}


def _query(key: str) -> dict[str, object]:
    return {"TableName": "counters", "KeyConditionExpression": "pk = :k",
            "ExpressionAttributeValues": {":k": {"S": key}}, "ConsistentRead": True}


def _ms(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def run(keys: int, groups: int, every: int, overlay: int, seed: int) -> str:
    """One run; its line of the table."""
    store_module.OVERLAY_ROWS_CACHED = overlay
    names = [f"counter-{n}" for n in range(keys)]
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as directory:
        engine = Engine(Store(Path(directory)))
        try:
            engine.call("CreateTable", TABLE)
            for start in range(0, keys, GROUP):  # every counter exists
                with engine.batch() as call:
                    for name in names[start:start + GROUP]:
                        call("UpdateItem", _add(name))
            commits: list[float] = []
            queries: list[float] = []
            cpu = time.process_time()
            for group in range(groups):
                requests = [_add(rng.choice(names)) for _ in range(GROUP)]
                started = time.perf_counter()
                with engine.batch() as call:
                    for request in requests:
                        call("UpdateItem", request)
                commits.append(time.perf_counter() - started)
                if group % every == every - 1:
                    started = time.perf_counter()
                    engine.call("Query", _query(rng.choice(names)))
                    queries.append(time.perf_counter() - started)
            cpu = time.process_time() - cpu
        finally:
            engine.close()
    return (f"| {overlay:,} | {every} | {_ms(commits, 0.5):.1f} / {_ms(commits, 0.99):.1f} / "
            f"{1000 * max(commits):.1f} | {_ms(queries, 0.5):.2f} / {_ms(queries, 0.9):.2f} / "
            f"{1000 * max(queries):.2f} | {cpu:.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keys", type=int, default=10_000)
    parser.add_argument("--groups", type=int, default=6_000)
    parser.add_argument("--every", default="40,400", help="groups between Queries")
    parser.add_argument("--overlays", default=str(store_module.OVERLAY_ROWS_CACHED),
                        help="OVERLAY_ROWS_CACHED values, in turns")
    parser.add_argument("--turns", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"{args.keys:,} counters, {args.groups:,} group commits of {GROUP} random-key ADDs, "
          f"a one-key consistent Query every N groups (store: {store_module.__file__})\n")
    print("| overlay | Query every | group commit p50 / p99 / max ms "
          "| Query p50 / p90 / max ms | CPU s |")
    print("|---:|---:|---|---|---:|")
    for _ in range(args.turns):
        for every in (int(n) for n in args.every.split(",")):
            for overlay in (int(n) for n in args.overlays.split(",")):
                print(run(args.keys, args.groups, every, overlay, args.seed), flush=True)


if __name__ == "__main__":
    main()
