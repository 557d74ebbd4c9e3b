"""A seconds-long smoke run of bench/scan_cost.py (Scan's CPU per item,
revisions in one run): HEAD's exported src/ against the working tree's, 300
items, one turn. The child checks that the Scan returned every item; the run
must finish and print both rows. It measures nothing worth reading."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: An exported revision is built pure Python: compiling it takes minutes.
PURE = {**os.environ, "TALLYDB_PURE_PYTHON": "1"}


def test_bench_scan_cost_smoke() -> None:
    cmd = [sys.executable, "-m", "bench.scan_cost", "HEAD", ".", "--items", "300", "--reps", "1"]
    done = subprocess.run(cmd, cwd=REPO, env=PURE, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "| revision | µs/item | ratio |" in done.stdout
    first = next(line for line in done.stdout.splitlines() if line.startswith("| 0:HEAD |"))
    assert first.split("|")[3].strip() == "1.00"  # the baseline against itself
    assert any(line.startswith("| 1:. |") for line in done.stdout.splitlines())
