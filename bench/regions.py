"""What point-in-time recovery and global tables cost, against a baseline
measured in the same run: hot-key ADD on a plain table, with recovery on,
on a global table; and a restore.

    .venv/bin/python -m bench.regions                    # 5 x 5 s in turn, 64 connections
    .venv/bin/python -m bench.regions --reps 3 --duration 3 --restore-items 20000

One ``tallydb serve --separate-regions`` (the working tree), pinned like
``bench.run``; wrk sends (unsigned: in us-east-1), in turn on each
repetition, UpdateItem ``ADD play_count :one`` on one item:

* ``add``: of a plain table;
* ``add+pitr``: of a table with point-in-time recovery on;
* ``add+replica``: of a global table with one other replica (eu-west-1,
  multi-Region eventual consistency, the default replication delay of 1 s):
  the writing region's cost, replication included (the server does it).

Ratios are per repetition, to ``add`` (the budgets: ``add+pitr`` keeps at
least 0.85 of ``add``'s req/s, ``add+replica`` 0.70); the server's CPU per
request is the figure that holds on a busy machine.

The same requests in-process (no HTTP, no wrk: the engine's own CPU per
request, in group commits of 50, the tables in turn ``--reps`` times, the
order alternating), the figure least moved by other work on the machine:
the median and the least of the repetitions.

Then a restore, in-process on a data directory: ``--restore-items`` items
are written, then ``--restore-items`` changes to random items spread over
``--restore-minutes`` minutes (the clock is moved forward as they are
made, as if they had taken that long), and RestoreTableToPointInTime
rebuilds the table as it was before them (the budget: under 5 s for
100,000 items and 100,000 changes over 10 minutes).
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import statistics
import sys
import tempfile
import time
from typing import Any

from bench.dynamo import RawClient
from bench.loadgen import run_wrk
from bench.measure import Plan, _one_rep
from bench.regions_scenarios import KEY, add_scenario, create
from bench.run import pin_cpus
from bench.servers import SPECS, RunningServer
from bench.servers import _tallydb as tallydb_argv

PLAIN, RECOVERED, REPLICATED = "bench_plain", "bench_pitr", "bench_global"


def _setup(client: RawClient) -> None:
    for table in (PLAIN, RECOVERED, REPLICATED):
        create(client, table)
        client.call("PutItem", {"TableName": table, "Item": {**KEY, "play_count": {"N": "0"}}})
    client.call("UpdateContinuousBackups", {
        "TableName": RECOVERED,
        "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True}})
    client.call("UpdateTable", {"TableName": REPLICATED,
                                "ReplicaUpdates": [{"Create": {"RegionName": "eu-west-1"}}]})
    deadline = time.monotonic() + 60
    while client.call("DescribeTable", {"TableName": REPLICATED})["Table"][
            "TableStatus"] != "ACTIVE":
        if time.monotonic() > deadline:
            raise RuntimeError("the replica did not become ACTIVE")
        time.sleep(0.1)


def _restore_seconds(items: int, changes: int, minutes: float
                     ) -> tuple[float, float, int, int]:
    """(seconds the restore took, its CPU seconds, items restored, history rows)."""
    from tallydb.engine.api import Engine
    from tallydb.engine.api import _history as history
    from tallydb.engine.api._stream_records import now_ns, raise_clock
    from tallydb.engine.storage import Store

    rng = random.Random(7)
    with tempfile.TemporaryDirectory(prefix="tallydb-bench-restore-") as data:
        engine = Engine(Store(data))
        try:
            engine.call("CreateTable", {
                "TableName": "source", "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]})
            engine.call("UpdateContinuousBackups", {
                "TableName": "source",
                "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True}})
            batch = 500
            for first in range(0, items, batch):
                with engine.batch() as call:
                    for n in range(first, min(items, first + batch)):
                        call("PutItem", {"TableName": "source", "Item": {
                            "pk": {"S": f"item{n:07d}"}, "plays": {"N": "0"},
                            "title": {"S": f"title of {n}"}}})
            raise_clock(now_ns() + 1_500_000_000)
            point = now_ns() / 1e9
            step = minutes * 60 / changes * 1e9  # ns of simulated time per change
            for _ in range(0, changes, batch):
                with engine.batch() as call:
                    for _ in range(batch):
                        call("UpdateItem", {
                            "TableName": "source",
                            "Key": {"pk": {"S": f"item{rng.randrange(items):07d}"}},
                            "UpdateExpression": "ADD plays :one",
                            "ExpressionAttributeValues": {":one": {"N": "1"}}})
                raise_clock(now_ns() + int(step * batch))
            with engine.store.transaction() as txn:
                record = txn.table("source")
                assert record is not None
                rows = sum(1 for _ in txn.items(record, index=history.HISTORY_SOURCE))
            start, cpu = time.perf_counter(), time.process_time()
            engine.call("RestoreTableToPointInTime", {
                "SourceTableName": "source", "TargetTableName": "restored",
                "RestoreDateTime": point})
            took, cpu = time.perf_counter() - start, time.process_time() - cpu
            count = engine.call("DescribeTable", {"TableName": "restored"})["Table"]["ItemCount"]
            scanned = engine.call("Scan", {"TableName": "restored", "Limit": 1000})
            assert all(item["plays"] == {"N": "0"} for item in scanned["Items"])
            return took, cpu, int(count), rows
        finally:
            engine.close()


def _engine_cpu_us(reps: int, requests: int = 20_000, group: int = 50
                   ) -> dict[str, list[float]]:
    """CPU µs per hot-key ADD run by the engine in-process, per table, per rep."""
    from tallydb.engine.api import Engine
    from tallydb.engine.storage import Store

    figures: dict[str, list[float]] = {"add": [], "add+pitr": [], "add+replica": []}
    with tempfile.TemporaryDirectory(prefix="tallydb-bench-cpu-") as data:
        engine = Engine(Store(data), separate_regions=True)
        try:
            for table in (PLAIN, RECOVERED, REPLICATED):
                engine.call("CreateTable", {
                    "TableName": table, "BillingMode": "PAY_PER_REQUEST",
                    "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]})
            engine.call("UpdateContinuousBackups", {
                "TableName": RECOVERED,
                "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True}})
            engine.call("UpdateTable", {"TableName": REPLICATED, "ReplicaUpdates": [
                {"Create": {"RegionName": "eu-west-1"}}]})
            while engine.call("DescribeTable", {"TableName": REPLICATED})["Table"][
                    "TableStatus"] != "ACTIVE":
                time.sleep(0.05)
            engine.replicator.stop()  # rounds run here, after each turn, and are counted
            turns = (("add", PLAIN), ("add+pitr", RECOVERED), ("add+replica", REPLICATED))
            for rep in range(reps):
                for name, table in turns if rep % 2 else turns[::-1]:
                    request = {"TableName": table, "Key": KEY,
                               "UpdateExpression": "ADD play_count :one",
                               "ExpressionAttributeValues": {":one": {"N": "1"}}}
                    start = time.process_time()
                    for _ in range(requests // group):
                        with engine.batch() as call:
                            for _ in range(group):
                                call("UpdateItem", request)
                    if table == REPLICATED:  # replication's share, all of it
                        time.sleep(engine.replication.delay)
                        while engine.replicate() is not None:
                            time.sleep(0.01)
                    figures[name].append((time.process_time() - start) * 1e6 / requests)
        finally:
            engine.close()
    return figures


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.regions", description=__doc__.split("\n")[0])
    p.add_argument("--conns", type=int, default=64)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--duration", type=int, default=5)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--restore-items", type=int, default=100_000)
    p.add_argument("--restore-minutes", type=float, default=10.0)
    args = p.parse_args(argv)
    server_cpus, load_cpus, wrk_threads = pin_cpus()
    scenarios = [add_scenario("add", PLAIN), add_scenario("add+pitr", RECOVERED),
                 add_scenario("add+replica", REPLICATED)]
    reps: dict[str, list[dict[str, Any]]] = {s.id: [] for s in scenarios}
    spec = dataclasses.replace(SPECS["tallydb"], name="tallydb-regions",
                               argv=tallydb_argv("--separate-regions"))
    with RunningServer(spec, server_cpus) as server:
        client = RawClient(server.url)
        _setup(client)
        client.close()
        plan = Plan(scenarios=scenarios, connections=[args.conns], warmup=args.warmup,
                    duration=args.duration, repetitions=args.reps, keys=0,
                    exact_threads=0, exact_per_thread=0, load_cpus=load_cpus,
                    wrk_threads=wrk_threads)
        for scenario in scenarios:
            run_wrk(server.url, scenario.env, args.conns, args.warmup,
                    threads=wrk_threads, cpus=load_cpus)
        for r in range(args.reps):
            for scenario in scenarios:
                rep = _one_rep(server, scenario, args.conns, plan, False)
                if rep["errors"]:
                    print(f"{scenario.id}: {rep['errors']} errors", file=sys.stderr)
                    return 1
                reps[scenario.id].append(rep)
                print(f"  rep {r + 1}/{args.reps} {scenario.id}: {rep['rps']:,.0f} req/s "
                      f"(other CPU {rep['other_cpu_percent']:.0f}%)", flush=True)
    print(f"\n{args.conns} connections, {args.reps} x {args.duration} s in turn, medians; "
          "ratios to add.\n")
    print("| run | req/s | ratio | per-rep ratios | CPU µs/req | CPU ratio | p99 ms |")
    print("|---|---:|---:|---|---:|---:|---:|")
    first = reps["add"]
    first_rps = statistics.median(rep["rps"] for rep in first)
    first_cpu = statistics.median(rep["cpu_us_per_request"] for rep in first)
    for name, runs in reps.items():
        rps = statistics.median(rep["rps"] for rep in runs)
        cpu = statistics.median(rep["cpu_us_per_request"] for rep in runs)
        per_rep = ", ".join(f"{a['rps'] / b['rps']:.2f}" for a, b in zip(runs, first, strict=True))
        print(f"| {name} | {rps:,.0f} | {rps / first_rps:.2f} | {per_rep} | {cpu:.1f} "
              f"| {first_cpu / cpu:.2f} | {statistics.median(rep['p99_ms'] for rep in runs):.2f} |")
    figures = _engine_cpu_us(args.reps)
    base = statistics.median(figures["add"])
    print("\nIn-process, CPU µs per request (group commits of 50):\n")
    print("| run | µs/req (median) | ratio | µs/req (least) | ratio |")
    print("|---|---:|---:|---:|---:|")
    least = min(figures["add"])
    for name, runs in figures.items():
        cost = statistics.median(runs)
        print(f"| {name} | {cost:.1f} | {base / cost:.2f} | {min(runs):.1f} "
              f"| {least / min(runs):.2f} |")
    took, cpu, count, rows = _restore_seconds(args.restore_items, args.restore_items,
                                              args.restore_minutes)
    print(f"\nRestore of {count:,} items to {args.restore_minutes:g} minutes and "
          f"{args.restore_items:,} changes back ({rows:,} history rows): {took:.2f} s "
          f"({cpu:.2f} s of CPU)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
