"""A seconds-long smoke run of bench/ab.py (interleaved A/B of revisions).

HEAD's exported src/ against the working tree's, scenario B over 200 keys,
one 1 s run each: the run must finish with no errors and print both rows.
It measures nothing worth reading.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: An exported revision is built pure Python: compiling it takes minutes.
PURE = {**os.environ, "TALLYDB_PURE_PYTHON": "1"}

# as tests/test_bench_smoke.py: in CI (which installs wrk) a missing wrk fails
pytestmark = pytest.mark.skipif(
    shutil.which("wrk") is None and not os.environ.get("CI"),
    reason="wrk is not installed (bench/setup.sh --smoke installs it)",
)


def test_bench_ab_smoke() -> None:
    cmd = [sys.executable, "-m", "bench.ab", "HEAD", ".", "--keys", "200", "--reps", "1",
           "--duration", "1", "--warmup", "0"]
    done = subprocess.run(cmd, cwd=REPO, env=PURE, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "| revision | req/s | ratio |" in done.stdout
    assert "| 0:HEAD |" in done.stdout and "| 1:. |" in done.stdout
    first = next(line for line in done.stdout.splitlines() if line.startswith("| 0:HEAD |"))
    assert first.split("|")[3].strip() == "1.00"  # the baseline against itself


def test_bench_ab_smoke_with_credentials() -> None:
    # every request signed for real: a refused one would be an error and exit 1
    cmd = [sys.executable, "-m", "bench.ab", "HEAD", ".", "--scenario", "A", "--reps", "1",
           "--duration", "1", "--warmup", "0", "--credentials", "limited"]
    done = subprocess.run(cmd, cwd=REPO, env=PURE, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "| 1:. |" in done.stdout


def test_bench_ab_smoke_signed_and_unsigned_in_one_run() -> None:
    cmd = [sys.executable, "-m", "bench.ab", ".", "--scenario", "A", "--reps", "1",
           "--duration", "1", "--warmup", "0", "--credentials", "full", "--unsigned-too"]
    done = subprocess.run(cmd, cwd=REPO, env=PURE, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "| 0:. unsigned |" in done.stdout and "| 0:. full |" in done.stdout
