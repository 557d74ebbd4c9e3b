"""tallydb's benchmark: tallydb against every local DynamoDB, side by side, in one run.

    bench/setup.sh                      # once: wrk, DynamoDB Local, dynalite, moto
    .venv/bin/python -m bench.run       # the full comparison (about 7 minutes a server)
    .venv/bin/python -m bench.run --smoke                   # tallydb alone, seconds
    .venv/bin/python -m bench.run --servers noop,moto --duration 2 --reps 1

See bench/README.md for the method.
"""

from __future__ import annotations

import argparse
import atexit
import datetime as dt
import json
import os
import platform
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import FrameType
from typing import Any

from bench import procstat, report
from bench.loadgen import wrk_version
from bench.measure import Plan, measure_server
from bench.scenarios import build as build_scenarios
from bench.servers import (
    BENCH_DIR,
    DEFAULT_SERVERS,
    REPO,
    SPECS,
    ExternalServer,
    RunningServer,
    ServerUnavailable,
    stop_all,
)

DEFAULT_CONNS = [1, 8, 64]
ALL_SCENARIOS = "ABCDE"


def _log(msg: str) -> None:
    print(msg, flush=True)


def _cpus() -> tuple[str | None, str | None, int]:
    """(server cpus, load-generator cpus, wrk threads): server on the first CPU we
    may use, wrk and this process on the others."""
    try:
        allowed = sorted(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return None, None, 1
    if len(allowed) < 2:
        return None, None, 1
    server = str(allowed[0])
    load = ",".join(str(c) for c in allowed[1:])
    return server, load, len(allowed) - 1


def pin_cpus() -> tuple[str | None, str | None, int]:
    """``_cpus()``, with this process (the load side) pinned to the load CPUs."""
    server_cpus, load_cpus, wrk_threads = _cpus()
    if load_cpus is not None:
        os.sched_setaffinity(0, {int(c) for c in load_cpus.split(",")})
    return server_cpus, load_cpus, wrk_threads


def _machine() -> str:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f", {kb / 2**20:.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    return f"{os.cpu_count()} cores {model}{mem}, {platform.system()} {platform.release()}".strip()


def _commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m bench.run",
        description="Benchmark tallydb against the local DynamoDB peers (see bench/README.md).",
    )
    p.add_argument(
        "--servers",
        default=",".join(DEFAULT_SERVERS),
        help=f"comma-separated, from: {', '.join(SPECS)} (default: %(default)s)",
    )
    p.add_argument("--scenarios", default=ALL_SCENARIOS, help="letters from ABCDE")
    p.add_argument("--conns", default=",".join(map(str, DEFAULT_CONNS)), help="connection levels")
    p.add_argument("--warmup", type=int, default=2, help="seconds before each measured set")
    p.add_argument("--duration", type=int, default=8, help="seconds per measured run (>= 1)")
    p.add_argument("--reps", type=int, default=3, help="measured runs per point (median)")
    p.add_argument("--keys", type=int, default=10_000, help="items for B and C")
    p.add_argument("--exact-threads", type=int, default=16, help="0 skips the exact count")
    p.add_argument("--exact-per-thread", type=int, default=500)
    p.add_argument(
        "--smoke",
        action="store_true",
        help="tallydb alone, 1 s per scenario at 8 connections, no warm-up, 100 keys, "
        "exact count 4 x 50; exit 1 on any error",
    )
    p.add_argument("--url", help="measure an already running server at this URL instead")
    p.add_argument("--pid", type=int, default=0, help="with --url: its pid, for CPU figures")
    p.add_argument("--name", default="external", help="with --url: its name in the report")
    p.add_argument("--out", type=Path, default=BENCH_DIR / "results", help="results folder")
    p.add_argument(
        "--readme",
        choices=["auto", "yes", "no"],
        default="auto",
        help="write the table into bench/README.md (auto: only after a full default run)",
    )
    p.add_argument("--list", action="store_true", help="list the servers and whether each can run")
    p.add_argument("--shared-cpus", action="store_true",
                   help="pin nothing: servers and wrk contend for every CPU, as clients on a "
                        "busy machine do (p99 under contention)")
    p.add_argument(
        "--report",
        type=Path,
        metavar="JSON",
        help="measure nothing: render a saved run's JSON again (table, chart, README with "
        "--readme yes)",
    )
    args = p.parse_args(argv)
    if args.smoke:
        if args.servers == p.get_default("servers"):
            args.servers = "tallydb-memory"
        if args.conns == p.get_default("conns"):
            args.conns = "8"
        args.warmup = 0 if args.warmup == p.get_default("warmup") else args.warmup
        args.duration = 1 if args.duration == p.get_default("duration") else args.duration
        args.reps = 1 if args.reps == p.get_default("reps") else args.reps
        args.keys = 100 if args.keys == p.get_default("keys") else args.keys
        if args.exact_threads == p.get_default("exact_threads"):
            args.exact_threads = 4
        if args.exact_per_thread == p.get_default("exact_per_thread"):
            args.exact_per_thread = 50
        if args.out == p.get_default("out"):
            args.out = BENCH_DIR / "results" / "smoke"
    return args


