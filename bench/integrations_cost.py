"""What the integrations cost a hot counter, as ratios within one run, and
how long a 1,000,000-item export takes.

    .venv/bin/python -m bench.integrations_cost                 # against 628ba7d (before them)
    .venv/bin/python -m bench.integrations_cost --base HEAD~3 --seconds 3 --reps 5
    .venv/bin/python -m bench.integrations_cost --only-export --export-items 1000000
    .venv/bin/python -m bench.integrations_cost --callgrind --changes 6400 [--batch 4]
    .venv/bin/python -m bench.integrations_cost --server --reps 5 --duration 5
    .venv/bin/python -m bench.integrations_cost --deliver --changes 4000 --batch 40
    .venv/bin/python -m bench.integrations_cost --callgrind --modes deliver --batch 40

Each condition runs in a process of its own, in turns (A B C D, A B C D,
...), so that a busy machine slows them alike: a hot-key ``UpdateItem ADD``
as a server's group commit runs it, batches of 64 requests in one
transaction (``Engine.batch``), on a store in a temporary data directory,
for ``--seconds``; it reports requests a second and CPU seconds a request:

* ``base``: ``--base``'s engine (exported with ``git archive``), no integration;
* ``unused``: this tree, no integration in use;
* ``kinesis``: this tree, the table with an ACTIVE Kinesis destination, the
  forwarder reading and deleting every row on its thread and its worker
  process making and "sending" the records (the sender takes every record
  at once: what Kinesis costs on its side is not the server's);
* ``export``: this tree, a 200,000-item table of the same store being
  exported, over and over, by the export job on its thread.

* ``kinesis-http``: as ``kinesis``, the records sent by the server's own
  Kinesis client (``tallydb.server.connectors``) to ``bench.kinesis_sink``,
  a process of its own that takes them all.

The budget: ``unused`` within noise of ``base``; ``kinesis`` and ``export``
keep at least 85% of ``unused``'s requests a second.

Two more measures of a Kinesis destination's cost, steadier on a busy machine:

* ``--callgrind``: instructions per change (callgrind, so whatever else the
  machine does) of a process making ``--changes`` changes in batches of
  ``--batch`` as above, counted (every thread: the forwarder's, the
  checkpointer's; not the destination's worker process, which callgrind
  does not follow) from the first batch until the outbox is empty (the
  bench's own looks at the outbox uncounted), for
  ``unused``, ``kinesis`` and ``kinesis-http`` (needs gcc and valgrind's
  headers: a two-function library marks the section);
* ``--server``: scenario A (hot-key ADD, ``bench.run``'s) through real
  ``tallydb serve`` processes in turn, with wrk: one whose counters table has
  no destination and one whose table has an ACTIVE destination sending to
  ``bench.kinesis_sink``; req/s, the serving process's CPU per request and
  the total with the processes it started (the destination's worker; the
  sink's own CPU is not the server's), medians and the ratios to the first,
  and the serving process's CPU split into its request thread's and its
  other threads' (the forwarder's), beside the sink's (``--worker-cpus``
  places the worker);
* ``--deliver``: the worker's cost a record, ``deliver`` of a counter's
  outbox rows to ``bench.kinesis_sink``, in one process; in instructions,
  load-independent: ``--callgrind --modes deliver --batch 40`` (the rows
  of ``--changes`` changes, made uncounted, then the worker's ``answer`` to
  them counted).
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import dataclasses
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from bench import procstat
from bench.callgrind import collected

BATCH = 64
ARN = "arn:aws:kinesis:us-east-1:000000000000:stream/bench"
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

    def put_records(self, stream_arn: str, partitions: list[str], data: list[bytes]
                    ) -> list[bool]:
        self.records += len(partitions)
        return [True] * len(partitions)


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


def _waiting(engine: Any, count: bool = False) -> int:
    """Whether records of the videos table still wait in its Kinesis outbox
    (the forwarder deletes a row once Kinesis took all of it), or, with
    ``count``, how many."""
    import orjson

    from tallydb.engine.api._kinesis import OUTBOX
    from tallydb.engine.api._stream_records import STREAM_SOURCE

    with engine.store.transaction() as txn:
        record = txn.table("videos")
        rows = txn.appended_rows(record, STREAM_SOURCE, OUTBOX.encode())
        if not count:
            return int(next(iter(rows), None) is not None)
        return sum(len(orjson.loads(blob)) for _, blob in rows)


def _engine(mode: str, data: str) -> tuple[Any, bool]:
    """An engine on ``data`` with the videos table as ``mode`` has it, and
    whether it has a Kinesis destination."""
    from tallydb.engine import Engine, Store

    options: dict[str, Any] = {}
    if mode == "kinesis":
        # by its module's name (run as __main__, the worker process would not find it)
        from bench.integrations_cost import _TakesAll as takes_all

        options["kinesis"] = takes_all()
    elif mode == "kinesis-http":
        from tallydb.server.connectors import KinesisStreams

        options["kinesis"] = KinesisStreams(os.environ["BENCH_KINESIS_SINK"])
    engine = Engine(Store(Path(data)), **options)
    engine.call("CreateTable", _table("videos"))
    if "kinesis" in options:
        engine.call("EnableKinesisStreamingDestination", {
            "TableName": "videos",
            "StreamArn": "arn:aws:kinesis:us-east-1:000000000000:stream/bench"})
        while engine.call("DescribeKinesisStreamingDestination", {"TableName": "videos"})[
                "KinesisDataStreamDestinations"][0]["DestinationStatus"] != "ACTIVE":
            time.sleep(0.01)
    return engine, "kinesis" in options


def changes(mode: str, batches: int, size: int) -> None:
    """The callgrind run: ``batches`` batches of ``size`` hot-key ADDs, then
    wait until the forwarder sent every record; instrumented from the first
    batch (the warm-up's records sent) until the last record was sent. The
    ``deliver`` mode: the worker's ``answer`` to such outbox rows alone."""
    if mode == "deliver":
        _deliver_counted(batches, size)
        return
    marks = ctypes.CDLL(os.environ["BENCH_CALLGRIND_MARKS"])
    with tempfile.TemporaryDirectory() as data:
        engine, sending = _engine(mode, data)
        for _ in range(20):  # warm up: every path taken, its records sent
            with engine.batch() as call:
                for _ in range(size):
                    call("UpdateItem", REQUEST)
        while sending and _waiting(engine):
            time.sleep(0.01)
        marks.start()
        for _ in range(batches):
            with engine.batch() as call:
                for _ in range(size):
                    call("UpdateItem", REQUEST)
        while sending:
            # the look at the outbox is the bench's, not the destination's:
            # uncounted (it goes over every row waiting, and callgrind's
            # slowed forwarder leaves many waiting between looks)
            marks.stop()
            waiting = _waiting(engine)
            marks.start()
            if not waiting:
                break
            time.sleep(0.01)
        marks.stop()
        engine.close()


#: Callgrind's client requests, for a bench's process to count only what it measures.
_MARKS = """#include <valgrind/callgrind.h>
void start(void) { CALLGRIND_START_INSTRUMENTATION; }
void stop(void) { CALLGRIND_STOP_INSTRUMENTATION; }
"""


def workload(mode: str, seconds: float) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as data:
        engine, sending = _engine(mode if mode != "export" else "unused", data)
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
        every = procstat.cpu_seconds(os.getpid())
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
        if sending:
            # how far the destination kept up: the share of the run's changes
            # sent by its end, and how long the rest took once writes stopped
            result["sent"] = 1 - _waiting(engine, count=True) / (200 + requests)
            while _waiting(engine):
                time.sleep(0.01)
            result["drain_s"] = time.perf_counter() - start - elapsed
            # the process's CPU and its worker's, until every record was sent
            result["all_cpu_us"] = (procstat.cpu_seconds(os.getpid()) - every) / requests * 1e6
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


def _run(tree: Path, mode: str, seconds: float, sink: str) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-m", "bench.integrations_cost", "--child", mode,
         "--seconds", str(seconds)],
        cwd=Path(__file__).resolve().parents[1], capture_output=True, text=True, check=True,
        env={"PYTHONPATH": f"{tree / 'src'}", "PATH": "/usr/bin:/bin",
             "BENCH_KINESIS_SINK": sink})
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


