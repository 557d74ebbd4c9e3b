"""Measure one server: set up its tables, check exactness, run every scenario."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from bench import procstat
from bench.dynamo import COUNTERS, RawClient, exact_count, read_number, setup_tables
from bench.loadgen import LoadGenError, WrkResult, run_wrk
from bench.scenarios import Scenario


class Target(Protocol):
    url: str
    pid: int

    def alive(self) -> bool: ...

    def log_tail(self, chars: int = 600) -> str: ...


@dataclass(frozen=True)
class Plan:
    scenarios: list[Scenario]
    connections: list[int]
    warmup: int
    duration: int
    repetitions: int
    keys: int
    exact_threads: int
    exact_per_thread: int
    load_cpus: str | None
    wrk_threads: int

    @classmethod
    def one(cls, scenario: Scenario, args: Any, load_cpus: str | None, wrk_threads: int
            ) -> Plan:
        """A plan of one scenario at ``args.conns`` connections, from a tool's
        ``--warmup``, ``--duration``, ``--reps`` and ``--keys`` (no exactness run)."""
        return cls(scenarios=[scenario], connections=[args.conns], warmup=args.warmup,
                   duration=args.duration, repetitions=args.reps, keys=args.keys,
                   exact_threads=0, exact_per_thread=0, load_cpus=load_cpus,
                   wrk_threads=wrk_threads)


def _cpu(pid: int) -> float:
    return procstat.cpu_seconds(pid) if pid else 0.0


def _median(values: list[float]) -> float:
    return float(statistics.median(values)) if values else 0.0


def _one_rep(
    target: Target, scenario: Scenario, conns: int, plan: Plan, noop: bool
) -> dict[str, Any]:
    cas_before = None
    if scenario.id == "D" and not noop:
        time.sleep(0.3)  # let requests still in flight from the last run land
        cas_before = read_number(target.url, COUNTERS, {"pk": {"S": "cas"}}, "v")
    cpu0 = _cpu(target.pid)
    busy0 = procstat.machine_busy_seconds()
    res: WrkResult = run_wrk(
        target.url,
        scenario.env,
        conns,
        plan.duration,
        threads=plan.wrk_threads,
        cpus=plan.load_cpus,
    )
    cpu1 = _cpu(target.pid)
    busy1 = procstat.machine_busy_seconds()
    # CPU used by anything but the server and wrk (other jobs on this machine):
    # the measure of how noisy this run was, as a percentage of one core
    other = (busy1 - busy0) - (cpu1 - cpu0 if target.pid else 0.0) - res.wrk_cpu_seconds
    rep: dict[str, Any] = {
        "requests": res.requests,
        "seconds": round(res.seconds, 3),
        "rps": round(res.rps, 1),
        "p50_ms": res.latency_us["p50"] / 1000,
        "p99_ms": res.latency_us["p99"] / 1000,
        "p999_ms": res.latency_us["p999"] / 1000,
        "max_ms": res.latency_us["max"] / 1000,
        "server_cpu_s": round(cpu1 - cpu0, 3) if target.pid else None,
        "cpu_us_per_request": (
            round((cpu1 - cpu0) / res.requests * 1e6, 1) if target.pid and res.requests else None
        ),
        "wrk_cpu_percent": round(100 * res.wrk_cpu_seconds / res.seconds, 1) if res.seconds else 0,
        "other_cpu_percent": round(max(0.0, 100 * other / res.seconds), 1) if res.seconds else 0,
        "http_errors": res.errors["status"],
        "socket_errors": res.socket_errors,
    }
    if scenario.id == "D":
        cas = res.cas
        rep["cas_successes"] = cas["successes"]
        rep["cas_conflicts"] = cas["conflicts"]
        rep["cas_errors"] = cas["errors"]
        rep["increments_per_s"] = round(cas["successes"] / res.seconds, 1) if res.seconds else 0
        # conflicts are 400s by design; errors are everything else that failed
        rep["errors"] = cas["errors"] + res.socket_errors
        if cas_before is not None:
            time.sleep(0.3)
            cas_after = read_number(target.url, COUNTERS, {"pk": {"S": "cas"}}, "v")
            applied = None if cas_after is None else cas_after - cas_before
            # each connection has at most one request in flight when wrk stops,
            # and a timed-out request may still have been applied
            slack = conns + res.errors["timeout"]
            rep["cas_applied"] = applied
            rep["cas_check_ok"] = applied is not None and (
                cas["successes"] <= applied <= cas["successes"] + slack
            )
    else:
        rep["errors"] = res.errors["status"] + res.socket_errors
    return rep


def _aggregate(reps: list[dict[str, Any]], scenario: Scenario) -> dict[str, Any]:
    def med(key: str) -> float | None:
        vals = [r[key] for r in reps if r.get(key) is not None]
        return round(_median(vals), 3) if vals else None

    out: dict[str, Any] = {
        "rps": med("rps"),
        "p50_ms": med("p50_ms"),
        "p99_ms": med("p99_ms"),
        "cpu_us_per_request": med("cpu_us_per_request"),
        "wrk_cpu_percent": med("wrk_cpu_percent"),
        "other_cpu_percent": med("other_cpu_percent"),
        "errors": sum(r["errors"] for r in reps),
        "requests": sum(r["requests"] for r in reps),
    }
    if scenario.id == "D":
        out["increments_per_s"] = med("increments_per_s")
        out["cas_conflicts"] = sum(r["cas_conflicts"] for r in reps)
        out["cas_successes"] = sum(r["cas_successes"] for r in reps)
        checks = [r["cas_check_ok"] for r in reps if "cas_check_ok" in r]
        out["cas_check_ok"] = all(checks) if checks else None
    out["figure"] = out["increments_per_s"] if scenario.metric == "successes" else out["rps"]
    return out


def measure_server(
    target: Target,
    plan: Plan,
    noop: bool,
    log: Callable[[str], None],
) -> dict[str, Any]:
    """Every scenario at every connection level against one started server."""
    out: dict[str, Any] = {"results": [], "problems": []}
    if not noop:
        t0 = time.monotonic()
        setup_tables(target.url, plan.keys)
        out["setup_seconds"] = round(time.monotonic() - t0, 2)
        if plan.exact_threads > 0:
            log(f"  exact count: {plan.exact_threads} boto3 threads x {plan.exact_per_thread} ADD")
            exact = exact_count(target.url, plan.exact_threads, plan.exact_per_thread)
            out["exact"] = exact
            verdict = "exact" if exact["ok"] else "NOT EXACT"
            log(
                f"  exact count: final {exact['final']} of {exact['expected']} ({verdict}), "
                f"{exact['errors']} errors, {exact['seconds']} s"
            )
    probe_client = RawClient(target.url)
    try:
        for scenario in plan.scenarios:
            problem = scenario.check_probe(probe_client, noop)
            if problem:
                msg = f"{scenario.id} {scenario.title}: probe failed: {problem}"
                log("  " + msg)
                out["problems"].append(msg)
                for conns in plan.connections:
                    out["results"].append(
                        {"scenario": scenario.id, "conns": conns, "failed": problem}
                    )
                continue
            for conns in plan.connections:
                entry: dict[str, Any] = {"scenario": scenario.id, "conns": conns}
                try:
                    if not target.alive():
                        raise LoadGenError(f"server is not running: {target.log_tail()}")
                    if plan.warmup > 0:
                        run_wrk(
                            target.url,
                            scenario.env,
                            conns,
                            plan.warmup,
                            threads=plan.wrk_threads,
                            cpus=plan.load_cpus,
                        )
                    reps = [
                        _one_rep(target, scenario, conns, plan, noop)
                        for _ in range(plan.repetitions)
                    ]
                except (LoadGenError, OSError) as e:
                    entry["failed"] = str(e)
                    out["problems"].append(f"{scenario.id} c={conns}: {e}")
                    log(f"  {scenario.id} c={conns:<3} FAILED: {e}")
                    out["results"].append(entry)
                    continue
                entry.update(_aggregate(reps, scenario))
                entry["reps"] = reps
                out["results"].append(entry)
                log(_line(scenario, entry))
    finally:
        probe_client.close()
    if target.pid:
        out["rss_mb"] = round(procstat.rss_bytes(target.pid) / 2**20, 1)
    return out


def _line(scenario: Scenario, e: dict[str, Any]) -> str:
    cpu = e.get("cpu_us_per_request")
    text = (
        f"  {scenario.id} c={e['conns']:<3} {e['rps']:>10,.0f} req/s  "
        f"p50 {e['p50_ms']:.2f} ms  p99 {e['p99_ms']:.2f} ms  "
        f"cpu {'-' if cpu is None else f'{cpu:,.0f}'} us/req  errors {e['errors']}  "
        f"(wrk cpu {e['wrk_cpu_percent']:.0f}%, other {e['other_cpu_percent']:.0f}%)"
    )
    if scenario.id == "D":
        text += (
            f"  increments/s {e['increments_per_s']:,.0f} conflicts {e['cas_conflicts']} "
            f"check {e['cas_check_ok']}"
        )
    return text
