"""Interleaved A/B of GetRecords of 1,000 records: tallydb built from several commits.

    .venv/bin/python -m bench.get_records_ab HEAD~1 .         # . = the working tree
    .venv/bin/python -m bench.get_records_ab HEAD~1 . --reads 300 --fill 3

One ``tallydb serve`` per revision (its ``src/`` exported as ``bench.ab``
does), pinned like ``bench.run``. Each gets a table with a NEW_AND_OLD_IMAGES
stream, filled as ``bench.streams`` fills it: wrk's hot-key ``ADD`` at 64
connections for ``--fill`` seconds (group commits, many records to a stored
row). Then, ``--reads`` times, each server in turn answers GetShardIterator
(TRIM_HORIZON) and a timed GetRecords of 1,000 records (one keep-alive raw
HTTP request, the answer read and parsed). Reported per revision: the wall
time's median, p99 and max, and the server's CPU per call (over all calls,
GetShardIterator included: the figure that holds on a busy machine).
"""

from __future__ import annotations

import argparse
import http.client
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from urllib.parse import urlsplit

from bench import procstat
from bench.ab import _spec, export_src
from bench.dynamo import RawClient
from bench.loadgen import run_wrk
from bench.run import pin_cpus
from bench.servers import RunningServer
from bench.streams import STREAMED, _add, _setup, _static, _streams_call


def _reader(url: str, arn: str) -> tuple[http.client.HTTPConnection, str]:
    """A keep-alive connection to the server, and the stream's shard."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80)
    shard = _streams_call(conn, "DescribeStream", {"StreamArn": arn})[
        "StreamDescription"]["Shards"][0]["ShardId"]
    return conn, str(shard)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.get_records_ab",
                                description=__doc__.split("\n")[0])
    p.add_argument("revs", nargs="+", help="git revisions; '.' is the working tree")
    p.add_argument("--fill", type=int, default=3, help="seconds of hot-key ADD per server (3)")
    p.add_argument("--reads", type=int, default=200, help="GetRecords calls per server (200)")
    args = p.parse_args(argv)
    server_cpus, load_cpus, wrk_threads = pin_cpus()
    fill = _static("add+stream", "UpdateItem", _add(STREAMED))
    names = [f"{i}:{rev}" for i, rev in enumerate(args.revs)]
    times: dict[str, list[float]] = {name: [] for name in names}
    with tempfile.TemporaryDirectory(prefix="tallydb-records-ab-") as tmp, ExitStack() as stack:
        root = Path(tmp)
        readers = []
        for i, (name, rev) in enumerate(zip(names, args.revs, strict=True)):
            src = export_src(rev, root / f"rev{i}")
            server = stack.enter_context(
                RunningServer(_spec(f"rev{i}", name, src, root / f"data{i}"), server_cpus))
            client = RawClient(server.url)
            arn = _setup(client)
            client.close()
            run_wrk(server.url, fill.env, 64, args.fill, threads=wrk_threads, cpus=load_cpus)
            conn, shard = _reader(server.url, arn)
            stack.callback(conn.close)
            readers.append((name, server.pid, conn, arn, shard))
        spent = {name: 0.0 for name in names}
        for _ in range(args.reads):
            for name, pid, conn, arn, shard in readers:
                cpu0 = procstat.cpu_seconds(pid)
                iterator = _streams_call(conn, "GetShardIterator", {
                    "StreamArn": arn, "ShardId": shard, "ShardIteratorType": "TRIM_HORIZON"})
                start = time.perf_counter()
                page = _streams_call(conn, "GetRecords", {
                    "ShardIterator": iterator["ShardIterator"], "Limit": 1000})
                times[name].append((time.perf_counter() - start) * 1000)
                spent[name] += procstat.cpu_seconds(pid) - cpu0
                assert len(page["Records"]) == 1000, len(page["Records"])
        cpu = {name: spent[name] * 1000 / args.reads for name in names}
    print(f"\nGetRecords of 1,000 records (NEW_AND_OLD_IMAGES), {args.reads} calls per server "
          "in turn; ratios to the first.\n")
    print("| revision | median ms | p99 ms | max ms | server CPU ms/call | CPU ratio |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in names:
        walls = sorted(times[name])
        print(f"| {name} | {statistics.median(walls):.2f} "
              f"| {walls[max(0, int(len(walls) * 0.99) - 1)]:.2f} | {walls[-1]:.2f} "
              f"| {cpu[name]:.2f} | {cpu[name] / cpu[names[0]]:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
