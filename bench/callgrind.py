"""Instructions a whole Python process executes, counted by callgrind
(load-independent, so a busy machine gives the same figure as a quiet one)."""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path


def collected(arguments: list[str], env: dict[str, str], *, label: str = "",
              options: tuple[str, ...] = (), cwd: Path | None = None) -> int:
    """Run ``arguments`` (a command line) under callgrind with ``env`` and
    ``options`` (valgrind's, e.g. ``--instr-atstart=no``); return the
    instructions callgrind collected, or raise with the end of its output."""
    with tempfile.TemporaryDirectory() as tmp:
        command = ["valgrind", "--tool=callgrind", *options,
                   f"--callgrind-out-file={Path(tmp) / 'out'}", *arguments]
        done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True,
                              check=False)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise RuntimeError(f"{label}: callgrind failed:\n{done.stderr[-2000:]}")
    return int(found.group(1))
