"""The engine's CPU per request on the item operations the request pipeline
touches, tallydb built from several commits, in one run.

    .venv/bin/python -m bench.pipeline_ab main .          # '.' is the working tree
    .venv/bin/python -m bench.pipeline_ab main . --reps 7 --calls 20000

Each revision's ``src/`` is exported (as ``bench.ab`` does) and run in a
child process of its own, which measures ``Engine.call`` on an in-memory
store, in CPU µs per request (``time.thread_time``: what a busy neighbour
does not inflate): GetItem, PutItem, UpdateItem ``ADD n :one`` (the
counter), DeleteItem of a missing item, a Query of one partition, and a
GetItem refused for its key's value. The revisions take turns, ``--reps``
times; the table gives each one's median and its ratio to the first
revision's in the same turn.
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
import json, sys, time
from tallydb.engine.api import Engine
from tallydb.engine.errors import DynamoDBError
from tallydb.engine.storage import Store

calls = int(sys.argv[1])
engine = Engine(Store(None))
engine.call("CreateTable", {
    "TableName": "videos", "BillingMode": "PAY_PER_REQUEST",
    "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
                  {"AttributeName": "SK", "KeyType": "RANGE"}],
    "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"},
                             {"AttributeName": "SK", "AttributeType": "S"}]})
KEY = {"PK": {"S": "VID#9f3a"}, "SK": {"S": "STATS#TOTAL"}}
ITEM = {**KEY, "title": {"S": "Cats"}, "plays": {"N": "7"}}

def cpu(operation, request, n):
    def once():
        try:
            engine.call(operation, request)
        except DynamoDBError:
            pass
    for _ in range(min(n, 1000)):
        once()
    start = time.thread_time()
    for _ in range(n):
        once()
    return (time.thread_time() - start) * 1e6 / n

out = {
    "PutItem": cpu("PutItem", {"TableName": "videos", "Item": ITEM}, calls),
    "GetItem": cpu("GetItem", {"TableName": "videos", "Key": KEY}, calls),
    "UpdateItem ADD": cpu("UpdateItem", {
        "TableName": "videos", "Key": KEY, "UpdateExpression": "ADD plays :one",
        "ExpressionAttributeValues": {":one": {"N": "1"}}}, calls),
    "DeleteItem (none)": cpu("DeleteItem", {
        "TableName": "videos", "Key": {"PK": {"S": "none"}, "SK": {"S": "x"}}}, calls),
    "Query": cpu("Query", {
        "TableName": "videos", "KeyConditionExpression": "PK = :p",
        "ExpressionAttributeValues": {":p": {"S": "VID#9f3a"}}}, calls),
    "GetItem refused": cpu("GetItem", {
        "TableName": "videos", "Key": {"PK": {"N": "x"}, "SK": {"S": "a"}}}, calls),
}
engine.close()
print(json.dumps(out))
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.pipeline_ab",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("revs", nargs="+", help="git revisions; '.' is the working tree")
    parser.add_argument("--reps", type=int, default=5, help="turns (median)")
    parser.add_argument("--calls", type=int, default=20_000, help="calls per measurement")
    args = parser.parse_args(argv)
    names = [f"{i}:{rev}" for i, rev in enumerate(args.revs)]
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in names}
    with tempfile.TemporaryDirectory(prefix="tallydb-pipeline-ab-") as tmp:
        srcs = [export_src(rev, Path(tmp) / str(i)) for i, rev in enumerate(args.revs)]
        for _ in range(args.reps):
            for name, src in zip(names, srcs, strict=True):
                code = f"import sys; sys.path[:0] = [{str(src)!r}]\n" + CHILD
                done = subprocess.run([sys.executable, "-c", code, str(args.calls)],
                                      capture_output=True, text=True, check=True)
                runs[name].append(json.loads(done.stdout.strip().splitlines()[-1]))
    rows = list(runs[names[0]][0])
    print(f"CPU µs per request, median of {args.reps} turns (ratio to {names[0]} in each turn)")
    print("| revision | " + " | ".join(rows) + " |")
    print("|---|" + "---:|" * len(rows))
    for name in names:
        cells = []
        for row in rows:
            mine = [run[row] for run in runs[name]]
            ratios = [m / base[row] for m, base in zip(mine, runs[names[0]], strict=True)]
            cells.append(f"{statistics.median(mine):.2f} ({statistics.median(ratios):.2f}x)")
        print(f"| {name} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
