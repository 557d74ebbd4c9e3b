"""What an open console page costs the writers: scenario A (hot-key ADD)
with and without a page reading the live feed, in turn, on one server.

    .venv/bin/python -m bench.live_feed                      # A, 64 connections, 5 x 5 s
    .venv/bin/python -m bench.live_feed --reps 3 --duration 3 --keys 1000

One ``tallydb serve`` (the working tree's, on disk, default flags) is
seeded with ``bench.run``'s items, warmed up, then measured repetition by
repetition in two conditions, alternating so that the machine's drift hits
both alike:

* ``no page``: nobody listens to the change feed (the write path records
  nothing);
* ``page open``: a client holds ``GET /console/events`` open for all tables
  and reads every event as a browser would (the live changes, coalesced
  every 100 ms, and each second the hot-keys panel, the counters view and
  the operational view's metrics), as a raw socket reader in this process,
  so the browser's own work is not counted. While it is open the server
  does all a page on the counter chart and the Monitor tab asks of it: it
  records every answered request (ConsumedCapacity asked for, latency
  timed) and sums the counters' changes.

The page is closed after each ``page open`` run and the feed's listener
lingers (``tallydb.console.live.LINGER``) so the next ``no page`` run is
measured with the listener gone: the server is restarted between
conditions to be sure of that. The table gives medians and the ratio of
``page open`` to ``no page`` (the target: at least 0.9).
"""

from __future__ import annotations

import argparse
import socket
import statistics
import sys
import tempfile
import threading
from contextlib import ExitStack
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bench.dynamo import setup_tables
from bench.loadgen import run_wrk
from bench.measure import Plan, _one_rep
from bench.run import pin_cpus
from bench.scenarios import build as build_scenarios
from bench.servers import PYTHON, REPO, SPECS, RunningServer, ServerSpec


class PageReader:
    """A page holding the live feed open and reading all of it."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=10)
        self.sock.sendall(f"GET /console/events HTTP/1.1\r\nHost: {parts.netloc}\r\n\r\n"
                          .encode())
        self.events = 0
        self.bytes = 0
        self._stop = False
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while not self._stop:
            try:
                chunk = self.sock.recv(65536)
            except OSError:
                return
            if not chunk:
                return
            self.bytes += len(chunk)
            self.events += chunk.count(b"\n\n")

    def close(self) -> None:
        self._stop = True
        self.sock.close()
        self._thread.join(2)


def _spec(data: Path) -> ServerSpec:
    base = SPECS["tallydb"]

    def argv(port: int, workdir: Path) -> list[str]:
        return [PYTHON, "-m", "tallydb", "serve", "--host", "127.0.0.1", "--port", str(port),
                "--data", str(data)]

    return ServerSpec("tallydb", "tallydb", argv, base.check, base.version, cwd=REPO,
                      tallydb=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", default="A")
    parser.add_argument("--conns", type=int, default=64)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--duration", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--keys", type=int, default=10_000)
    args = parser.parse_args(argv)
    server_cpus, load_cpus, wrk_threads = pin_cpus()
    scenario = build_scenarios(args.keys)[args.scenario]
    plan = Plan.one(scenario, args, load_cpus, wrk_threads)
    conditions = ("no page", "page open")
    reps: dict[str, list[dict[str, Any]]] = {name: [] for name in conditions}
    events: list[int] = []
    with tempfile.TemporaryDirectory(prefix="tallydb-live-") as tmp:
        data = Path(tmp) / "data"
        with RunningServer(_spec(data), server_cpus) as server:
            setup_tables(server.url, args.keys)
        for r in range(args.reps):
            for condition in conditions:
                with ExitStack() as stack:
                    server = stack.enter_context(RunningServer(_spec(data), server_cpus))
                    if args.warmup > 0:
                        run_wrk(server.url, scenario.env, args.conns, args.warmup,
                                threads=wrk_threads, cpus=load_cpus)
                    page = None
                    if condition == "page open":
                        page = PageReader(server.url)
                        stack.callback(page.close)
                    rep = _one_rep(server, scenario, args.conns, plan, False)
                    if page is not None:
                        events.append(page.events)
                if rep["errors"]:
                    print(f"{condition}: {rep['errors']} errors", file=sys.stderr)
                    return 1
                reps[condition].append(rep)
                print(f"  rep {r + 1}/{args.reps} {condition}: {rep['rps']:,.0f} req/s "
                      f"(other CPU {rep['other_cpu_percent']:.0f}%)", flush=True)
    base = reps["no page"]
    base_rps = statistics.median(rep["rps"] for rep in base)
    print(f"\nScenario {args.scenario} ({scenario.title}), {args.conns} connections, "
          f"{args.reps} x {args.duration} s in turn, medians; ratio to no page.\n")
    print("| condition | req/s | ratio | per-rep ratios | CPU µs/req | p99 ms |")
    print("|---|---:|---:|---|---:|---:|")
    for condition in conditions:
        runs = reps[condition]
        rps = statistics.median(rep["rps"] for rep in runs)
        per_rep = ", ".join(f"{a['rps'] / b['rps']:.2f}" for a, b in zip(runs, base, strict=True))
        print(f"| {condition} | {rps:,.0f} | {rps / base_rps:.2f} | {per_rep} "
              f"| {statistics.median(rep['cpu_us_per_request'] for rep in runs):.1f} "
              f"| {statistics.median(rep['p99_ms'] for rep in runs):.2f} |")
    print(f"\nthe page read a median of {statistics.median(events):,.0f} events per run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
