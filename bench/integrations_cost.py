"""What the integrations cost a hot counter, as ratios within one run, and
how long a 1,000,000-item export takes.

    .venv/bin/python -m bench.integrations_cost                 # against 628ba7d (before them)
    .venv/bin/python -m bench.integrations_cost --base HEAD~3 --seconds 3 --reps 5
    .venv/bin/python -m bench.integrations_cost --only-export --export-items 1000000

Each condition runs in a process of its own, in turns (A B C D, A B C D,
...), so that a busy machine slows them alike: a hot-key ``UpdateItem ADD``
as a server's group commit runs it, batches of 64 requests in one
transaction (``Engine.batch``), on a store in a temporary data directory,
for ``--seconds``; it reports requests a second and CPU seconds a request:

* ``base``: ``--base``'s engine (exported with ``git archive``), no integration;
* ``unused``: this tree, no integration in use;
* ``kinesis``: this tree, the table with an ACTIVE Kinesis destination, the
  forwarder reading, encoding and deleting every record on its thread (the
  sender takes every record at once: what Kinesis costs on its side is not
  the server's);
* ``export``: this tree, a 200,000-item table of the same store being
  exported, over and over, by the export job on its thread.

The budget: ``unused`` within noise of ``base``; ``kinesis`` and ``export``
keep at least 85% of ``unused``'s requests a second.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BATCH = 64
REQUEST = {"TableName": "videos", "Key": {"PK": {"S": "VID#9f3a"}},
           "UpdateExpression": "ADD play_count :one",
           "ExpressionAttributeValues": {":one": {"N": "1"}}}


def _table(name: str) -> dict[str, Any]:
    return {"TableName": name, "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}]}


class _TakesAll:
    """A Kinesis that takes every record (the bench's sender)."""

    def __init__(self) -> None:
        self.records = 0

    def describe(self) -> str:
        return "in-process"

    def check_stream(self, stream_arn: str) -> None:
        pass

    def put_records(self, stream_arn: str, records: list[tuple[str, bytes]]) -> list[bool]:
        self.records += len(records)
        return [True] * len(records)


def _fill(engine: Any, table: str, items: int) -> None:
    engine.call("CreateTable", _table(table))
    done = 0
    while done < items:
        with engine.batch() as call:
            for i in range(done, min(items, done + 1000)):
                call("PutItem", {"TableName": table, "Item": {
                    "PK": {"S": f"item#{i:08d}"}, "n": {"N": str(i)},
                    "title": {"S": "a video title of some length"}}})
        done += 1000


def _wait_export(engine: Any, arn: str) -> dict[str, Any]:
    while True:
        described: dict[str, Any] = engine.call(
            "DescribeExport", {"ExportArn": arn})["ExportDescription"]
        if described["ExportStatus"] != "IN_PROGRESS":
            return described
        time.sleep(0.05)


def workload(mode: str, seconds: float) -> dict[str, float]:
    from tallydb.engine import Engine, Store

    with tempfile.TemporaryDirectory() as data:
        options: dict[str, Any] = {}
        if mode == "kinesis":
            options["kinesis"] = _TakesAll()
        engine = Engine(Store(Path(data)), **options)
        engine.call("CreateTable", _table("videos"))
        if mode == "kinesis":
            engine.call("EnableKinesisStreamingDestination", {
                "TableName": "videos",
                "StreamArn": "arn:aws:kinesis:us-east-1:000000000000:stream/bench"})
            while engine.call("DescribeKinesisStreamingDestination", {"TableName": "videos"})[
                    "KinesisDataStreamDestinations"][0]["DestinationStatus"] != "ACTIVE":
                time.sleep(0.01)
        exporting = None
        if mode == "export":
            _fill(engine, "library", 200_000)
            engine.call("UpdateContinuousBackups", {
                "TableName": "library",
                "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True}})
            arn = engine.call("DescribeTable", {"TableName": "library"})["Table"]["TableArn"]
            exporting = arn
        for _ in range(200):  # warm up (a change each)
            with engine.batch() as call:
                call("UpdateItem", REQUEST)
        export_arn = None
        if exporting is not None:
            export_arn = engine.call("ExportTableToPointInTime", {
                "TableArn": exporting, "S3Bucket": "bench"})["ExportDescription"]["ExportArn"]
        requests = 0
        cpu = time.process_time()
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            with engine.batch() as call:
                for _ in range(BATCH):
                    call("UpdateItem", REQUEST)
            requests += BATCH
            if (exporting is not None and export_arn is not None
                    and requests % (BATCH * 50) == 0
                    and engine.call("DescribeExport", {"ExportArn": export_arn})[
                        "ExportDescription"]["ExportStatus"] != "IN_PROGRESS"):
                export_arn = engine.call("ExportTableToPointInTime", {
                    "TableArn": exporting, "S3Bucket": "bench"})["ExportDescription"]["ExportArn"]
        elapsed = time.perf_counter() - start
        used = time.process_time() - cpu
        result = {"rps": requests / elapsed, "cpu_us": used / requests * 1e6}
        if export_arn is not None:
            _wait_export(engine, export_arn)
        if mode == "kinesis":
            # how far the destination kept up: the share of the run's changes
            # sent by its end, and how long the rest took once writes stopped
            changes = 200 + requests
            result["sent"] = options["kinesis"].records / changes
            while options["kinesis"].records < changes:
                time.sleep(0.01)
            result["drain_s"] = time.perf_counter() - start - elapsed
        engine.close()
    return result


def export_time(items: int) -> dict[str, float]:
    from tallydb.engine import Engine, Store

    with tempfile.TemporaryDirectory() as data:
        engine = Engine(Store(Path(data)))
        started = time.perf_counter()
        _fill(engine, "big", items)
        filled = time.perf_counter() - started
        engine.call("UpdateContinuousBackups", {
            "TableName": "big",
            "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True}})
        arn = engine.call("DescribeTable", {"TableName": "big"})["Table"]["TableArn"]
        started = time.perf_counter()
        export = engine.call("ExportTableToPointInTime", {"TableArn": arn, "S3Bucket": "bench"})
        done = _wait_export(engine, export["ExportDescription"]["ExportArn"])
        took = time.perf_counter() - started
        engine.close()
    assert done["ItemCount"] == items, done
    return {"items": items, "fill_s": filled, "export_s": took}


def _run(tree: Path, mode: str, seconds: float) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-m", "bench.integrations_cost", "--child", mode,
         "--seconds", str(seconds)],
        cwd=Path(__file__).resolve().parents[1], capture_output=True, text=True, check=True,
        env={"PYTHONPATH": f"{tree / 'src'}", "PATH": "/usr/bin:/bin"})
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _export_only(items: int) -> None:
    result = export_time(items)
    print(f"export of {result['items']:,} items: {result['export_s']:.1f} s "
          f"(loading them took {result['fill_s']:.1f} s)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", default="628ba7d")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--export-items", type=int, default=0)
    parser.add_argument("--conditions", default="base,unused,kinesis,export",
                        help="which conditions to run (unused is always run: the ratios' base)")
    parser.add_argument("--child")
    parser.add_argument("--only-export", action="store_true",
                        help="only time the export of --export-items items")
    args = parser.parse_args()
    if args.only_export:
        _export_only(args.export_items or 1_000_000)
        return
    if args.child:
        print(json.dumps(workload(args.child, args.seconds)))
        return
    here = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        archive = subprocess.run(["git", "archive", args.base, "src"], cwd=here,
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive, check=True)
        wanted = set(args.conditions.split(",")) | {"unused"}
        runs: dict[str, list[dict[str, float]]] = {
            m: [] for m in ("base", "unused", "kinesis", "export") if m in wanted}
        for _ in range(args.reps):
            for mode in runs:
                tree = base if mode == "base" else here
                runs[mode].append(_run(tree, "unused" if mode == "base" else mode,
                                       args.seconds))
    unused = statistics.median(r["rps"] for r in runs["unused"])
    print(f"hot-key ADD, batches of {BATCH}, {args.reps} x {args.seconds:g} s each, "
          f"median (base {args.base}):")
    for mode, results in runs.items():
        rps = statistics.median(r["rps"] for r in results)
        cpu = statistics.median(r["cpu_us"] for r in results)
        print(f"  {mode:8s} {rps:10,.0f} req/s  {cpu:6.1f} µs CPU/req  "
              f"{rps / unused:5.2f}x unused's req/s")
        if mode == "kinesis":
            sent = statistics.median(r["sent"] for r in results)
            drain = statistics.median(r["drain_s"] for r in results)
            print(f"           {sent:.0%} of the changes sent by the end of the run, "
                  f"the rest {drain:.2f} s later")
    if args.export_items:
        _export_only(args.export_items)


if __name__ == "__main__":
    main()
