"""Slow and stuck clients against everyone else: other clients' latency and
the server's memory with 1,000 bad connections open, against the same
server without them, in turn.

    .venv/bin/python -m bench.slow_clients                  # 3 rounds of 4 s each way
    .venv/bin/python -m bench.slow_clients --rounds 5 --bad 1000

The bad connections: idle ones, heads that stop halfway, bodies one byte
short of 100 KB, and clients that pipeline GetItems of a 20 KB item and never
read. Each round measures a well-behaved client (sequential GetItem over
keep-alive) for --seconds without them, then opens them, waits until the
server has done what they asked (answers into the kernel's socket buffers,
until it stops reading them: "settled", its CPU idle), and measures again;
the table gives each round's p50/p99 and the server's RSS, and the p99 ratio
(with / without) per round and overall (median).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import socket
import statistics
import sys
import time
from typing import Any

from bench.harness import Client, Server

ITEM_BYTES = 2_000
SETTLE_MAX = 30.0  # seconds to wait for the bad connections to stop costing CPU


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def settle(pid: int) -> float:
    """Wait until the server is idle again (it has read, and answered into
    the kernel's buffers, all the bad connections will take); the seconds."""
    started = time.monotonic()
    before = cpu_seconds(pid)
    while time.monotonic() - started < SETTLE_MAX:
        time.sleep(0.5)
        now = cpu_seconds(pid)
        if now - before < 0.02:
            break
        before = now
    return time.monotonic() - started


def latencies(port: int, seconds: float) -> list[float]:
    client = Client(port)
    request = {"TableName": "slow", "Key": {"id": {"S": "small"}}}
    took: list[float] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        started = time.perf_counter()
        status, _ = client.call("GetItem", request)
        took.append(time.perf_counter() - started)
        assert status == 200
    client.close()
    return took


def head(length: int, target: str = "GetItem") -> bytes:
    return (b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-amz-json-1.0\r\n"
            b"X-Amz-Target: DynamoDB_20120810." + target.encode() +
            b"\r\nContent-Length: %d\r\n\r\n" % length)


def open_bad(port: int, count: int) -> list[socket.socket]:
    """``count`` bad connections, in four kinds, round robin."""
    big_get = b'{"TableName": "slow", "Key": {"id": {"S": "big"}}}'
    pipelined = (head(len(big_get)) + big_get) * 500
    body = b'{"TableName": "slow", "Item": {"id": {"S": "x"}, "p": {"S": "' + b"p" * 100_000
    socks = []
    for n in range(count):
        sock = socket.create_connection(("127.0.0.1", port))
        sock.setblocking(False)
        kind = n % 4
        with contextlib.suppress(BlockingIOError):
            if kind == 1:
                sock.send(head(50)[:60])  # a head that stops halfway
            elif kind == 2:
                sock.send(head(len(body) + 4, "PutItem") + body)  # a body never finished
            elif kind == 3:
                sock.send(pipelined)  # never reads a response
        socks.append(sock)
    return socks


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.slow_clients",
                                description=__doc__.split("\n")[0])
    p.add_argument("--bad", type=int, default=1000, help="bad connections (1,000)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seconds", type=float, default=4.0, help="per measurement (4)")
    args = p.parse_args(argv)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, args.bad + 256)), hard))
    server = Server("--in-memory")
    server.start()
    assert server.proc is not None
    client = Client(server.port)
    client.call("CreateTable", {
        "TableName": "slow", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]})
    client.call("PutItem", {"TableName": "slow", "Item": {"id": {"S": "small"}}})
    client.call("PutItem", {"TableName": "slow", "Item": {
        "id": {"S": "big"}, "p": {"S": "x" * ITEM_BYTES}}})
    client.close()
    rows: list[dict[str, Any]] = []
    try:
        for round_ in range(args.rounds):
            quiet = latencies(server.port, args.seconds)
            quiet_rss = rss_mb(server.proc.pid)
            bad = open_bad(server.port, args.bad)
            settled = settle(server.proc.pid)
            loaded = latencies(server.port, args.seconds)
            loaded_rss = rss_mb(server.proc.pid)
            for sock in bad:
                sock.close()
            rows.append({
                "round": round_ + 1,
                "p50_ms": (percentile(quiet, 0.5) * 1e3, percentile(loaded, 0.5) * 1e3),
                "p99_ms": (percentile(quiet, 0.99) * 1e3, percentile(loaded, 0.99) * 1e3),
                "rss_mb": (quiet_rss, loaded_rss),
                "requests": (len(quiet), len(loaded)),
                "settled_s": settled,
            })
            time.sleep(1.0)
    finally:
        server.stop()
    print(f"{args.bad} bad connections; a well-behaved client's GetItem, without | with them")
    print("round  p50 ms          p99 ms          p99 ratio  server RSS MB   requests"
          "      settled s")
    ratios = []
    for row in rows:
        ratio = row["p99_ms"][1] / row["p99_ms"][0]
        ratios.append(ratio)
        print(f"{row['round']:>5}  {row['p50_ms'][0]:6.2f} | {row['p50_ms'][1]:6.2f}  "
              f"{row['p99_ms'][0]:6.2f} | {row['p99_ms'][1]:6.2f}  {ratio:9.2f}  "
              f"{row['rss_mb'][0]:5.0f} | {row['rss_mb'][1]:5.0f}   "
              f"{row['requests'][0]} | {row['requests'][1]}   {row['settled_s']:.1f}")
    print(f"median p99 ratio (with / without): {statistics.median(ratios):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
