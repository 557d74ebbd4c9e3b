"""A seconds-long smoke run of bench/hostile.py: the pipelining and the
half-open TLS attacks, 1 s windows. The run must finish and print a row
for each (whatever its numbers on a busy machine: it measures nothing worth
reading, and the bounds are the full run's)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def test_bench_hostile_smoke() -> None:
    pytest.importorskip("cryptography", reason="cryptography makes the TLS certificate")
    cmd = [sys.executable, "-m", "bench.hostile", "--seconds", "1",
           "--only", "pipelined", "--only", "tls"]
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode in (0, 1), done.stdout[-4000:] + done.stderr[-2000:]
    rows = [line.split()[0] for line in done.stdout.splitlines()[2:] if line[:1].strip()]
    assert rows[:2] == ["pipelined", "tls"], done.stdout
    assert "newcomer served after" in done.stdout, done.stdout
    assert "all 300 closed" in done.stdout, done.stdout
