"""What Streams and PartiQL cost, against baselines measured in the same run.

    .venv/bin/python -m bench.streams                    # 5 x 5 s in turn, 64 connections
    .venv/bin/python -m bench.streams --reps 3 --duration 3

One ``tallydb serve`` (the working tree), pinned like ``bench.run``; wrk sends,
in turn on each repetition:

* ``add``: UpdateItem ``ADD play_count :one`` on one item of a table without
  a stream (scenario A);
* ``add+stream``: the same on a table with a NEW_AND_OLD_IMAGES stream;
* ``partiql``: ExecuteStatement ``UPDATE ... SET play_count = play_count + 1``
  on the first table's item.

Ratios are per repetition, to ``add``; the targets (``TARGETS``) are taken
on the server's CPU per request, the figure that holds on a busy machine.
Then GetRecords of 1,000 records (one raw keep-alive HTTP request, the
response read and parsed as JSON), its
median and p99 over ``--reads`` calls, and the server's CPU per call (the
figure that holds on a busy machine).
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import sys
import time
from typing import Any
from urllib.parse import urlsplit

from bench import procstat
from bench.dynamo import RawClient
from bench.loadgen import run_wrk
from bench.measure import Plan, _one_rep
from bench.run import pin_cpus
from bench.scenarios import Scenario
from bench.servers import SPECS, RunningServer

PLAIN, STREAMED = "bench_plain", "bench_streamed"
#: The targets: each run's server CPU per request over ``add``'s at most
#: 1 / this (a stream on, and PartiQL's increment, at least 0.9 of ``add``).
TARGETS = {"add+stream": 0.9, "partiql": 0.9}
KEY = {"pk": {"S": "hot"}}


def _j(body: dict[str, Any]) -> str:
    return json.dumps(body, separators=(",", ":"))


def _static(name: str, target: str, body: dict[str, Any]) -> Scenario:
    return Scenario(name, name, name, {"BENCH_MODE": "static", "BENCH_TARGET": target,
                                       "BENCH_BODY": _j(body)})


def _add(table: str) -> dict[str, Any]:
    return {"TableName": table, "Key": KEY, "UpdateExpression": "ADD play_count :one",
            "ExpressionAttributeValues": {":one": {"N": "1"}}}


def _setup(client: RawClient) -> str:
    for table, stream in ((PLAIN, None), (STREAMED, "NEW_AND_OLD_IMAGES")):
        body: dict[str, Any] = {
            "TableName": table, "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}
        if stream:
            body["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": stream}
        answer = client.call("CreateTable", body)
        client.call("PutItem", {"TableName": table, "Item": {**KEY, "play_count": {"N": "0"}}})
    return str(answer["TableDescription"]["LatestStreamArn"])


def _streams_call(conn: http.client.HTTPConnection, operation: str, body: dict[str, Any]
                  ) -> dict[str, Any]:
    conn.request("POST", "/", body=_j(body).encode(), headers={
        "Content-Type": "application/x-amz-json-1.0",
        "X-Amz-Target": "DynamoDBStreams_20120810." + operation})
    response = conn.getresponse()
    data = response.read()
    if response.status != 200:
        raise RuntimeError(f"{operation}: {response.status} {data[:200]!r}")
    result: dict[str, Any] = json.loads(data)
    return result


def _get_records_ms(url: str, pid: int, arn: str, reads: int) -> tuple[list[float], float]:
    """Wall ms of each GetRecords call, and the server's CPU ms per call
    (with its GetShardIterator: CPU is counted in 10 ms ticks, so over all)."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80)
    shard = _streams_call(conn, "DescribeStream", {"StreamArn": arn})[
        "StreamDescription"]["Shards"][0]["ShardId"]
    times = []
    cpu0 = procstat.cpu_seconds(pid)
    for _ in range(reads):
        iterator = _streams_call(conn, "GetShardIterator", {
            "StreamArn": arn, "ShardId": shard, "ShardIteratorType": "TRIM_HORIZON"})
        start = time.perf_counter()
        page = _streams_call(conn, "GetRecords", {"ShardIterator": iterator["ShardIterator"],
                                                  "Limit": 1000})
        times.append((time.perf_counter() - start) * 1000)
        assert len(page["Records"]) == 1000, len(page["Records"])
    cpu_ms = (procstat.cpu_seconds(pid) - cpu0) * 1000 / reads
    conn.close()
    return times, cpu_ms


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.streams", description=__doc__.split("\n")[0])
    p.add_argument("--conns", type=int, default=64)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--duration", type=int, default=5)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--reads", type=int, default=50, help="GetRecords calls timed")
    args = p.parse_args(argv)
    server_cpus, load_cpus, wrk_threads = pin_cpus()
    scenarios = [
        _static("add", "UpdateItem", _add(PLAIN)),
        _static("add+stream", "UpdateItem", _add(STREAMED)),
        _static("partiql", "ExecuteStatement", {"Statement": (
            f'UPDATE "{PLAIN}" SET play_count = play_count + 1 WHERE pk = \'hot\'')}),
    ]
    reps: dict[str, list[dict[str, Any]]] = {s.id: [] for s in scenarios}
    with RunningServer(SPECS["tallydb"], server_cpus) as server:
        client = RawClient(server.url)
        arn = _setup(client)
        for scenario in scenarios:
            plan = Plan(scenarios=[scenario], connections=[args.conns], warmup=args.warmup,
                        duration=args.duration, repetitions=args.reps, keys=0,
                        exact_threads=0, exact_per_thread=0, load_cpus=load_cpus,
                        wrk_threads=wrk_threads)
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
        times, cpu_ms = _get_records_ms(server.url, server.pid, arn, args.reads)
        client.close()
    print(f"\n{args.conns} connections, {args.reps} x {args.duration} s in turn, medians; "
          "ratios to add.\n")
    print("| run | req/s | ratio | per-rep ratios | CPU µs/req | p99 ms |")
    print("|---|---:|---:|---|---:|---:|")
    first = reps["add"]
    first_rps = statistics.median(rep["rps"] for rep in first)
    for name, runs in reps.items():
        rps = statistics.median(rep["rps"] for rep in runs)
        per_rep = ", ".join(f"{a['rps'] / b['rps']:.2f}" for a, b in zip(runs, first, strict=True))
        print(f"| {name} | {rps:,.0f} | {rps / first_rps:.2f} | {per_rep} "
              f"| {statistics.median(rep['cpu_us_per_request'] for rep in runs):.1f} "
              f"| {statistics.median(rep['p99_ms'] for rep in runs):.2f} |")
    add_cpu = statistics.median(rep["cpu_us_per_request"] for rep in first)
    for name, target in TARGETS.items():
        ratio = add_cpu / statistics.median(rep["cpu_us_per_request"] for rep in reps[name])
        verdict = "met" if ratio >= target else "NOT met"
        print(f"target: {name} at least {target} of add by CPU per request: {verdict} "
              f"({ratio:.2f})")
    times.sort()
    print(f"\nGetRecords of 1,000 records (NEW_AND_OLD_IMAGES), {len(times)} calls: median "
          f"{statistics.median(times):.2f} ms, p99 {times[int(len(times) * 0.99) - 1]:.2f} ms, "
          f"max {times[-1]:.2f} ms; server CPU {cpu_ms:.2f} ms a call")
    return 0


if __name__ == "__main__":
    sys.exit(main())
