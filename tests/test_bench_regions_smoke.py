"""A seconds-long smoke run of bench/regions.py (what point-in-time recovery
costs): each wrk scenario once for 1 s at 8 connections, the in-process CPU
turn once, a restore of 300 items. The run must finish and print every row.
It measures nothing worth reading."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(
    shutil.which("wrk") is None and not os.environ.get("CI"),
    reason="wrk is not installed (bench/setup.sh --smoke installs it)",
)


def test_bench_regions_smoke() -> None:
    cmd = [sys.executable, "-m", "bench.regions", "--reps", "1", "--duration", "1",
           "--warmup", "1", "--conns", "8", "--restore-items", "300"]
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    rows = [line.split("|")[1].strip() for line in done.stdout.splitlines()
            if line.startswith("| add")]
    assert rows == ["add", "add+pitr", "add+replica"] * 2, done.stdout
    assert "Restore of 300 items" in done.stdout
