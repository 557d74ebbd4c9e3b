"""bench/callgrind.py's split of a callgrind output file by shared object:
each function's own instructions counted once, under the object it ran in,
with callgrind's name compression and its call lines (a callee's inclusive
cost, not the caller's) read as callgrind writes them."""

from __future__ import annotations

from pathlib import Path

from bench.callgrind import by_library

OUT = """\
version: 1
creator: callgrind-3.19.0
events: Ir
summary: 1111

ob=(1) /usr/lib/libpython3.11.so.1.0
fl=(1) ceval.c
fn=(1) _PyEval_EvalFrameDefault
10 500
+2 100
cob=(2) /usr/lib/x86_64-linux-gnu/libsqlite3.so.0.8.6
cfl=(2) sqlite3.c
cfn=(2) sqlite3_step
calls=3 0
* 300
-1 10

ob=(2)
fl=(2)
fn=(2)
20 300

ob=(3) /site-packages/orjson/orjson.cpython-311-x86_64-linux-gnu.so
fl=(3) ???
fn=(3) 0x284f0
0 1
ob=(4) /usr/lib/libfoo.so
fl=(3)
fn=(4) foo
0 200
"""


def test_each_function_counts_under_its_object_and_calls_are_not_counted_twice(
        tmp_path: Path) -> None:
    out = tmp_path / "callgrind.out"
    out.write_text(OUT)
    found = by_library(out)
    assert found == {"interpreter": 610, "SQLite": 300, "orjson": 1, "other": 200}
    assert sum(found.values()) == 1111  # the summary: nothing lost or counted twice
