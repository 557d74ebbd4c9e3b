"""A smoke run of bench/path_instructions.py's workload (the server's path
for a request, as each callgrind process runs it), without callgrind: every
scenario at group commits of one and of four requests, on this tree, must
run every request it is fed. It measures nothing worth reading."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.path_instructions import CHILD

REPO = Path(__file__).resolve().parents[1]
WARM_UP = 50  # turns the workload runs before the measured ones


@pytest.mark.parametrize("scenario", ["A", "B", "C"])
@pytest.mark.parametrize("conns", [1, 4])
def test_bench_path_instructions_workload(scenario: str, conns: int) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    done = subprocess.run([sys.executable, "-c", CHILD, scenario, str(conns), "3"], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert f"ran {(WARM_UP + 3) * conns} requests" in done.stdout
