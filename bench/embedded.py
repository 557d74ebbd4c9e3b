"""Embedded counters: ``tallydb.Counter.add()`` in-process, one thread.

    .venv/bin/python -m bench.embedded                     # 3 x 2 s per row, medians
    .venv/bin/python -m bench.embedded --stores normal --reps 5 --duration 1
    .venv/bin/python -m bench.embedded --profile 20000     # where one add's time goes

For each store (``normal``: on disk, the default durability; ``full``: on
disk, fsync before every commit; ``memory``: no disk), on one fresh store:

* ``engine.call``: the engine's own ``UpdateItem``, the very request an
  ``add()`` sends, called in a loop: the baseline, the most any toolkit on
  this engine could do;
* ``engine.call, request copied`` (first store only): the same, handed a
  fresh copy of the request each call (``convert.json_shape``, which the
  embedded transport makes of a caller's request so that the engine never
  holds the caller's dicts; a counter's add sends the request it keeps in
  that shape instead, ``Transport.call_wire``): what that copy costs;
* ``Counter.add()``: ``tallydb.connect(...)``'s embedded counter, returning
  the new value (each call committed before it returns);
* ``Counter.add() via boto3``: the same counter on the in-process boto3
  client (botocore serializing each call, as the embedded mode did before
  it called the engine directly), unless ``--no-boto3``.

The rows run in turn, repetition by repetition, so that a noisy neighbour
hits them alike; each is reported as the median of ``--reps`` runs of
``--duration`` seconds, and as a ratio to ``engine.call`` measured in the
same run. The machine's speed varies; the ratios are what to compare.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import tallydb
from tallydb.toolkit import inprocess
from tallydb.toolkit.convert import json_shape
from tallydb.toolkit.embedded import EngineTransport

#: The speed target for ``Counter.add()`` with the default durability.
TARGET = 30_000
STORES = ("normal", "full", "memory")
KEY = {"PK": "VID#9f3a", "SK": "STATS#TOTAL"}
BASELINE_KEY = {"PK": "VID#9f3a", "SK": "STATS#BASELINE"}
BATCH = 50
BASELINE = "engine.call UpdateItem"


@dataclass
class Row:
    store: str
    name: str
    rates: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.rates) if self.rates else 0.0

    @property
    def cpu_median(self) -> float:
        return statistics.median(self.cpu) if self.cpu else 0.0


def rate(fn: Callable[[], Any], seconds: float) -> tuple[float, float]:
    """Calls of ``fn`` per second of wall time over about ``seconds``
    (checked every BATCH calls), and the process's CPU µs per call (user +
    system: what a neighbour taking the CPU away does not inflate)."""
    n = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    deadline = start + seconds
    while True:
        for _ in range(BATCH):
            fn()
        n += BATCH
        now = time.perf_counter()
        if now >= deadline:
            return n / (now - start), (time.process_time() - cpu_start) * 1e6 / n


@contextmanager
def open_store(store: str) -> Iterator[tallydb.Database]:
    with tempfile.TemporaryDirectory(prefix="tallydb-bench-") as tmp:
        if store == "memory":
            db = tallydb.connect(in_memory=True)
        else:
            db = tallydb.connect(path=tmp, sync=store)
        with db:
            yield db


def add_request(counter: tallydb.Counter) -> dict[str, Any]:
    """The UpdateItem request ``counter.add()`` sends, in the engine's JSON shape
    (what it hands ``engine.call``)."""
    sent: list[dict[str, Any]] = []
    transport = counter.table.transport
    assert isinstance(transport, EngineTransport)
    real = transport.call_wire

    def spy(operation: str, request: dict[str, Any], wire: dict[str, Any]) -> dict[str, Any]:
        sent.append(wire)
        return real(operation, request, wire)

    transport.call_wire = spy  # type: ignore[method-assign]
    try:
        counter.add(0)
    finally:
        del transport.call_wire
    request = json.loads(json.dumps(sent[0]))
    assert isinstance(request, dict)
    request["ExpressionAttributeValues"] = {
        k: {"N": "1"} for k in request["ExpressionAttributeValues"]
    }
    return request


def setup(
    db: tallydb.Database,
) -> tuple[tallydb.Counter, Callable[[], Any], Callable[[], Any], Any]:
    """The counter; the engine's UpdateItem on the request ``add()`` sends
    (to another item), as it is and copied for each call; the engine."""
    table = db.create_table("videos", hash_key=("PK", "S"), range_key=("SK", "S"))
    counter = tallydb.Counter(table, KEY, "play_count")
    transport = db.transport
    assert isinstance(transport, EngineTransport)
    engine = transport.engine
    request = {**add_request(counter), "Key": {"PK": {"S": KEY["PK"]}, "SK": {"S": "STATS#RAW"}}}

    def raw() -> Any:
        return engine.call("UpdateItem", request)

    def copied() -> Any:
        return engine.call("UpdateItem", json_shape(request))

    return counter, raw, copied, engine


def stubbed(db: tallydb.Database, counter: tallydb.Counter) -> Callable[[], Any]:
    """``counter.add`` on a copy of the transport whose engine answers at once:
    the toolkit's own cost per call, without the engine's."""
    transport = db.transport
    assert isinstance(transport, EngineTransport)
    answer = {"Attributes": {"play_count": {"N": "1"}}}
    stub = EngineTransport(transport.engine, lambda: None)
    stub._engine_call = lambda operation, request: answer
    table = tallydb.Table(tallydb.Database(stub), counter.table.name, counter.table._schema)
    return tallydb.Counter(table, KEY, "play_count").add


def measure(args: argparse.Namespace) -> list[Row]:
    rows: list[Row] = []
    for store in args.stores:
        with open_store(store) as db:
            counter, raw, copied, engine = setup(db)
            boto = None
            if not args.no_boto3:
                boto_db = tallydb.connect(client=inprocess.client(engine))
                boto = tallydb.Counter(boto_db.table("videos"), BASELINE_KEY, "play_count")
            mine = [Row(store, BASELINE), Row(store, "Counter.add()")]
            runs: list[Callable[[], Any]] = [raw, counter.add]
            if store == args.stores[0]:
                mine[1:1] = [Row(store, "engine.call, request copied")]
                runs[1:1] = [copied]
                mine.append(Row(store, "Counter.add(), engine stubbed"))
                runs.append(stubbed(db, counter))
            if boto is not None:
                mine.append(Row(store, "Counter.add() via boto3"))
                runs.append(boto.add)
            for fn in runs:  # warm-up: caches, SQLite pages, the first WAL frames
                rate(fn, min(0.3, args.duration))
            for _ in range(args.reps):
                for row, fn in zip(mine, runs, strict=True):
                    wall, cpu = rate(fn, args.duration)
                    row.rates.append(wall)
                    row.cpu.append(cpu)
            expected = counter.value()
            assert isinstance(expected, int) and expected > 0
            rows.extend(mine)
    return rows


def table(rows: list[Row]) -> str:
    lines = [
        "| store | what | calls/s (median) | runs | / engine.call | CPU µs/call | "
        "engine.call / this, CPU |",
        "|---|---|---:|---|---:|---:|---:|",
    ]
    baseline: dict[str, Row] = {}
    for row in rows:
        if row.name == BASELINE:
            baseline[row.store] = row
        base = baseline.get(row.store, row)
        runs = ", ".join(f"{r:,.0f}" for r in row.rates)
        stub = "stubbed" in row.name
        ratio = "" if stub else f"{row.median / base.median:.2f}"
        cpu_ratio = "" if stub else f"{base.cpu_median / row.cpu_median:.2f}"
        lines.append(
            f"| {row.store} | {row.name} | {row.median:,.0f} | {runs} | {ratio} | "
            f"{row.cpu_median:,.1f} | {cpu_ratio} |"
        )
    return "\n".join(lines)


def profile(args: argparse.Namespace) -> None:
    store = args.stores[0]
    with open_store(store) as db:
        counter, _, _, _ = setup(db)
        for _ in range(1000):
            counter.add()
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(args.profile):
            counter.add()
        profiler.disable()
    stats = pstats.Stats(profiler, stream=sys.stdout)
    print(f"cProfile of {args.profile:,} Counter.add() on store {store!r} (times inflated)")
    stats.sort_stats("tottime").print_stats(args.top)
    stats.sort_stats("cumulative").print_stats(args.top)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.embedded", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--stores",
        default=",".join(STORES),
        type=lambda s: [x for x in s.split(",") if x],
        help="normal (default durability), full (fsync), memory; comma-separated",
    )
    parser.add_argument("--duration", type=float, default=2.0, help="seconds per run")
    parser.add_argument("--reps", type=int, default=3, help="runs per row (median)")
    parser.add_argument("--no-boto3", action="store_true", help="skip the boto3 row")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    parser.add_argument(
        "--profile", type=int, default=0, metavar="N", help="profile N adds instead"
    )
    parser.add_argument("--top", type=int, default=25, help="profile entries to print")
    args = parser.parse_args(argv)
    unknown = set(args.stores) - set(STORES)
    if unknown:
        parser.error(f"unknown store(s): {', '.join(sorted(unknown))}")
    if args.profile:
        profile(args)
        return 0
    rows = measure(args)
    print(table(rows))
    normal = {r.name: r.median for r in rows if r.store == "normal"}
    if "Counter.add()" in normal:
        met = "met" if normal["Counter.add()"] >= TARGET else "not met"
        print(
            f"\ntarget: Counter.add() >= {TARGET:,}/s with the default durability: {met} "
            f"({normal['Counter.add()']:,.0f}/s; engine.call alone "
            f"{normal[BASELINE]:,.0f}/s)"
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                [
                    {
                        "store": r.store,
                        "what": r.name,
                        "median": r.median,
                        "runs": r.rates,
                        "cpu_us": r.cpu,
                    }
                    for r in rows
                ],
                f,
                indent=2,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
