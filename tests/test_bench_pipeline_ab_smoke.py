"""A seconds-long smoke run of bench/pipeline_ab.py (the engine's CPU per
item request, revisions in one run): HEAD's exported src/ against the
working tree's, a few hundred calls, one turn. The run must finish and print
both rows with every measurement. It measures nothing worth reading."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: An exported revision is built pure Python: compiling it takes minutes.
PURE = {**os.environ, "TALLYDB_PURE_PYTHON": "1"}


def test_bench_pipeline_ab_smoke() -> None:
    cmd = [sys.executable, "-m", "bench.pipeline_ab", "HEAD", ".", "--calls", "300",
           "--reps", "1"]
    done = subprocess.run(cmd, cwd=REPO, env=PURE, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    lines = done.stdout.splitlines()
    header = next(line for line in lines if line.startswith("| revision |"))
    assert "GetItem" in header and "GetItem refused" in header
    first = next(line for line in lines if line.startswith("| 0:HEAD |"))
    assert first.count("(1.00x)") == 6  # the baseline against itself
    assert any(line.startswith("| 1:. |") for line in lines)