#: The process of each running sink, by its URL (its CPU is Kinesis's side).
_SINK_PIDS: dict[str, int] = {}


@contextlib.contextmanager
def _sink(cpus: str | None = None) -> Any:
    """``bench.kinesis_sink`` on a free loopback port: its URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [sys.executable, "-m", "bench.kinesis_sink", "--port", str(port)]
    if cpus is not None:
        command = ["taskset", "-c", cpus, *command]
    process = subprocess.Popen(command, cwd=Path(__file__).resolve().parents[1],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    _SINK_PIDS[url] = process.pid
    try:
        assert process.stdout is not None
        process.stdout.readline()  # listening
        yield url
    finally:
        _SINK_PIDS.pop(url, None)
        process.terminate()
        process.wait(10)


def _instructions(mode: str, batches: int, size: int, sink: str, src: Path,
                  marks: Path) -> int:
    """What a process executes making ``batches`` batches and sending their
    records, under callgrind (instrumented only then)."""
    here = Path(__file__).resolve().parents[1]
    return collected(
        [sys.executable, "-m", "bench.integrations_cost", "--count", mode,
         "--changes", str(batches * size), "--batch", str(size)],
        {"PYTHONPATH": f"{src}{os.pathsep}{here}", "PATH": "/usr/bin:/bin",
         "PYTHONHASHSEED": "0", "BENCH_KINESIS_SINK": sink,
         "BENCH_CALLGRIND_MARKS": str(marks)},
        label=mode, options=("--instr-atstart=no",), cwd=here)


def _sunk(sink: str) -> int:
    """The records the sink took."""
    with urllib.request.urlopen(f"{sink}/count", timeout=10) as answer:
        return int(answer.read())


def _callgrind(changes: int, size: int, src: Path, modes: list[str]) -> None:
    batches = max(1, changes // size)
    rows = []
    with tempfile.TemporaryDirectory() as tmp, _sink() as sink:
        marks = Path(tmp) / "marks.so"
        (Path(tmp) / "marks.c").write_text(_MARKS)
        subprocess.run(["gcc", "-shared", "-fPIC", "-O1", "-o", str(marks),
                        str(Path(tmp) / "marks.c")], check=True)
        for mode in modes:
            rows.append((mode, _instructions(mode, batches, size, sink, src, marks)
                         / (batches * size)))
    base = rows[0][1]
    print(f"hot-key ADD, {batches} batches of {size} in one process, every record sent "
          "(callgrind, instructions per change; deliver: the worker's alone)\n")
    print("| condition | instructions/change | ratio to unused | extra |")
    print("|---|---:|---:|---:|")
    for mode, per in rows:
        print(f"| {mode} | {per:,.0f} | {per / base:.3f} | {per - base:+,.0f} |")


def _server(reps: int, duration: int, conns: int, src: Path, worker_cpus: str | None) -> None:
    """Scenario A through real servers: without a destination and with one;
    ``worker_cpus``: where the destination's worker process runs (None: on
    the server's CPU, whose affinity it inherits)."""
    from bench.ab import _spec
    from bench.dynamo import COUNTERS, RawClient, read_number, setup_tables
    from bench.loadgen import run_wrk
    from bench.measure import Plan, _one_rep
    from bench.run import pin_cpus
    from bench.scenarios import build
    from bench.servers import RunningServer

    server_cpus, load_cpus, wrk_threads = pin_cpus()
    scenario = build(1000)["A"]
    plan = Plan.one(scenario, argparse.Namespace(conns=conns, warmup=2, duration=duration,
                                                 reps=reps, keys=1000),
                    load_cpus, wrk_threads)
    names = ("unused", "kinesis")
    results: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    with tempfile.TemporaryDirectory(prefix="tallydb-kcost-") as tmp, \
            _sink(load_cpus) as sink, contextlib.ExitStack() as stack:
        servers = []
        for name in names:
            spec = _spec(name, name, src, Path(tmp) / name)
            if name == "kinesis":
                spec = dataclasses.replace(spec, argv=lambda port, workdir, argv=spec.argv: [
                    *argv(port, workdir), "--kinesis-endpoint", sink])
            server = stack.enter_context(RunningServer(spec, server_cpus))
            setup_tables(server.url, 1000)
            if name == "kinesis":
                client = RawClient(server.url, timeout=60)
                client.call("EnableKinesisStreamingDestination", {
                    "TableName": COUNTERS,
                    "StreamArn": "arn:aws:kinesis:us-east-1:000000000000:stream/bench"})
                while client.call("DescribeKinesisStreamingDestination", {
                        "TableName": COUNTERS})["KinesisDataStreamDestinations"][0][
                            "DestinationStatus"] != "ACTIVE":
                    time.sleep(0.05)
            run_wrk(server.url, scenario.env, conns, 2, threads=wrk_threads, cpus=load_cpus)
            servers.append(server)
        hot = {"pk": {"S": "hot"}}
        # the warm-up's records all sent: the sink's count and the counter, from then on
        while _sunk(sink) < (read_number(servers[1].url, COUNTERS, hot, "play_count") or 0):
            time.sleep(0.05)
        enabled = read_number(servers[1].url, COUNTERS, hot, "play_count") or 0
        sunk = _sunk(sink)
        workers = procstat.descendants(servers[1].pid)[1:]
        if worker_cpus is not None:
            for pid in workers:
                os.sched_setaffinity(pid, {int(c) for c in worker_cpus.split(",")})
        print(f"  the destination's worker processes: {workers}, on CPUs "
              f"{[sorted(os.sched_getaffinity(pid)) for pid in workers]} (the server on "
              f"{server_cpus}, wrk and the sink on {load_cpus})", flush=True)
        for r in range(reps):
            for name, server in zip(names, servers, strict=True):
                cpu = procstat.cpu_seconds(server.pid)
                own = procstat.own_cpu_seconds(server.pid)
                threads = procstat.thread_cpu_seconds(server.pid)
                sink_cpu = procstat.own_cpu_seconds(_SINK_PIDS[sink])
                rep = _one_rep(server, scenario, conns, plan, False)
                drained = time.perf_counter()
                if name == "kinesis":  # until every change made since enabling was sent
                    made = (read_number(server.url, COUNTERS, hot, "play_count") or 0) - enabled
                    while _sunk(sink) - sunk < made:
                        time.sleep(0.02)
                rep["drain_s"] = time.perf_counter() - drained
                rep["cpu_sent_us"] = ((procstat.cpu_seconds(server.pid) - cpu)
                                      / rep["requests"] * 1e6)
                rep["own_sent_us"] = ((procstat.own_cpu_seconds(server.pid) - own)
                                      / rep["requests"] * 1e6)
                after = procstat.thread_cpu_seconds(server.pid)
                request_thread = after.get(server.pid, 0.0) - threads.get(server.pid, 0.0)
                rep["request_thread_us"] = request_thread / rep["requests"] * 1e6
                rep["other_threads_us"] = rep["own_sent_us"] - rep["request_thread_us"]
                rep["sink_us"] = ((procstat.own_cpu_seconds(_SINK_PIDS[sink]) - sink_cpu)
                                  / rep["requests"] * 1e6)
                results[name].append(rep)
                print(f"  rep {r + 1}/{reps} {name}: {rep['rps']:,.0f} req/s, "
                      f"{rep['cpu_us_per_request']} µs CPU/req, with every record sent "
                      f"({rep['drain_s']:.1f} s after) {rep['own_sent_us']:.1f} serving, "
                      f"{rep['cpu_sent_us']:.1f} with its children; the request thread "
                      f"{rep['request_thread_us']:.1f}, the server's other threads "
                      f"{rep['other_threads_us']:.1f}, the sink {rep['sink_us']:.1f} "
                      f"(other CPU {rep['other_cpu_percent']:.0f}%)", flush=True)
    first = statistics.median(rep["rps"] for rep in results["unused"])
    first_own = statistics.median(rep["own_sent_us"] for rep in results["unused"])
    first_cpu = statistics.median(rep["cpu_sent_us"] for rep in results["unused"])
    print(f"\nScenario A (hot-key ADD) through tallydb serve, {conns} connections, "
          f"{reps} x {duration} s in turn, medians; ratios to unused. CPU a request, "
          "counted until every record was sent: the serving process's own (every "
          "thread), and the total with every process it started (the destination's "
          "worker; bench.procstat.cpu_seconds), never the sink's.\n")
    print("| condition | req/s | req/s ratio | per-rep ratios | serving CPU µs/req | "
          "its ratio | total CPU µs/req | its ratio | request thread | other threads "
          "| sink |")
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in names:
        runs = results[name]
        rps = statistics.median(rep["rps"] for rep in runs)
        own = statistics.median(rep["own_sent_us"] for rep in runs)
        cpu = statistics.median(rep["cpu_sent_us"] for rep in runs)
        per_rep = ", ".join(f"{a['rps'] / b['rps']:.2f}"
                            for a, b in zip(runs, results["unused"], strict=True))
        split = " | ".join(f"{statistics.median(rep[key] for rep in runs):.1f}"
                           for key in ("request_thread_us", "other_threads_us", "sink_us"))
        print(f"| {name} | {rps:,.0f} | {rps / first:.2f} | {per_rep} | {own:.1f} "
              f"| {first_own / own:.2f} | {cpu:.1f} | {first_cpu / cpu:.2f} | {split} |")


