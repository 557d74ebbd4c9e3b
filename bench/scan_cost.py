"""Scan's cost per item returned, tallydb built from several commits, in one run.

    .venv/bin/python -m bench.scan_cost HEAD~1 .             # '.' is the working tree
    .venv/bin/python -m bench.scan_cost HEAD~1 . --items 50000 --reps 5

Each revision's ``src/`` is exported (as ``bench.ab`` does) and run in a
child process of its own: it loads ``--items`` items (``bench.transfer``'s
shape) into an embedded engine, then times a whole-table Scan, page by page
(1 MB each), each response encoded with ``orjson.dumps`` as the server
encodes it: what ``tallydb export`` costs the server, without the sockets.
The revisions take turns, ``--reps`` times; the table gives each one's
median µs per item and its ratio to the first revision in each turn.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.ab import export_src

#: Run in the child, with the revision's src/ first on sys.path.
CHILD = r"""
import json, sys, tempfile, time
import orjson
try:  # the layout by layer, or a revision from before it
    from tallydb.engine import Engine, Store
except ImportError:
    from tallydb.api import Engine
    from tallydb.storage import Store
from bench.transfer import stats_item

items = int(sys.argv[1])
with tempfile.TemporaryDirectory() as data:
    engine = Engine(Store(data))
    engine.call("CreateTable", {
        "TableName": "bench", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"},
                                 {"AttributeName": "SK", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
                      {"AttributeName": "SK", "KeyType": "RANGE"}]})
    for start in range(0, items, 25):
        puts = [{"PutRequest": {"Item": stats_item(n)}}
                for n in range(start, min(items, start + 25))]
        engine.call("BatchWriteItem", {"RequestItems": {"bench": puts}})

    def scan_all() -> int:
        request, seen = {"TableName": "bench"}, 0
        while True:
            page = engine.call("Scan", request)
            orjson.dumps(page)
            seen += page["Count"]
            if "LastEvaluatedKey" not in page:
                return seen
            request = {"TableName": "bench", "ExclusiveStartKey": page["LastEvaluatedKey"]}

    scan_all()  # warm: the table read once
    started = time.thread_time()
    seen = scan_all()
    took = time.thread_time() - started
    engine.close()
print(json.dumps({"items": seen, "us_per_item": took / seen * 1e6}))
"""


def _run(src: Path, items: int) -> float:
    bench_root = Path(__file__).resolve().parent.parent
    out = subprocess.run(
        [sys.executable, "-c", f"import sys; sys.path[:0] = [{str(src)!r}, {str(bench_root)!r}]\n"
         + CHILD, str(items)],
        capture_output=True, text=True, check=True,
    ).stdout
    result = json.loads(out.splitlines()[-1])
    if result["items"] != items:
        raise SystemExit(f"{src}: the Scan returned {result['items']} of {items} items")
    return float(result["us_per_item"])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.scan_cost",
                                description=__doc__.split("\n")[0])
    p.add_argument("revs", nargs="+", help="git revisions; '.' is the working tree")
    p.add_argument("--items", type=int, default=30_000, help="items in the table (30,000)")
    p.add_argument("--reps", type=int, default=3, help="turns (3)")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-scan-") as tmp:
        names = [f"{n}:{rev}" for n, rev in enumerate(args.revs)]
        srcs = [export_src(rev, Path(tmp) / str(n)) for n, rev in enumerate(args.revs)]
        runs: dict[str, list[float]] = {name: [] for name in names}
        for rep in range(args.reps):
            for name, src in zip(names, srcs, strict=True):
                runs[name].append(_run(src, args.items))
                print(f"  turn {rep + 1}/{args.reps} {name}: {runs[name][-1]:.2f} µs/item",
                      flush=True)
    first = runs[names[0]]
    print(f"\nScan of {args.items:,} items, CPU µs per item returned (median of {args.reps});"
          f" ratios to {names[0]}.\n")
    print("| revision | µs/item | ratio | per-turn ratios |\n|---|---:|---:|---|")
    for name in names:
        ratios = [mine / base for mine, base in zip(runs[name], first, strict=True)]
        print(f"| {name} | {statistics.median(runs[name]):.2f} | "
              f"{statistics.median(ratios):.2f} | {', '.join(f'{r:.2f}' for r in ratios)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
