"""Growth: scenario B on a big table against the same on a small one (the growth target).

    .venv/bin/python -m bench.growth                      # 10,000 and 1,000,000 items
    .venv/bin/python -m bench.growth --sizes 200,2000 --duration 1 --reps 1 --warmup 0

The growth targets: with 1,000,000 items in the table, scenario B at least
0.9 of its 10,000-item figure by server CPU per request (the smallest
size's CPU per request over the largest's; req/s is printed too, but a
shared machine moves it far more); server RSS under 150 MB; start-up under
1 s (nothing loaded whole into memory). Start-up is that of an installed
server: tallydb's modules are compiled to bytecode first (``compileall``,
as pip does when it installs), so that a tree run with
PYTHONDONTWRITEBYTECODE does not count Python's compiler.

For each size N, in a temp folder deleted at the end:

1. build a data directory holding `bench_counters` (hash key `pk`, S) with
   the items `k0`..`k{N-1}`, `play_count` 0 (scenario B's table and items),
   in-process through the embedded engine: BatchWriteItem of 25 puts,
   20,000 items per transaction; then reopen the store alone (its open time);
2. start `tallydb serve --data DIR` (pinned to the first CPU, like
   `bench.run`) `--starts` times: start-up is the time from launch to the
   first answered request (median); RSS right after start; the time of one
   DescribeTable (it counts the items) and of one GetItem of the last key;
3. with every size's server running, scenario B: wrk (64 connections) sends
   `ADD play_count :one` to a key drawn at random over all N keys for each
   request (wrk.lua's `keys` mode: the request is built when sent, so that
   wrk holds no pool of a million prebuilt requests), a warm-up per size,
   then `--reps` measured runs taken in turn, size after size (a noisy
   neighbour hits every size alike), medians; server CPU µs per request from
   /proc; RSS at the end. Also each server's CPU from its first run until
   `--settle` s after the last, over its requests: a server's deferred work
   (a WAL checkpoint, at most every `checkpoint.INTERVAL` s) runs while the
   next size is measured, so the per-run figures leave it out of one size's
   and slow down the other's.

Prints a markdown table and the targets (largest size against the smallest),
writes bench/results/growth.json. Exits 1 if a run failed or had errors, 0
otherwise (a missed target is reported, not an error).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from bench import procstat
from bench.dynamo import COUNTERS, DynamoError, RawClient
from bench.loadgen import LoadGenError, run_wrk, wrk_version
from bench.measure import Plan, _aggregate, _one_rep
from bench.run import _commit, _install_signal_handlers, _machine, pin_cpus
from bench.scenarios import Scenario
from bench.scenarios import build as build_scenarios
from bench.servers import (
    BENCH_DIR,
    PYTHON,
    REPO,
    SPECS,
    RunningServer,
    ServerSpec,
    ServerUnavailable,
    stop_all,
)

DEFAULT_SIZES = [10_000, 1_000_000]
BATCH_ITEMS = 25
TXN_ITEMS = 20_000
#: the growth targets
MIN_RATIO = 0.9
MAX_RSS_MB = 150.0
MAX_STARTUP_S = 1.0


def _log(msg: str) -> None:
    print(msg, flush=True)


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m bench.growth",
        description="Scenario B on tables of growing size (the growth target).",
    )
    p.add_argument(
        "--sizes",
        default=",".join(map(str, DEFAULT_SIZES)),
        help="items per table, comma-separated; the targets compare the largest with the "
        "smallest (default: %(default)s)",
    )
    p.add_argument("--conns", type=int, default=64, help="wrk connections (default 64)")
    p.add_argument("--warmup", type=int, default=2, help="seconds of warm-up per size")
    p.add_argument("--duration", type=int, default=8, help="seconds per measured run (>= 1)")
    p.add_argument("--reps", type=int, default=3, help="measured runs per size (median)")
    p.add_argument("--starts", type=int, default=3, help="start-ups per size (median)")
    p.add_argument(
        "--settle",
        type=float,
        default=None,
        help="seconds to wait after the last run before reading each server's CPU "
        "again, so that what it deferred counts against it (default: the WAL "
        "checkpoint interval + 2 s)",
    )
    p.add_argument("--out", type=Path, default=BENCH_DIR / "results", help="results folder")
    p.add_argument("--tmp", type=Path, default=None, help="where to build the data (temp)")
    args = p.parse_args(argv)
    if args.settle is None:
        from tallydb.engine.storage.checkpoint import INTERVAL

        args.settle = INTERVAL + 2
    args.sizes = sorted({int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()})
    return args


# -- building the data -------------------------------------------------------


def build_data(directory: Path, items: int) -> dict[str, Any]:
    """Write `items` items k0..k{items-1} into a fresh tallydb data directory,
    in-process; the store is closed again (one process holds a data dir)."""
    from tallydb.engine.api import Engine
    from tallydb.engine.storage import Store

    t0 = time.monotonic()
    engine = Engine(Store(directory))
    try:
        engine.call(
            "CreateTable",
            {
                "TableName": COUNTERS,
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                "BillingMode": "PAY_PER_REQUEST",
            },
        )
        for start in range(0, items, TXN_ITEMS):
            end = min(items, start + TXN_ITEMS)
            with engine.batch() as call:
                for first in range(start, end, BATCH_ITEMS):
                    puts = [
                        {"PutRequest": {"Item": {"pk": {"S": f"k{i}"}, "play_count": {"N": "0"}}}}
                        for i in range(first, min(end, first + BATCH_ITEMS))
                    ]
                    out = call("BatchWriteItem", {"RequestItems": {COUNTERS: puts}})
                    if out.get("UnprocessedItems"):
                        raise RuntimeError(f"BatchWriteItem left items unprocessed: {out}")
        build_seconds = time.monotonic() - t0
        t1 = time.monotonic()
        count = engine.call("DescribeTable", {"TableName": COUNTERS})["Table"]["ItemCount"]
        describe_seconds = time.monotonic() - t1
    finally:
        engine.close()
    if count != items:
        raise RuntimeError(f"built {count} items, expected {items}")
    t2 = time.monotonic()
    Store(directory).close()  # what opening the store costs, alone
    open_seconds = time.monotonic() - t2
    disk = sum(f.stat().st_size for f in directory.iterdir() if f.is_file())
    return {
        "build_seconds": round(build_seconds, 2),
        "describe_in_process_ms": round(describe_seconds * 1000, 1),
        "store_open_ms": round(open_seconds * 1000, 1),
        "disk_mb": round(disk / 2**20, 1),
    }


# -- serving -------------------------------------------------------------------


def _spec(items: int, data: Path) -> ServerSpec:
    base = SPECS["tallydb"]

    def argv(port: int, workdir: Path) -> list[str]:
        return [
            PYTHON, "-m", "tallydb", "serve", "--host", "127.0.0.1", "--port", str(port),
            "--data", str(data),
        ]  # fmt: skip

    return ServerSpec(
        f"tallydb-{items}",
        f"tallydb, {items:,} items",
        argv,
        base.check,
        base.version,
        cwd=REPO,
        tallydb=True,
    )


def _timed_call(client: RawClient, target: str, body: dict[str, Any]) -> tuple[float, Any]:
    t0 = time.monotonic()
    out = client.call(target, body)
    return (time.monotonic() - t0) * 1000, out


def _probe(server: RunningServer, items: int) -> dict[str, Any]:
    """DescribeTable (counts the items) and a GetItem of the last key, timed;
    checks the server sees the whole table."""
    client = RawClient(server.url, timeout=60)
    try:
        describe_ms, out = _timed_call(client, "DescribeTable", {"TableName": COUNTERS})
        count = out["Table"]["ItemCount"]
        get_ms, got = _timed_call(
            client, "GetItem", {"TableName": COUNTERS, "Key": {"pk": {"S": f"k{items - 1}"}}}
        )
    finally:
        client.close()
    if count != items:
        raise RuntimeError(f"server reports ItemCount {count}, expected {items}")
    if "play_count" not in got.get("Item", {}):
        raise RuntimeError(f"GetItem k{items - 1} returned no play_count: {str(got)[:200]}")
    return {"describe_table_ms": round(describe_ms, 1), "first_get_ms": round(get_ms, 1)}


def _scenario(items: int) -> Scenario:
    """Scenario B over `items` keys, each request's key drawn when it is sent."""
    b = build_scenarios(items)["B"]
    return dataclasses.replace(b, env={**b.env, "BENCH_MODE": "keys"})