def _outbox_rows(rows: int, size: int) -> list[tuple[bytes, frozenset[int]]]:
    """A counter's ``rows`` outbox rows of ``size`` changes each, as stored
    (a destination enabled with no endpoint: the rows wait), as a job has them."""
    from tallydb.engine.api._kinesis import OUTBOX
    from tallydb.engine.api._stream_records import STREAM_SOURCE

    with tempfile.TemporaryDirectory() as data:
        engine, _ = _engine("unused", data)
        engine.call("EnableKinesisStreamingDestination", {
            "TableName": "videos", "StreamArn": ARN})
        for _ in range(rows):
            with engine.batch() as call:
                for _ in range(size):
                    call("UpdateItem", REQUEST)
        with engine.store.transaction() as txn:
            record = txn.table("videos")
            stored = [(blob, frozenset[int]()) for _, blob in txn.appended_rows(
                record, STREAM_SOURCE, OUTBOX.encode())]
        engine.close()
    return stored


def _answer() -> Any:
    """What the worker does with a job: ``answer`` (``deliver`` in a tree
    from before it, given with ``--src``)."""
    from tallydb.engine.api import _kinesis_worker as worker

    return getattr(worker, "answer", worker.deliver)


def _deliver(rows: int, size: int, repeats: int) -> None:
    """The worker process's cost a record: ``answer`` (parse the rows, make
    the records, sign and send them) of a counter's ``rows`` outbox rows of
    ``size`` changes each, to ``bench.kinesis_sink``, in this process (the
    least process time of ``repeats``)."""
    import orjson

    from tallydb.server.connectors import KinesisStreams

    answer = _answer()
    stored = _outbox_rows(rows, size)
    records = sum(len(orjson.loads(blob)) for blob, _ in stored)
    with _sink() as sink:
        sender = KinesisStreams(sink)
        job = (ARN, "videos", ("PK",), "us-east-1", "MILLISECOND", stored)
        best = float("inf")
        for _ in range(repeats + 1):  # the first: a connection opened, caches filled
            began = time.process_time()
            report = answer(sender, job)
            best = min(best, time.process_time() - began)
        assert report[1] is None and all(row is None for row in report[0]), report
    print(f"the worker's deliver: {records:,} records in {len(stored)} rows, "
          f"{best / records * 1e6:.2f} µs a record (least of {repeats})")


