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
        capture_output=True, text=True, timeout=60,
    )
    assert second.returncode == 1
    assert second.stdout == ""
    (line,) = second.stderr.strip().splitlines()
    assert line.startswith(f"Error: the data directory {tmp_path / 'data'} is in use by process "
                           f"{first.proc.pid} (tallydb serve")
