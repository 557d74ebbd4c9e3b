"""A smoke run of bench/console_cost.py's workload (the server's path for a
hot-key UpdateItem, as each callgrind process runs it), without callgrind:
with no page and with the operational view's metrics on, which must have
counted every request. It measures nothing worth reading."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
WARM_UP = 50  # turns bench.console_cost runs before the measured ones
CONNECTIONS = 64


def run(mode: str) -> str:
    cmd = [sys.executable, "-m", "bench.console_cost", "--run", mode, "--turns", "2"]
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    return done.stdout


def test_bench_console_cost_smoke() -> None:
    assert "recorded" not in run("none")
    assert f"recorded {(WARM_UP + 2) * CONNECTIONS} requests" in run("page")