def _install_signal_handlers() -> None:
    def handler(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, handler)
    atexit.register(stop_all)


def main(argv: list[str] | None = None) -> int:
    args = _parse_args(argv)
    if args.list:
        for name, spec in SPECS.items():
            reason = spec.check()
            print(f"{name:<18} {'ok' if reason is None else 'unavailable: ' + reason}")
        return 0
    if args.report:
        return _rerender(args)
    if wrk_version() is None:
        print("wrk not found: run bench/setup.sh (apt-get install wrk)", file=sys.stderr)
        return 2
    names = [s.strip() for s in args.servers.split(",") if s.strip()]
    unknown = [n for n in names if n not in SPECS]
    if unknown and not args.url:
        print(f"unknown servers {unknown}; known: {', '.join(SPECS)}", file=sys.stderr)
        return 2
    if args.duration < 1 or args.reps < 1:
        print("--duration and --reps must be at least 1", file=sys.stderr)
        return 2
    all_scenarios = build_scenarios(args.keys)
    scenario_ids = [c for c in args.scenarios.upper() if c in all_scenarios]
    conns = [int(c) for c in args.conns.split(",") if c.strip()]
    # --shared-cpus: nothing pinned, wrk as many threads as when pinned
    server_cpus, load_cpus, wrk_threads = (
        (None, None, _cpus()[2]) if args.shared_cpus else pin_cpus())
    _install_signal_handlers()

    plan = Plan(
        scenarios=[all_scenarios[s] for s in scenario_ids],
        connections=conns,
        warmup=args.warmup,
        duration=args.duration,
        repetitions=args.reps,
        keys=args.keys,
        exact_threads=args.exact_threads,
        exact_per_thread=args.exact_per_thread,
        load_cpus=load_cpus,
        wrk_threads=wrk_threads,
    )
    started = dt.datetime.now(dt.UTC)
    command = (
        "python -m bench.run"
        + (" " + " ".join(argv) if argv else " " + " ".join(sys.argv[1:])).rstrip()
    )
    run: dict[str, Any] = {
        "meta": {
            "date": started.strftime("%Y-%m-%d %H:%M UTC"),
            "machine": _machine(),
            "commit": _commit(),
            "command": command.strip(),
            "python": platform.python_version(),
            "wrk": wrk_version(),
            "server_cpus": server_cpus,
            "load_cpus": load_cpus,
            "wrk_threads": wrk_threads,
            "warmup": args.warmup,
            "duration": args.duration,
            "repetitions": args.reps,
            "keys": args.keys,
            "scenarios": scenario_ids,
            "scenario_titles": {s: all_scenarios[s].title for s in scenario_ids},
            "scenario_descriptions": {s: all_scenarios[s].description for s in scenario_ids},
            "connections": conns,
            "smoke": args.smoke,
            "load_start": procstat.load_average(),
        },
        "servers": {},
    }
    interrupted = False
    try:
        if args.url:
            _measure_external(args, plan, run)
        else:
            for name in names:
                _measure_one(name, plan, server_cpus, run)
    except KeyboardInterrupt:
        interrupted = True
        _log("interrupted: stopping servers, writing what was measured")
    finally:
        stop_all()
    run["meta"]["seconds"] = round((dt.datetime.now(dt.UTC) - started).total_seconds(), 1)
    run["meta"]["interrupted"] = interrupted
    run["meta"]["load_end"] = procstat.load_average()
    return _finish(args, run, names, scenario_ids, conns, interrupted)


