"""Export and import: a table of N items to DynamoDB's S3 export format and back.

    .venv/bin/python -m bench.transfer                     # 1,000,000 items, embedded
    .venv/bin/python -m bench.transfer --items 20000 --server

Builds an export of ``--items`` synthetic items (the shape of a video's
stats item: a string key pair, a counter, a title, a set), then times, on a
fresh embedded data directory (``tallydb.connect(path=...)``, what
``tallydb import/export --data DIR`` use):

* ``import``: :func:`tallydb.transfer.import_table` of that export into a
  new table (creates it, BatchWriteItem in 25s);
* ``export``: :func:`tallydb.transfer.export_table` of the table back to
  DynamoDB's format (paged Scan, gzip);
* ``jsonl`` / ``csv`` export (with ``--all-formats``).

With ``--server`` the same against a ``tallydb serve`` on the same machine
(``--endpoint``), over HTTP. Prints items a second for each.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from functools import partial
from pathlib import Path

import orjson

import tallydb
from tallydb import transfer


def _item(n: int) -> dict[str, object]:
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
            out.writelines(orjson.dumps({"Item": _item(n)}) + b"\n"
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


@contextmanager
def _server(data: Path) -> Iterator[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tallydb", "serve", "--port", "0", "--data", str(data)],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        yield line.split()[3]
    finally:
        proc.terminate()
        proc.wait(30)


def _timed(what: str, items: int, run: Callable[[], object]) -> float:
    started = time.perf_counter()
    run()
    seconds = time.perf_counter() - started
    print(f"| {what} | {items:,} | {seconds:.1f} | {items / seconds:,.0f} |", flush=True)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--server", action="store_true",
                        help="also against tallydb serve over HTTP")
    parser.add_argument("--all-formats", action="store_true", help="also jsonl and csv exports")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-transfer-") as tmp:
        base = Path(tmp)
        source = make_export(base / "source", args.items)
        print("| step | items | seconds | items/s |\n|---|---:|---:|---:|")
        targets = ["embedded"] + (["server"] if args.server else [])
        for target in targets:
            with ExitStack() as stack:
                data = base / f"data-{target}"
                if target == "embedded":
                    db = tallydb.connect(path=data)
                else:
                    db = tallydb.connect(stack.enter_context(_server(data)))
                stack.callback(db.close)
                _timed(f"import, {target}", args.items,
                       partial(transfer.import_table, db, source, "bench"))
                _timed(f"export dynamodb, {target}", args.items,
                       partial(transfer.export_table, db, "bench", base / f"out-{target}"))
                for fmt in ("jsonl", "csv") if args.all_formats else ():
                    folder = base / f"out-{target}-{fmt}"
                    _timed(f"export {fmt}, {target}", args.items,
                           partial(transfer.export_table, db, "bench", folder, format=fmt))

if __name__ == "__main__":
    main()
