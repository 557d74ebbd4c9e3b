"""Run wrk with bench/wrk.lua and read back its one-line JSON summary."""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

WRK_SCRIPT = Path(__file__).with_name("wrk.lua")


class LoadGenError(RuntimeError):
    pass


@dataclass
class WrkResult:
    requests: int
    seconds: float
    errors: dict[str, int]
    latency_us: dict[str, float]
    cas: dict[str, int]
    wrk_cpu_seconds: float

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds > 0 else 0.0

    @property
    def socket_errors(self) -> int:
        e = self.errors
        return e["connect"] + e["read"] + e["write"] + e["timeout"]


def wrk_version() -> str | None:
    exe = shutil.which("wrk")
    if exe is None:
        return None
    out = subprocess.run([exe, "-v"], capture_output=True, text=True, timeout=10)
    first = (out.stdout + out.stderr).strip().splitlines()
    return first[0] if first else "wrk"


def run_wrk(
    url: str,
    env: dict[str, str],
    connections: int,
    seconds: int,
    threads: int = 1,
    cpus: str | None = None,
    timeout_s: int = 10,
) -> WrkResult:
    """One bounded wrk run; raises LoadGenError if wrk fails or prints no summary."""
    exe = shutil.which("wrk")
    if exe is None:
        raise LoadGenError("wrk not found (run bench/setup.sh)")
    threads = max(1, min(threads, connections))
    cmd = [
        exe,
        f"-t{threads}",
        f"-c{connections}",
        f"-d{max(1, int(seconds))}s",
        f"--timeout={timeout_s}s",
        "-s",
        str(WRK_SCRIPT),
        url.rstrip("/") + "/",
    ]
    if cpus is not None and shutil.which("taskset"):
        cmd = ["taskset", "-c", cpus, *cmd]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        proc = subprocess.run(
            cmd,
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=seconds + timeout_s + 30,
        )
    except subprocess.TimeoutExpired as e:
        raise LoadGenError(f"wrk did not finish within {e.timeout:.0f} s") from e
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    wrk_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    summary: dict[str, Any] | None = None
    for line in proc.stdout.splitlines():
        if line.startswith("BENCH_JSON "):
            summary = json.loads(line[len("BENCH_JSON ") :])
    if proc.returncode != 0 or summary is None:
        tail = (proc.stderr or proc.stdout).strip()[-500:]
        raise LoadGenError(f"wrk exited {proc.returncode}: {tail}")
    latency = dict(summary["latency_us"])
    if summary["requests"] == 0:
        latency = {k: 0.0 for k in latency}
    return WrkResult(
        requests=int(summary["requests"]),
        seconds=summary["duration_us"] / 1e6,
        errors={k: int(v) for k, v in summary["errors"].items()},
        latency_us=latency,
        cas={k: int(v) for k, v in summary["cas"].items()},
        wrk_cpu_seconds=wrk_cpu,
    )
