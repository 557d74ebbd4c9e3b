"""docs/global-counters.md runs as written against a real `tallydb serve
--separate-regions` and prints what its comments say: the lost increment
on a global table (a count below 2,000, the same in both regions) and its
cure (RegionalCounter: 2,000)."""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

PAGE = Path(__file__).resolve().parents[1] / "docs" / "global-counters.md"
#: A print and the comment saying what it prints (a remark in brackets aside).
PRINTED = re.compile(r"^\s*print\(.*\)\s+# (.*?)(?:\s+\(.*\))?$")


def test_the_page_runs_and_prints_what_it_says(
        tallydb_server_factory: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    server = tallydb_server_factory(in_memory=True, extra_args=(
        "--separate-regions", "--replication-delay", "0.3"))
    monkeypatch.setenv("TALLYDB_ENDPOINT", server.url)
    (program,) = re.findall(r"```python\n(.*?)```", PAGE.read_text(), re.S)
    expected = [m.group(1).strip() for line in program.splitlines()
                if (m := PRINTED.match(line))]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(program, str(PAGE), "exec", dont_inherit=True), {"__name__": "page"})
    assert out.getvalue().splitlines() == expected
    assert expected == ["['eu-west-1']", "True", "2000", "{'eu-west-1': 1000, 'us-east-1': 1000}"]
