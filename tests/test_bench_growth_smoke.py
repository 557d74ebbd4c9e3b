"""A seconds-long smoke run of bench/growth.py (the growth target).

Two tiny tables (200 and 2,000 items) built in-process, one `tallydb serve`
each, scenario B for 1 s on each through wrk: the run must finish with no
errors and print its table. It measures nothing worth reading.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# as tests/test_bench_smoke.py: in CI (which installs wrk) a missing wrk fails
pytestmark = pytest.mark.skipif(
    shutil.which("wrk") is None and not os.environ.get("CI"),
    reason="wrk is not installed (bench/setup.sh --smoke installs it)",
)


def test_bench_growth_smoke(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "bench.growth", "--sizes", "200,2000", "--duration", "1"]
    cmd += ["--reps", "1", "--warmup", "0", "--starts", "1", "--settle", "0",
            "--out", str(tmp_path)]
    cmd += ["--tmp", str(tmp_path / "data")]
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]

    assert "| items | build s |" in done.stdout
    assert "| 200 |" in done.stdout and "| 2,000 |" in done.stdout
    assert "| growth target | measured |" in done.stdout
    run = json.loads((tmp_path / "growth.json").read_text())
    assert [s["items"] for s in run["sizes"]] == [200, 2000]
    for size in run["sizes"]:
        assert size["rps"] > 0, size
        assert size["errors"] == 0, size
        assert size["startup_seconds"] > 0, size
    assert len(run["targets"]) == 3
    assert not list((tmp_path / "data").iterdir()), "the built data was not deleted"