def _src_dirty() -> bool | None:
    try:
        out = subprocess.run(
            ["git", "-C", str(REPO), "status", "--porcelain", "--", "src"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return bool(out.stdout.strip())


def measure(args: argparse.Namespace, root: Path, run: dict[str, Any]) -> list[str]:
    """Build, start, load; fills run["sizes"]; returns the problems."""
    problems: list[str] = []
    server_cpus, load_cpus, wrk_threads = pin_cpus()
    run["meta"].update(server_cpus=server_cpus, load_cpus=load_cpus, wrk_threads=wrk_threads)
    sizes: dict[int, dict[str, Any]] = {}
    for n in args.sizes:
        _log(f"== building {n:,} items")
        entry: dict[str, Any] = {"items": n}
        entry.update(build_data(root / f"items-{n}", n))
        _log(
            f"  built in {entry['build_seconds']} s, {entry['disk_mb']} MB on disk, "
            f"store opens in {entry['store_open_ms']} ms"
        )
        sizes[n] = entry
    run["sizes"] = [sizes[n] for n in args.sizes]

    plans = {
        n: Plan(
            scenarios=[_scenario(n)],
            connections=[args.conns],
            warmup=args.warmup,
            duration=args.duration,
            repetitions=args.reps,
            keys=n,
            exact_threads=0,
            exact_per_thread=0,
            load_cpus=load_cpus,
            wrk_threads=wrk_threads,
        )
        for n in args.sizes
    }
    with ExitStack() as stack:
        servers: dict[int, RunningServer] = {}
        for n in args.sizes:
            entry = sizes[n]
            spec = _spec(n, root / f"items-{n}")
            startups: list[float] = []
            for i in range(args.starts):
                server = stack.enter_context(RunningServer(spec, server_cpus))
                startups.append(round(server.startup_seconds, 3))
                if i == 0:
                    entry["rss_idle_mb"] = round(procstat.rss_bytes(server.pid) / 2**20, 1)
                    entry.update(_probe(server, n))
                if i < args.starts - 1:
                    server.stop()  # stopping twice (again when the stack closes) is harmless
                else:
                    servers[n] = server
            entry["startups"] = startups
            entry["startup_seconds"] = round(statistics.median(startups), 3)
            _log(
                f"== {n:,} items: {servers[n].url} pid {servers[n].pid}, start-up "
                f"{entry['startup_seconds']} s (of {startups}), RSS {entry['rss_idle_mb']} MB, "
                f"DescribeTable {entry['describe_table_ms']} ms, "
                f"first GetItem {entry['first_get_ms']} ms"
            )
        run["meta"]["load_before_runs"] = procstat.load_average()

        for n in args.sizes:
            scenario, probe = plans[n].scenarios[0], RawClient(servers[n].url)
            try:
                problem = scenario.check_probe(probe, noop=False)
            finally:
                probe.close()
            if problem:
                raise RuntimeError(f"{n:,} items: probe failed: {problem}")
            if args.warmup > 0:
                _log(f"  warm-up {args.warmup} s on {n:,} items")
                run_wrk(
                    servers[n].url,
                    scenario.env,
                    args.conns,
                    args.warmup,
                    threads=wrk_threads,
                    cpus=load_cpus,
                )
        reps: dict[int, list[dict[str, Any]]] = {n: [] for n in args.sizes}
        # A server's CPU from its first run to the end, between runs included:
        # what it deferred (a WAL checkpoint) runs while another one is measured.
        cpu_start = {n: procstat.cpu_seconds(servers[n].pid) for n in args.sizes}
        for r in range(args.reps):
            for n in args.sizes:
                if not servers[n].alive():
                    raise RuntimeError(f"{n:,} items: server died: {servers[n].log_tail()}")
                rep = _one_rep(servers[n], plans[n].scenarios[0], args.conns, plans[n], False)
                reps[n].append(rep)
                _log(
                    f"  rep {r + 1}/{args.reps} {n:>10,} items: {rep['rps']:>8,.0f} req/s  "
                    f"p50 {rep['p50_ms']:.2f} ms  p99 {rep['p99_ms']:.2f} ms  "
                    f"cpu {rep['cpu_us_per_request']} us/req  errors {rep['errors']}  "
                    f"(wrk {rep['wrk_cpu_percent']:.0f}%, other {rep['other_cpu_percent']:.0f}%)"
                )
        time.sleep(args.settle)
        for n in args.sizes:
            entry = sizes[n]
            requests = sum(rep["requests"] for rep in reps[n])
            cpu_all = procstat.cpu_seconds(servers[n].pid) - cpu_start[n]
            entry["cpu_us_per_request_all"] = (
                round(cpu_all / requests * 1e6, 1) if requests else None)
            entry.update(_aggregate(reps[n], plans[n].scenarios[0]))
            entry["reps"] = reps[n]
            entry["rss_mb"] = round(procstat.rss_bytes(servers[n].pid) / 2**20, 1)
            if entry["errors"]:
                problems.append(f"{n:,} items: {entry['errors']} errors")
            if not entry["rps"]:
                problems.append(f"{n:,} items: nothing completed")
            if not servers[n].alive():
                problems.append(f"{n:,} items: server died: {servers[n].log_tail()}")
    return problems


# -- the report ----------------------------------------------------------------


def targets(run: dict[str, Any]) -> list[dict[str, Any]]:
    sizes = [s for s in run.get("sizes", []) if s.get("rps")]
    if not sizes:
        return []
    small, big = sizes[0], sizes[-1]
    cpu_small, cpu_big = small.get("cpu_us_per_request"), big.get("cpu_us_per_request")
    ratio = cpu_small / cpu_big if len(sizes) > 1 and cpu_small and cpu_big else None
    out = []
    if ratio is not None:
        out.append(
            {
                "target": f"B at {big['items']:,} items / at {small['items']:,} items, "
                f"by server CPU per request, >= {MIN_RATIO}",
                "measured": round(ratio, 3),
                "ok": ratio >= MIN_RATIO,
            }
        )
    out.append(
        {
            "target": f"server RSS at {big['items']:,} items < {MAX_RSS_MB:.0f} MB",
            "measured": big["rss_mb"],
            "ok": big["rss_mb"] < MAX_RSS_MB,
        }
    )
    out.append(
        {
            "target": f"start-up at {big['items']:,} items < {MAX_STARTUP_S:.0f} s",
            "measured": big["startup_seconds"],
            "ok": big["startup_seconds"] < MAX_STARTUP_S,
        }
    )
    return out


def _f(value: Any, spec: str = ",.0f") -> str:
    return "-" if value is None else format(value, spec)


def markdown(run: dict[str, Any]) -> str:
    meta = run["meta"]
    lines = [
        f"Growth run of {meta['date']} on {meta['machine']}; commit `{meta['commit']}`"
        + (" (src/ modified in the working tree)" if meta.get("src_dirty") else "")
        + f". Scenario B (`ADD play_count :one` on a random key of the whole table), "
        f"{meta['conns']} connections, {meta['warmup']} s warm-up, "
        f"{meta['reps']} x {meta['duration']} s measured, taken in turn, medians; "
        f"server pinned to CPU {meta.get('server_cpus')}, wrk to CPU {meta.get('load_cpus')}. "
        f"Load average {meta['load_start']:.2f} at the start, "
        f"{_f(meta.get('load_before_runs'), '.2f')} before the runs, "
        f"{_f(meta.get('load_end'), '.2f')} at the end. `{meta['command']}`",
        "",
        "| items | build s | disk MB | start-up s | RSS idle MB | DescribeTable ms "
        "| req/s | p50 ms | p99 ms | CPU µs/req | RSS end MB | errors | other CPU % |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in run.get("sizes", []):
        lines.append(
            f"| {s['items']:,} | {_f(s.get('build_seconds'), '.1f')} "
            f"| {_f(s.get('disk_mb'), '.1f')} | {_f(s.get('startup_seconds'), '.2f')} "
            f"| {_f(s.get('rss_idle_mb'), '.0f')} | {_f(s.get('describe_table_ms'), ',.1f')} "
            f"| {_f(s.get('rps'))} | {_f(s.get('p50_ms'), '.2f')} | {_f(s.get('p99_ms'), '.2f')} "
            f"| {_f(s.get('cpu_us_per_request'), ',.1f')} | {_f(s.get('rss_mb'), '.0f')} "
            f"| {_f(s.get('errors'), 'd')} | {_f(s.get('other_cpu_percent'), '.0f')} |"
        )
    checks = targets(run)
    if checks:
        lines += ["", "| growth target | measured | |", "|---|---:|---|"]
        for t in checks:
            lines.append(
                f"| {t['target']} | {t['measured']} | {'met' if t['ok'] else '**not met**'} |"
            )
    paired = run.get("paired")
    if paired:
        lines += [
            "",
            f"Same-turn ratios, {paired['items']:,} items / {paired['base']:,} items: req/s "
            f"per repetition {', '.join(f'{r:.2f}' for r in paired['rps_ratios'])} "
            f"(median {paired['rps_ratio_median']:.2f}); server CPU µs per request "
            f"{_f(paired.get('cpu_ratio'), '.2f')}x in the runs, "
            f"{_f(paired['cpu_all'][0], '.1f')} and {_f(paired['cpu_all'][1], '.1f')} "
            f"({_f(paired.get('cpu_all_ratio'), '.2f')}x) counting what each server did "
            "between its runs and after them (deferred WAL checkpoints).",
        ]
    return "\n".join(lines) + "\n"


def paired_ratios(run: dict[str, Any]) -> dict[str, Any] | None:
    """Largest size against the smallest, repetition by repetition (runs taken
    in turn, so each pair shared the same neighbours), and CPU per request."""
    sizes = [s for s in run.get("sizes", []) if s.get("reps")]
    if len(sizes) < 2:
        return None
    small, big = sizes[0], sizes[-1]
    ratios = [b["rps"] / a["rps"] for a, b in zip(small["reps"], big["reps"], strict=False)
              if a["rps"]]  # fmt: skip
    if not ratios:
        return None
    cpu_a, cpu_b = small.get("cpu_us_per_request"), big.get("cpu_us_per_request")
    all_a, all_b = small.get("cpu_us_per_request_all"), big.get("cpu_us_per_request_all")
    return {
        "base": small["items"],
        "items": big["items"],
        "rps_ratios": [round(r, 3) for r in ratios],
        "rps_ratio_median": round(statistics.median(ratios), 3),
        "cpu_ratio": round(cpu_b / cpu_a, 3) if cpu_a and cpu_b else None,
        "cpu_all": [all_a, all_b],
        "cpu_all_ratio": round(all_b / all_a, 3) if all_a and all_b else None,
    }


def _compile_sources() -> None:
    """Compile tallydb's modules to bytecode, as installing it does, so
    that start-up is the server's and not Python's compiler's."""
    import compileall

    import tallydb

    for folder in tallydb.__path__:
        compileall.compile_dir(folder, quiet=1)


def main(argv: list[str] | None = None) -> int:
    args = _parse_args(argv)
    if wrk_version() is None:
        print("wrk not found: run bench/setup.sh (apt-get install wrk)", file=sys.stderr)
        return 2
    if args.duration < 1 or args.reps < 1 or args.starts < 1 or not args.sizes:
        print("--duration, --reps and --starts must be at least 1, --sizes not empty",
              file=sys.stderr)  # fmt: skip
        return 2
    if min(args.sizes) < 1:
        print("--sizes must be positive", file=sys.stderr)
        return 2
    _install_signal_handlers()
    _compile_sources()
    started = dt.datetime.now(dt.UTC)
    command = "python -m bench.growth " + " ".join(sys.argv[1:] if argv is None else argv)
    run: dict[str, Any] = {
        "meta": {
            "date": started.strftime("%Y-%m-%d %H:%M UTC"),
            "machine": _machine(),
            "commit": _commit(),
            "src_dirty": _src_dirty(),
            "command": command.strip(),
            "wrk": wrk_version(),
            "conns": args.conns,
            "warmup": args.warmup,
            "duration": args.duration,
            "reps": args.reps,
            "starts": args.starts,
            "load_start": procstat.load_average(),
        },
        "sizes": [],
    }
    if args.tmp is not None:
        args.tmp.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="tallydb-growth-", dir=args.tmp))
    problems: list[str] = []
    interrupted = False
    try:
        problems = measure(args, root, run)
    except KeyboardInterrupt:
        interrupted = True
        _log("interrupted: stopping servers")
    except (ServerUnavailable, LoadGenError, DynamoError, OSError, RuntimeError) as e:
        problems.append(f"{type(e).__name__}: {e}")
    finally:
        stop_all()
        shutil.rmtree(root, ignore_errors=True)
    run["meta"]["seconds"] = round((dt.datetime.now(dt.UTC) - started).total_seconds(), 1)
    run["meta"]["load_end"] = procstat.load_average()
    run["targets"] = targets(run)
    run["paired"] = paired_ratios(run)
    run["problems"] = problems
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / "growth.json"
    out.write_text(json.dumps(run, indent=2) + "\n")
    print()
    print(markdown(run))
    print(f"results: {out}")
    for p in problems:
        print(f"PROBLEM: {p}")
    if interrupted:
        return 130
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