def _measure_one(name: str, plan: Plan, server_cpus: str | None, run: dict[str, Any]) -> None:
    spec = SPECS[name]
    entry: dict[str, Any] = {"label": spec.label, "tallydb": spec.tallydb, "noop": spec.noop}
    run["servers"][name] = entry
    _log(f"== {name}: {spec.label}")
    entry["version"] = spec.version() if spec.check() is None else None
    t0 = time.monotonic()
    try:
        with RunningServer(spec, server_cpus) as server:
            entry["argv"] = server.argv
            entry["startup_seconds"] = round(server.startup_seconds, 2)
            _log(f"  {server.url} pid {server.pid}, ready in {server.startup_seconds:.2f} s")
            entry.update(measure_server(server, plan, spec.noop, _log))
            entry["status"] = "measured"
            if not server.alive():
                entry["status"] = "failed"
                entry["reason"] = f"server died during the run: {server.log_tail()}"
    except ServerUnavailable as e:
        entry["status"] = "skipped"
        entry["reason"] = str(e)
        _log(f"  skipped: {e}")
    except (OSError, RuntimeError, ValueError, KeyError) as e:
        entry["status"] = "failed"
        entry["reason"] = f"{type(e).__name__}: {e}"
        _log(f"  failed: {entry['reason']}")
    entry["seconds"] = round(time.monotonic() - t0, 1)


def _measure_external(args: argparse.Namespace, plan: Plan, run: dict[str, Any]) -> None:
    name = args.name
    entry: dict[str, Any] = {
        "label": f"{name} at {args.url}",
        "tallydb": name.startswith("tallydb"),
        "noop": name == "noop",
        "version": None,
    }
    run["servers"][name] = entry
    _log(f"== {name}: {args.url} (started elsewhere; not pinned by this harness)")
    try:
        entry.update(measure_server(ExternalServer(args.url, args.pid), plan, entry["noop"], _log))
        entry["status"] = "measured"
    except (OSError, RuntimeError, ValueError, KeyError) as e:
        entry["status"] = "failed"
        entry["reason"] = f"{type(e).__name__}: {e}"
        _log(f"  failed: {entry['reason']}")


def _rerender(args: argparse.Namespace) -> int:
    run = json.loads(args.report.read_text())
    table = report.markdown(run)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    (out / "latest.md").write_text(table)
    why_no_chart = report.write_chart(run, out / "latest.png")
    print(table)
    if why_no_chart:
        print(f"no chart: {why_no_chart}")
    if args.readme == "yes":
        ok = report.update_readme(BENCH_DIR / "README.md", table)
        print("table written into bench/README.md" if ok else "README has no result markers")
    return 0


def _problems(run: dict[str, Any]) -> list[str]:
    """Everything that makes a smoke run fail."""
    out: list[str] = []
    for name, srv in run["servers"].items():
        if srv["status"] != "measured":
            out.append(f"{name}: {srv['status']}: {srv.get('reason')}")
            continue
        out += [f"{name}: {p}" for p in srv.get("problems", [])]
        exact = srv.get("exact")
        if exact and not exact["ok"]:
            out.append(f"{name}: exact count {exact['final']} != {exact['expected']}")
        for e in srv.get("results", []):
            where = f"{name} {e['scenario']} c={e['conns']}"
            if e.get("failed"):
                continue  # already in problems
            if e.get("errors"):
                out.append(f"{where}: {e['errors']} errors")
            if not e.get("figure"):
                out.append(f"{where}: nothing completed")
            if e.get("cas_check_ok") is False:
                out.append(f"{where}: compare-and-set count mismatch")
    return out


def _finish(
    args: argparse.Namespace,
    run: dict[str, Any],
    names: list[str],
    scenario_ids: list[str],
    conns: list[int],
    interrupted: bool,
) -> int:
    out: Path = args.out
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%d-%H%M%S")
    table = report.markdown(run)
    report.write_json(run, out / f"{stamp}.json")
    report.write_json(run, out / "latest.json")
    (out / "latest.md").write_text(table)
    why_no_chart = report.write_chart(run, out / "latest.png")
    print()
    print(table)
    print(f"results: {out / 'latest.json'}, {out / 'latest.md'}", end="")
    print(f", {out / 'latest.png'}" if why_no_chart is None else f" (no chart: {why_no_chart})")
    full = (
        not args.smoke
        and not args.url
        and not interrupted
        and names == DEFAULT_SERVERS
        and scenario_ids == list(ALL_SCENARIOS)
        and conns == DEFAULT_CONNS
    )
    if args.readme == "yes" or (args.readme == "auto" and full):
        if report.update_readme(BENCH_DIR / "README.md", table):
            print(f"table written into {BENCH_DIR / 'README.md'}")
        else:
            print("bench/README.md has no result markers: table not written")
    skipped = {n: s.get("reason") for n, s in run["servers"].items() if s["status"] != "measured"}
    for n, reason in skipped.items():
        print(f"not measured: {n}: {reason}")
    if interrupted:
        return 130
    if args.smoke:
        problems = _problems(run)
        for p in problems:
            print(f"SMOKE PROBLEM: {p}")
        return 1 if problems else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
