"""A 1-second smoke run of the benchmark harness against a real `tallydb serve`.

It keeps bench/ from rotting: every scenario (A-E) runs once at 8 connections
for 1 s through wrk, the exact-count check runs with 4 boto3 threads x 50,
and the run must finish with no errors. It measures nothing worth reading.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# CI installs wrk (.ci/run calls bench/setup.sh --smoke): there a missing wrk
# is a failure, not a skip, so the harness can't rot unseen.
pytestmark = pytest.mark.skipif(
    shutil.which("wrk") is None and not os.environ.get("CI"),
    reason="wrk is not installed (bench/setup.sh --smoke installs it)",
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def smoke_server(tmp_path: Path) -> Iterator[tuple[str, int]]:
    port = _free_port()
    log = tmp_path / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "tallydb", "serve", "--port", str(port), "--in-memory"],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    try:
        deadline = time.monotonic() + 30
        while True:
            if proc.poll() is not None:
                pytest.fail(f"tallydb serve exited {proc.returncode}: {log.read_text()[-2000:]}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"tallydb serve not listening after 30 s: {log.read_text()}")
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}", proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def test_bench_smoke(smoke_server: tuple[str, int], tmp_path: Path) -> None:
    url, pid = smoke_server
    out_dir = tmp_path / "results"
    cmd = [sys.executable, "-m", "bench.run", "--smoke", "--url", url, "--pid", str(pid)]
    cmd += ["--name", "tallydb", "--out", str(out_dir)]
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]

    run = json.loads((out_dir / "latest.json").read_text())
    server = run["servers"]["tallydb"]
    assert server["status"] == "measured"
    assert server["exact"]["ok"], server["exact"]
    assert [e["scenario"] for e in server["results"]] == list("ABCDE")
    for entry in server["results"]:
        assert entry["figure"] > 0, entry
        assert entry["errors"] == 0, entry
        assert entry["cpu_us_per_request"] is not None, entry
    assert "| A hot key ADD | 8 |" in (out_dir / "latest.md").read_text()
