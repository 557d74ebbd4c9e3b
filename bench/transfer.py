"""Export and import: a table of N items to DynamoDB's S3 export format and back,
embedded, through ``tallydb serve`` and through DynamoDB Local, with the targets.

    .venv/bin/python -m bench.transfer                       # 1,000,000 items, all three
    .venv/bin/python -m bench.transfer --items 200000 --targets embedded,server

Builds an export of ``--items`` synthetic items (the shape of a video's
stats item: a string key pair, a counter, a title, a set), then runs the same
copy script on each target:

* ``import``: :func:`tallydb.transfer.import_table` of that export into a
  new table (creates it, BatchWriteItem in 25s);
* ``export``: :func:`tallydb.transfer.export_table` of the table back to
  DynamoDB's format (paged Scan, gzip);
* ``jsonl`` / ``csv`` export (with ``--all-formats``).

Targets: ``embedded`` (``tallydb.connect(path=...)``, what ``tallydb
import/export --data DIR`` use), ``server`` (a ``tallydb serve`` over HTTP,
what ``--endpoint`` uses) and ``ddblocal`` (DynamoDB Local ``-inMemory``, the
jar bench/setup.sh installs from npm, as ``bench.run`` uses it; skipped with
the reason when Java or the jar is missing; at most ``--ddblocal-items``,
its figures being per item). Beside items a second, CPU per
item on each side: this process (client; for ``embedded`` the whole engine)
and the server's process tree, from /proc. On a busy machine CPU per item is
the figure to trust: the targets are judged on the wall clock and, labelled,
on the rate the CPU per item allows (each side one core of its own).
Fewer than 1,000,000 items: the minute targets are extrapolated, and say so.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import orjson

import tallydb
from bench import procstat
from bench.servers import SPECS, RunningServer, ServerUnavailable
from tallydb import transfer


def stats_item(n: int) -> dict[str, object]:
    return {
        "PK": {"S": f"VID#{n // 10:07d}"},
        "SK": {"S": f"STATS#{n % 10}"},
        "play_count": {"N": str(n * 7 % 100_003)},
        "title": {"S": f"video number {n}"},
        "tags": {"SS": ["cats", f"t{n % 13}"]},
    }


def make_export(folder: Path, items: int) -> Path:
    """A DynamoDB-format export of ``items`` items, with its table description."""
    root = folder / "AWSDynamoDB" / "00000000000000-bench000"
    (root / "data").mkdir(parents=True)
    per_file = 250_000
    lines = []
    for start in range(0, max(items, 1), per_file):
        count = min(per_file, items - start)
        key = f"AWSDynamoDB/00000000000000-bench000/data/part{start // per_file}.json.gz"
        with gzip.open(folder / key, "wb", compresslevel=1) as out:
            out.writelines(orjson.dumps({"Item": stats_item(n)}) + b"\n"
                           for n in range(start, start + count))
        lines.append(orjson.dumps({"itemCount": count, "dataFileS3Key": key}))
    (root / "manifest-files.json").write_bytes(b"\n".join(lines) + b"\n")
    (root / "manifest-summary.json").write_text(json.dumps({"itemCount": items}))
    (root / transfer.DESCRIPTION_FILE).write_text(json.dumps({
        "TableName": "bench",
        "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
                      {"AttributeName": "SK", "KeyType": "RANGE"}],
        "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"},
                                 {"AttributeName": "SK", "AttributeType": "S"}],
        "BillingMode": "PAY_PER_REQUEST",
    }))
    return root


#: Through a server, each way.
SERVER_RATE = 50_000
#: 1,000,000 items imported and exported, seconds.
BOTH_WAYS = {"embedded": 60.0, "server": 120.0}
MILLION = 1_000_000
TARGETS = ("embedded", "server", "ddblocal")


@dataclass
class Step:
    target: str
    what: str
    items: int
    seconds: float
    client_cpu: float
    server_cpu: float | None

    @property
    def rate(self) -> float:
        return self.items / self.seconds

    @property
    def cpu_rate(self) -> float:
        """Items a second if each side had one core of its own."""
        busiest = max(self.client_cpu, self.server_cpu or 0.0)
        return self.items / busiest if busiest else float("inf")


def _us(cpu: float | None, items: int) -> str:
    return "-" if cpu is None else f"{cpu / items * 1e6:.1f}"


def _timed(target: str, what: str, items: int, run: Callable[[], object],
           server_pid: int | None) -> Step:
    server_before = procstat.cpu_seconds(server_pid) if server_pid else None
    cpu_before = time.process_time()
    started = time.perf_counter()
    result = run()
    seconds = time.perf_counter() - started
    client = time.process_time() - cpu_before
    server = (procstat.cpu_seconds(server_pid) - server_before
              if server_pid and server_before is not None else None)
    step = Step(target, what, items, seconds, client, server)
    # every item made it: the import's count, the export's manifest
    moved = result if isinstance(result, int) else (
        transfer.expected_items(result) if isinstance(result, Path) and what.endswith("dynamodb")
        else items)
    if moved != items:
        raise SystemExit(f"{what}, {target}: {moved} items moved, not {items}")
    print(f"| {what}, {target} | {items:,} | {seconds:.1f} | {step.rate:,.0f} "
          f"| {_us(client, items)} | {_us(server, items)} |", flush=True)
    return step


def _per_item(step: Step) -> float:
    return (step.server_cpu or 0.0) / step.items or 1e-9


def _verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def _report(steps: list[Step], items: int) -> None:
    by = {(s.target, s.what): s for s in steps}
    scale = MILLION / items
    label = "" if items >= MILLION else f" (extrapolated from {items:,} items)"
    print("\nTargets (machine load "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores):")
    for what in ("import", "export dynamodb"):
        step = by.get(("server", what))
        if step is None:
            continue
        print(f"- {what} through a server >= {SERVER_RATE:,} items/s: "
              f"{step.rate:,.0f} on the clock, {_verdict(step.rate >= SERVER_RATE)}; "
              f"{step.cpu_rate:,.0f} by CPU per item (client "
              f"{_us(step.client_cpu, step.items)} us, server "
              f"{_us(step.server_cpu, step.items)} us), "
              f"{_verdict(step.cpu_rate >= SERVER_RATE)}")
    for target, limit in BOTH_WAYS.items():
        pair = [by.get((target, w)) for w in ("import", "export dynamodb")]
        if None in pair:
            continue
        clock = sum(s.seconds for s in pair if s) * scale
        cpu = sum(s.items / s.cpu_rate for s in pair if s) * scale
        print(f"- 1,000,000 items both ways {target} < {limit:.0f} s{label}: "
              f"{clock:.0f} s on the clock, {_verdict(clock < limit)}; "
              f"{cpu:.0f} s by CPU per item, {_verdict(cpu < limit)}")
    for what in ("import", "export dynamodb"):
        ours, theirs = by.get(("server", what)), by.get(("ddblocal", what))
        if ours and theirs:
            print(f"- {what}, tallydb serve against DynamoDB Local on the same script: "
                  f"{ours.rate / theirs.rate:.1f}x the items/s, "
                  f"{_per_item(theirs) / _per_item(ours):.1f}x less server CPU per item")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=MILLION)
    parser.add_argument("--targets", default=",".join(TARGETS),
                        help=f"comma-separated, of {', '.join(TARGETS)}")
    parser.add_argument("--ddblocal-items", type=int, default=50_000,
                        help="at most this many items on DynamoDB Local (it takes about "
                             "15x tallydb's CPU per item; its figures are per item)")
    parser.add_argument("--all-formats", action="store_true", help="also jsonl and csv exports")
    args = parser.parse_args()
    targets = [t for t in args.targets.split(",") if t]
    if unknown := set(targets) - set(TARGETS):
        parser.error(f"unknown targets {sorted(unknown)}: of {', '.join(TARGETS)}")
    steps: list[Step] = []
    with tempfile.TemporaryDirectory(prefix="bench-transfer-") as tmp:
        base = Path(tmp)
        source = make_export(base / "source", args.items)
        print("| step | items | seconds | items/s | client CPU us/item | server CPU us/item |\n"
              "|---|---:|---:|---:|---:|---:|")
        for target in targets:
            items = min(args.items, args.ddblocal_items) if target == "ddblocal" else args.items
            made = source if items == args.items else make_export(base / f"source-{items}", items)
            with ExitStack() as stack:
                pid: int | None = None
                if target == "embedded":
                    db = tallydb.connect(path=base / "data-embedded")
                else:
                    spec = SPECS["tallydb" if target == "server" else "ddblocal-memory"]
                    try:
                        server = stack.enter_context(RunningServer(spec))
                    except ServerUnavailable as why:
                        print(f"| {target}: skipped, {why} | | | | | |", flush=True)
                        continue
                    db, pid = tallydb.connect(server.url), server.pid
                stack.callback(db.close)
                steps.append(_timed(target, "import", items,
                                    partial(transfer.import_table, db, made, "bench"), pid))
                steps.append(_timed(
                    target, "export dynamodb", items,
                    partial(transfer.export_table, db, "bench", base / f"out-{target}"), pid))
                for fmt in ("jsonl", "csv") if args.all_formats else ():
                    folder = base / f"out-{target}-{fmt}"
                    steps.append(_timed(
                        target, f"export {fmt}", items,
                        partial(transfer.export_table, db, "bench", folder, format=fmt), pid))
    _report(steps, args.items)


if __name__ == "__main__":
    main()
    sys.stdout.flush()
