"""DynamoDB's own export format: what ``ExportTableToPointInTime`` writes
to S3 and ``ImportTable`` reads (``DYNAMODB_JSON``, ``GZIP``), as AWS
documents it ("DynamoDB table export output format")::

    DIR/AWSDynamoDB/<ExportId>/manifest-summary.json   the export's summary
    DIR/AWSDynamoDB/<ExportId>/manifest-files.json     one line per data file
    DIR/AWSDynamoDB/<ExportId>/data/<name>.json.gz     {"Item": {...}} per line
    DIR/AWSDynamoDB/<ExportId>/_started, *.md5

Keys in the manifests are S3 keys, relative to DIR as to a bucket. The
layout is written by the engine's own code (``engine/export_layout``),
the one ExportTableToPointInTime writes a bucket with.
"""

from __future__ import annotations

import gzip
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from tallydb.engine.export_layout import (
    SUMMARY,
    DataWriter,
    export_id,
    export_prefix,
    timestamp,
    write_manifests,
)
from tallydb.engine.objects import Directory
from tallydb.transfer.errors import Progress, TransferError
from tallydb.transfer.items import pages

if TYPE_CHECKING:
    from tallydb.toolkit.database import Database

__all__ = ["ITEMS_PER_FILE", "SUMMARY", "export", "find_exports", "item_count", "read_puts"]

#: Items per gzip file.
ITEMS_PER_FILE = 250_000


def export(
    db: Database, description: dict[str, Any], directory: Path, progress: Progress
) -> Path:
    """Write every item of the table under ``directory`` as the engine's
    ExportTableToPointInTime writes a bucket (the same layout code: the
    directory is the bucket)."""
    started = time.time()
    export = export_id(started)
    root = directory.resolve()
    objects, bucket = Directory(root.parent), root.name
    folder = export_prefix(None, export)
    objects.put(bucket, f"{folder}/_started", b"")
    writer = DataWriter(objects, bucket, folder, "DYNAMODB_JSON", ITEMS_PER_FILE)
    for page in pages(db, description["TableName"]):
        writer.write([b'{"Item":' + orjson.dumps(item) + b"}\n" for item in page], len(page))
        progress(writer.total)
    entries = writer.finish()
    table_arn = description.get("TableArn", f"arn:aws:dynamodb:::table/{description['TableName']}")
    summary = {
        "version": "2020-06-30",
        "exportArn": f"{table_arn}/export/{export}",
        "startTime": timestamp(started),
        "endTime": timestamp(time.time()),
        "tableArn": table_arn,
        "tableId": description.get("TableId", ""),
        "exportTime": timestamp(started),
        "s3Bucket": "",
        "s3Prefix": None,
        "s3SseAlgorithm": "AES256",
        "s3SseKmsKeyId": None,
        "billedSizeBytes": 0,
        "itemCount": writer.total,
        "outputFormat": "DYNAMODB_JSON",
        "exportType": "FULL_EXPORT",
    }
    write_manifests(objects, bucket, folder, entries, summary)
    return directory / folder


def find_exports(directory: Path) -> list[Path]:
    """The export folders in ``directory``: itself, or its AWSDynamoDB/<ExportId>."""
    if (directory / SUMMARY).is_file():
        return [directory]
    return sorted(p.parent for p in (directory / "AWSDynamoDB").glob(f"*/{SUMMARY}"))


def item_count(folder: Path) -> int | None:
    """The item count an export's summary gives, if any."""
    try:
        count = json.loads((folder / SUMMARY).read_text()).get("itemCount")
    except (OSError, ValueError, AttributeError):
        return None
    return count if isinstance(count, int) else None


def _data_files(folder: Path) -> Iterator[Path]:
    """The data files ``manifest-files.json`` names, found as S3 keys below
    the folder's root, or else by name in its data/ folder."""
    root = folder.parent.parent if folder.parent.name == "AWSDynamoDB" else folder
    manifest = folder / "manifest-files.json"
    if not manifest.is_file():
        raise TransferError(f"{folder} has manifest-summary.json but no manifest-files.json")
    for line in manifest.read_text().splitlines():
        if not line.strip():
            continue
        key = json.loads(line)["dataFileS3Key"]
        for candidate in (root / key, folder / "data" / Path(key).name):
            if candidate.is_file():
                yield candidate
                break
        else:
            raise TransferError(f"the data file {key} named in {manifest} is missing")


def read_puts(folder: Path) -> Iterator[bytes]:
    """Every item of the export in ``folder`` as a PutRequest's JSON,
    ``{"Item":{...}}``: the export's own line, unparsed, when it starts as
    AWS and ``tallydb export`` write them (a member after the item goes
    along in the PutRequest, where tallydb's BatchWriteItem ignores it)."""
    for path in _data_files(folder):
        with gzip.open(path, "rb") as lines:
            for line in lines:
                line = line.strip()
                if not line:
                    continue
                if line.startswith(b'{"Item":{') and line.endswith(b"}}") and (
                    line.count(b'"Item"') == 1
                ):
                    yield line
                else:
                    yield orjson.dumps({"Item": orjson.loads(line)["Item"]})
