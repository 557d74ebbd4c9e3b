"""What ``tallydb serve`` tells a person: how to stop it, and who holds a
data directory it cannot open."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from tallytest import TallyServer


@pytest.mark.parametrize("options", [(), ("--no-console",)])
def test_banner_ends_saying_how_to_stop(
    tallydb_server_factory: Callable[..., TallyServer], options: tuple[str, ...]
) -> None:
    server = tallydb_server_factory(in_memory=True, extra_args=options)
    deadline = time.monotonic() + 60
    while "Press Ctrl+C to stop." not in server.output and time.monotonic() < deadline:
        time.sleep(0.05)
    lines = list(server.output)
    assert lines.count("Press Ctrl+C to stop.") == 1
    assert lines.index("Press Ctrl+C to stop.") == (1 if options else 2)


def test_a_data_directory_in_use_is_one_line_naming_the_server(
    tallydb_server_factory: Callable[..., TallyServer], tmp_path: Path
) -> None:
    first = tallydb_server_factory(data=tmp_path / "data")
    assert first.proc is not None
    second = subprocess.run(
        [sys.executable, "-m", "tallydb", "serve", "--port", "0", "--data", str(tmp_path / "data")],
        capture_output=True, text=True, timeout=300,
    )
    assert second.returncode == 3
    assert second.stdout == ""
    (line,) = second.stderr.strip().splitlines()
    assert line.startswith(f"tallydb: StoreInUseError: the data directory {tmp_path / 'data'} "
                           "is in use by process "
                           f"{first.proc.pid} (tallydb serve")


def test_a_taken_port_names_its_process_before_anything_is_made(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import socket, sys; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen();"
         " print(s.getsockname()[1], flush=True); sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None
        port = int(holder.stdout.readline())
        data = tmp_path / "data"
        served = subprocess.run(
            [sys.executable, "-m", "tallydb", "serve", "--port", str(port), "--data", str(data)],
            capture_output=True, text=True, timeout=300,
        )
        assert served.returncode == 3
        assert served.stdout == ""
        (line,) = served.stderr.strip().splitlines()
        assert line.startswith(f"tallydb: PortInUseError: port {port} on 127.0.0.1 is in use by "
                               f"process {holder.pid} (")
        assert f"(--port {port + 1}; --port 0 picks a free one)" in line
        assert not data.exists()  # nothing was created
    finally:
        holder.kill()
        holder.wait()
