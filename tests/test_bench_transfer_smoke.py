"""A seconds-long run of bench/transfer.py: a small export imported, then exported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_transfer_bench_runs_small() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench.transfer", "--items", "300", "--all-formats",
         "--targets", "embedded"],
        cwd=REPO, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ")]
    assert [r.split(" | ")[0] for r in rows[1:]] == [
        "| import, embedded", "| export dynamodb, embedded", "| export jsonl, embedded",
        "| export csv, embedded"]
    assert all("| 300 |" in r for r in rows[1:])