def _deliver_counted(rows: int, size: int) -> None:
    """The callgrind run of the ``deliver`` mode: the worker's ``answer`` of
    ``rows`` outbox rows of ``size`` changes to the sink, counted once
    (after one uncounted: a connection opened, caches filled)."""
    from tallydb.server.connectors import KinesisStreams

    answer = _answer()
    marks = ctypes.CDLL(os.environ["BENCH_CALLGRIND_MARKS"])
    stored = _outbox_rows(rows, size)
    sender = KinesisStreams(os.environ["BENCH_KINESIS_SINK"])
    job = (ARN, "videos", ("PK",), "us-east-1", "MILLISECOND", stored)
    answer(sender, job)
    marks.start()
    report = answer(sender, job)
    marks.stop()
    assert report[1] is None and all(row is None for row in report[0]), report


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
    parser.add_argument("--conditions", default="base,unused,kinesis,kinesis-http,export",
                        help="which conditions to run (unused is always run: the ratios' base)")
    parser.add_argument("--child")
    parser.add_argument("--only-export", action="store_true",
                        help="only time the export of --export-items items")
    parser.add_argument("--callgrind", action="store_true",
                        help="instructions per change, unused and kinesis (callgrind)")
    parser.add_argument("--changes", type=int, default=6400,
                        help="changes of a --callgrind run (6,400)")
    parser.add_argument("--count", help=argparse.SUPPRESS)
    parser.add_argument("--batch", type=int, default=BATCH,
                        help="--callgrind: requests a transaction (64; a server's group "
                             "commits at a few thousand req/s hold a few)")
    parser.add_argument("--modes", default="unused,kinesis,kinesis-http",
                        help="--callgrind: the conditions measured")
    parser.add_argument("--src", type=Path, default=Path(__file__).resolve().parents[1] / "src",
                        help="--callgrind and --server: the src/ directory run (this tree's)")
    parser.add_argument("--server", action="store_true",
                        help="scenario A through tallydb serve, without and with a destination")
    parser.add_argument("--duration", type=int, default=5, help="--server: seconds per run")
    parser.add_argument("--conns", type=int, default=64, help="--server: wrk connections")
    parser.add_argument("--deliver", action="store_true",
                        help="the worker process's cost a record (in this process, "
                             "--changes changes in rows of --batch)")
    parser.add_argument("--worker-cpus",
                        help="--server: CPUs for the destination's worker process (default: "
                             "the server's, which it inherits; e.g. the load side's, as an "
                             "unpinned server's worker takes another core)")
    args = parser.parse_args()
    if args.count:
        changes(args.count, args.changes // args.batch, args.batch)
        return
    if args.callgrind:
        _callgrind(args.changes, args.batch, args.src, args.modes.split(","))
        return
    if args.deliver:
        _deliver(max(1, args.changes // args.batch), args.batch, args.reps * 5)
        return
    if args.server:
        _server(args.reps, args.duration, args.conns, args.src, args.worker_cpus)
        return
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
            m: [] for m in ("base", "unused", "kinesis", "kinesis-http", "export")
            if m in wanted}
        with _sink() as sink:
            for _ in range(args.reps):
                for mode in runs:
                    tree = base if mode == "base" else here
                    runs[mode].append(_run(tree, "unused" if mode == "base" else mode,
                                           args.seconds, sink))
    unused = statistics.median(r["rps"] for r in runs["unused"])
    print(f"hot-key ADD, batches of {BATCH}, {args.reps} x {args.seconds:g} s each, "
          f"median (base {args.base}):")
    for mode, results in runs.items():
        rps = statistics.median(r["rps"] for r in results)
        cpu = statistics.median(r["cpu_us"] for r in results)
        print(f"  {mode:12s} {rps:10,.0f} req/s  {cpu:6.1f} µs CPU/req  "
              f"{rps / unused:5.2f}x unused's req/s")
        if mode.startswith("kinesis"):
            sent = statistics.median(r["sent"] for r in results)
            drain = statistics.median(r["drain_s"] for r in results)
            every = statistics.median(r["all_cpu_us"] for r in results)
            print(f"           {sent:.0%} of the changes sent by the end of the run, "
                  f"the rest {drain:.2f} s later; {every:.1f} µs CPU/req with the "
                  "worker's, until every record was sent")
    if args.export_items:
        _export_only(args.export_items)


if __name__ == "__main__":
    main()
