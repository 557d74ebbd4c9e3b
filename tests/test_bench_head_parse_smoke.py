"""A smoke run of bench/head_parse.py's readers, without callgrind: each
reads each shape of head into the headers and body httptools reads."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bench.head_parse import CHILD, READERS, SHAPES


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("shape", SHAPES)
def test_bench_head_parse_readers_agree(reader: str, shape: str) -> None:
    done = subprocess.run([sys.executable, "-c", CHILD, reader, shape, "20", "1"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "read 20 requests, as httptools reads them" in done.stdout
