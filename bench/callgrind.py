"""Instructions a whole Python process executes, counted by callgrind
(load-independent, so a busy machine gives the same figure as a quiet one)."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from collections import Counter
from pathlib import Path

#: A shared object's name (its file name's start) and what a table calls it.
LIBRARIES = (("libpython", "interpreter"), ("libc.", "libc"), ("parser.cpython", "httptools"),
             ("orjson", "orjson"), ("libsqlite3", "SQLite"), ("_sqlite3", "SQLite"),
             ("libz.", "zlib"))


def collected(arguments: list[str], env: dict[str, str], *, label: str = "",
              options: tuple[str, ...] = (), cwd: Path | None = None,
              keep: Path | None = None) -> int:
    """Run ``arguments`` (a command line) under callgrind with ``env`` and
    ``options`` (valgrind's, e.g. ``--instr-atstart=no``); return the
    instructions callgrind collected, or raise with the end of its output.
    ``keep``: where to copy callgrind's output file (``by_library`` reads it)."""
    with tempfile.TemporaryDirectory() as tmp:
        command = ["valgrind", "--tool=callgrind", *options,
                   f"--callgrind-out-file={Path(tmp) / 'out'}", *arguments]
        done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True,
                              check=False)
        if keep is not None and done.returncode == 0:
            shutil.copyfile(Path(tmp) / "out", keep)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise RuntimeError(f"{label}: callgrind failed:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def by_library(out: Path) -> Counter[str]:
    """The instructions of a callgrind output file by the shared object that
    executed them (each function's own, not its callees'), named as in
    ``LIBRARIES`` ("other" for the rest): they add up to the total collected."""
    names: dict[str, str] = {}
    totals: Counter[str] = Counter()
    library = "other"
    after_call = False  # the line after ``calls=`` is the callee's inclusive cost
    with out.open() as lines:
        for line in lines:
            first = line[:1]
            if first.isdigit() or first in "+-*":
                if after_call:
                    after_call = False
                elif len(parts := line.split()) >= 2:
                    totals[library] += int(parts[1])
            elif line.startswith(("ob=", "cob=")):
                # "ob=(3) /path" names object 3; "ob=(3)" refers to it again
                found = re.match(r"c?ob=(?:\((\d+)\))?\s*(.*)", line.rstrip("\n"))
                assert found is not None
                ident, path = found.groups()
                if ident is not None:
                    path = names.setdefault(ident, path) if path else names[ident]
                if line.startswith("ob="):
                    file = path.rsplit("/", 1)[-1]
                    library = next((name for start, name in LIBRARIES
                                    if file.startswith(start)), "other")
            elif line.startswith("calls="):
                after_call = True
    return totals
