"""The change feed's cost on the write path, in instructions (callgrind):
repeatable whatever else the machine is doing.

    .venv/bin/python -m bench.feed_cost                  # this tree, and c740eb9 (before the feed)
    .venv/bin/python -m bench.feed_cost --base HEAD~5 --batches 200

Each condition runs in its own ``valgrind --tool=callgrind`` process: the
same hot-key ``UpdateItem ADD`` a server's group commit runs, ``--batches``
batches of 64 requests in one transaction each (``Engine.batch``), on an
in-memory engine, after a warm-up; the instructions of the measured part
(a run with none of them taken from a run with them) divided by the
requests:

* ``before the feed``: ``--base``'s engine (exported with ``git archive``);
* ``no page``: this tree, nobody listening to the feed;
* ``a listener that does nothing``: this tree, the feed's own part (the
  write path recording changes, the engine publishing them);
* ``page open``: this tree, the console's live hub listening (coalescing as
  commits arrive, a frame every 45 batches: 100 ms at ~29,000 req/s) with
  one page attached that reads everything.

The server does more per request than this (HTTP, JSON, the event loop:
``bench.live_feed`` measures it whole); the extra instructions per request
are what the feed adds to it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.callgrind import collected

BATCH = 64
FRAME_EVERY = 45
REQUEST = {"TableName": "videos", "Key": {"PK": {"S": "VID#9f3a"}, "SK": {"S": "STATS#TOTAL"}},
           "UpdateExpression": "ADD play_count :one",
           "ExpressionAttributeValues": {":one": {"N": "1"}}}
TABLE = {"TableName": "videos", "BillingMode": "PAY_PER_REQUEST",
         "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"},
                                  {"AttributeName": "SK", "AttributeType": "S"}],
         "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
                       {"AttributeName": "SK", "KeyType": "RANGE"}]}


class _Page:
    """A page's socket that takes everything (the hub's sink)."""

    def __init__(self) -> None:
        self.bytes = 0

    def write(self, data: bytes) -> None:
        self.bytes += len(data)

    def get_write_buffer_size(self) -> int:
        return 0

    def close(self) -> None:
        pass


def workload(mode: str, batches: int) -> None:
    try:  # the layout by layer, or a revision from before it
        from tallydb.engine import Engine, Store
    except ImportError:
        from tallydb.api import Engine
        from tallydb.storage import Store

    engine = Engine(Store(None))
    engine.call("CreateTable", TABLE)
    hub: Any = None
    if mode == "listener":
        engine.feed.subscribe(lambda first, changes: None)
    if mode == "page":
        from tallydb.console.live import LiveHub

        loop = asyncio.new_event_loop()
        hub = LiveHub(engine.feed, loop)
        stream = hub.open(None, None)
        stream.sink = _Page()
        hub.streams.add(stream)

    def run(count: int) -> None:
        for i in range(count):
            with engine.batch() as call:
                for _ in range(BATCH):
                    call("UpdateItem", REQUEST)
            if hub is not None and i % FRAME_EVERY == FRAME_EVERY - 1:
                hub._flush()

    run(20)  # warm-up: caches, the remembered request shape
    run(batches)


def _instructions(python: str, pythonpath: str, mode: str, batches: int) -> int:
    """What one whole process of ``mode`` executes, under callgrind."""
    return collected(
        [python, "-m", "bench.feed_cost", "--run", mode, "--batches", str(batches)],
        {**os.environ, "PYTHONPATH": pythonpath, "PYTHONHASHSEED": "0"}, label=mode)


def _measure(python: str, pythonpath: str, mode: str, batches: int) -> float:
    """Instructions per request of ``mode``: a run of ``batches`` less a
    run of none (start-up, set-up and warm-up cancel out)."""
    ran = _instructions(python, pythonpath, mode, batches)
    idle = _instructions(python, pythonpath, mode, 0)
    return (ran - idle) / (batches * BATCH)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="c740eb9", help="a revision from before the feed")
    parser.add_argument("--batches", type=int, default=100)
    parser.add_argument("--run", choices=("none", "listener", "page"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.run is not None:
        workload(args.run, args.batches)
        return 0
    from bench.ab import export_src

    repo = Path(__file__).resolve().parent.parent
    here = os.pathsep.join([str(repo), str(repo / "src")])
    rows: list[tuple[str, float]] = []
    with tempfile.TemporaryDirectory(prefix="tallydb-feed-cost-") as tmp:
        base_src = export_src(args.base, Path(tmp) / "base")
        rows.append((f"before the feed ({args.base})",
                     _measure(sys.executable, os.pathsep.join([str(repo), str(base_src)]),
                              "none", args.batches)))
    rows.append(("no page", _measure(sys.executable, here, "none", args.batches)))
    rows.append(("a listener that does nothing",
                 _measure(sys.executable, here, "listener", args.batches)))
    rows.append(("page open", _measure(sys.executable, here, "page", args.batches)))
    base = rows[0][1]
    print(f"Hot-key UpdateItem ADD, {args.batches} batches of {BATCH} in-process "
          "(callgrind, instructions per request)\n")
    print("| condition | instructions/request | ratio | extra |")
    print("|---|---:|---:|---:|")
    for name, per_request in rows:
        print(f"| {name} | {per_request:,.0f} | {per_request / base:.3f} "
              f"| {per_request - base:+,.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
