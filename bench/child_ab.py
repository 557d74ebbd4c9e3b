"""Revisions measured in turns by one child script each, and their ratio table.

``bench.embedded_ab`` and ``bench.pipeline_ab`` differ only in the script
their children run (``CHILD``, which prints one JSON object of µs figures on
its last line); this module exports each revision's ``src/``, runs the
children in turns and prints every figure's median and its median ratio to
the first revision's in the same turn.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.ab import export_src


def main(prog: str, description: str, child: str, per: str,
         argv: list[str] | None = None) -> int:
    """Parse ``revs --reps --calls``, run ``child`` for each revision in turns, print."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("revs", nargs="+", help="git revisions; '.' is the working tree")
    parser.add_argument("--reps", type=int, default=5, help="turns (median)")
    parser.add_argument("--calls", type=int, default=20_000, help=f"{per}s per measurement")
    args = parser.parse_args(argv)
    names = [f"{i}:{rev}" for i, rev in enumerate(args.revs)]
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in names}
    with tempfile.TemporaryDirectory(prefix=f"tallydb-{prog.rsplit('.', 1)[-1]}-") as tmp:
        srcs = [export_src(rev, Path(tmp) / str(i)) for i, rev in enumerate(args.revs)]
        for _ in range(args.reps):
            for name, src in zip(names, srcs, strict=True):
                code = f"import sys; sys.path[:0] = [{str(src)!r}]\n" + child
                done = subprocess.run([sys.executable, "-c", code, str(args.calls)],
                                      capture_output=True, text=True, check=True)
                runs[name].append(json.loads(done.stdout.strip().splitlines()[-1]))
    rows = list(runs[names[0]][0])
    print(f"CPU µs per {per}, median of {args.reps} turns (ratio to {names[0]} in each turn)")
    print("| revision | " + " | ".join(rows) + " |")
    print("|---|" + "---:|" * len(rows))
    for name in names:
        cells = []
        for row in rows:
            mine = [run[row] for run in runs[name]]
            ratios = [m / base[row] for m, base in zip(mine, runs[names[0]], strict=True)]
            cells.append(f"{statistics.median(mine):.2f} ({statistics.median(ratios):.2f}x)")
        print(f"| {name} | " + " | ".join(cells) + " |")
    return 0
