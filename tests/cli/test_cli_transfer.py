"""``tallydb export`` then ``tallydb import``: every attribute type comes back
exactly, and the export is laid out as DynamoDB's export to S3 is."""

from __future__ import annotations

import gzip
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from cli_store import Store

EVERY_TYPE: dict[str, Any] = {
    "PK": "VID#9f3a",
    "SK": "META",
    "title": "Cats ünïcode",
    "plays": 12345678901234567890123456789012345678,
    "ratio": Decimal("0.1000000000000000000000000000000000001"),
    "tiny": Decimal("1E-130"),
    "blob": b"\x00\xffbinary",
    "live": True,
    "gone": None,
    "tags": {"cats", "funny"},
    "scores": {1, Decimal("2.5"), -3},
    "blobs": {b"a", b"\x00"},
    "list": [1, "two", None, [b"x"], {"deep": {"deeper": Decimal("-0.5")}}],
    "map": {"empty": {}, "nested": {"list": [], "s": ""}},
}


def _fill(store: Store, table: str, count: int) -> None:
    with store.connect() as db:
        videos = db.table(table)
        videos.put(EVERY_TYPE)
        for n in range(count):
            videos.put({"PK": f"VID#{n % 7}", "SK": f"STATS#{n:04d}", "plays": n})


def test_export_then_import_round_trips_every_type(store: Store, tmp_path: Path) -> None:
    table = store.table()
    _fill(store, table, 60)
    store.ok("export", table, str(tmp_path / "out"))
    copy = table + "-copy"
    store.ok("import", str(tmp_path / "out"), copy)
    assert store.items(copy) == store.items(table)
    assert EVERY_TYPE in store.items(copy)
    with store.connect() as db:
        assert db.table(copy).describe()["KeySchema"] == db.table(table).describe()["KeySchema"]


def test_export_is_dynamodbs_s3_layout(store: Store, tmp_path: Path) -> None:
    # DynamoDB's export format, as AWS documents it ("DynamoDB table export
    # output format"): AWSDynamoDB/<ExportId>/ holds manifest-summary.json,
    # manifest-files.json (a JSON object per data file, with its S3 key and
    # item count) and data/*.json.gz, each line one {"Item": {...}} in
    # DynamoDB JSON.
    table = store.table()
    _fill(store, table, 20)
    store.ok("export", table, str(tmp_path / "out"))
    (folder,) = (tmp_path / "out" / "AWSDynamoDB").iterdir()
    summary = json.loads((folder / "manifest-summary.json").read_text())
    assert summary["outputFormat"] == "DYNAMODB_JSON"
    assert summary["itemCount"] == 21
    assert summary["manifestFilesS3Key"] == f"AWSDynamoDB/{folder.name}/manifest-files.json"
    entries = [json.loads(line) for line in (folder / "manifest-files.json").read_text().split()]
    assert sum(e["itemCount"] for e in entries) == 21
    lines = []
    for entry in entries:
        path = tmp_path / "out" / entry["dataFileS3Key"]
        assert path.name.endswith(".json.gz") and path.parent.name == "data"
        lines += gzip.decompress(path.read_bytes()).decode().splitlines()
    items = [json.loads(line) for line in lines]
    assert all(list(item) == ["Item"] for item in items)
    (meta,) = [i["Item"] for i in items if i["Item"]["SK"] == {"S": "META"}]
    assert meta["blob"] == {"B": "AP9iaW5hcnk="}
    assert meta["plays"] == {"N": "12345678901234567890123456789012345678"}
    assert meta["gone"] == {"NULL": True}


def test_import_of_an_aws_export_needs_the_key(store: Store, tmp_path: Path) -> None:
    # An export made by AWS has no table-description.json: the key is given.
    table = store.table()
    _fill(store, table, 5)
    store.ok("export", table, str(tmp_path / "out"))
    (folder,) = (tmp_path / "out" / "AWSDynamoDB").iterdir()
    (folder / "table-description.json").unlink()
    result = store.run("import", str(folder), table + "-a")
    assert result.exit_code == 1
    assert "--hash-key" in result.stderr
    store.ok("import", str(folder), table + "-a", "--hash-key", "PK:S", "--range-key", "SK")
    assert store.items(table + "-a") == store.items(table)


def test_jsonl_and_csv_round_trip_plain_values(store: Store, tmp_path: Path) -> None:
    table = store.table()
    with store.connect() as db:
        for n in range(10):
            db.table(table).put({"PK": f"p{n}", "SK": "s", "title": f"video {n}"})
    for format, file in (("jsonl", "items.jsonl"), ("csv", "items.csv")):
        store.ok("export", table, str(tmp_path / format), "--format", format)
        assert (tmp_path / format / file).is_file()
        store.ok("import", str(tmp_path / format), f"{table}-{format}")
        assert store.items(f"{table}-{format}") == store.items(table)


def test_import_into_an_existing_table_adds_to_it(store: Store, tmp_path: Path) -> None:
    table = store.table()
    _fill(store, table, 3)
    store.ok("export", table, str(tmp_path / "out"))
    other = store.table()
    store.ok("put", other, '{"PK": "already", "SK": "here"}')
    store.ok("import", str(tmp_path / "out"), other)
    assert len(store.items(other)) == 5


def test_import_of_a_folder_without_an_export_is_one_line(store: Store, tmp_path: Path) -> None:
    result = store.run("import", str(tmp_path), "t")
    assert result.exit_code == 1
    assert "holds no export" in result.stderr


def test_an_item_the_table_refuses_is_dynamodbs_error_in_one_line(
    store: Store, tmp_path: Path
) -> None:
    table = store.table()
    (tmp_path / "items.jsonl").write_text('{"PK": "a", "SK": "1"}\n{"PK": "b"}\n')
    result = store.run("import", str(tmp_path / "items.jsonl"), table, "--quiet")
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("tallydb: ValidationException: ")
    assert "key" in lines[0]
