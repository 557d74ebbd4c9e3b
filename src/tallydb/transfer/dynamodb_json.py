"""DynamoDB's own export format: what ``ExportTableToPointInTime`` writes
to S3 and ``ImportTable`` reads (``DYNAMODB_JSON``, ``GZIP``), as AWS
documents it ("DynamoDB table export output format")::

    DIR/AWSDynamoDB/<ExportId>/manifest-summary.json   the export's summary
    DIR/AWSDynamoDB/<ExportId>/manifest-files.json     one line per data file
    DIR/AWSDynamoDB/<ExportId>/data/<name>.json.gz     {"Item": {...}} per line
    DIR/AWSDynamoDB/<ExportId>/_started, *.md5

Keys in the manifests are S3 keys, relative to DIR as to a bucket.
"""

from __future__ import annotations

import base64
import datetime as dt
import gzip
import hashlib
import io
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from tallydb.transfer.errors import Progress, TransferError
from tallydb.transfer.items import pages

if TYPE_CHECKING:
    from tallydb.toolkit.database import Database

__all__ = ["ITEMS_PER_FILE", "SUMMARY", "export", "find_exports", "item_count", "read_items"]

#: Items per gzip file.
ITEMS_PER_FILE = 250_000
SUMMARY = "manifest-summary.json"


def _md5_base64(data: bytes) -> str:
    return base64.b64encode(hashlib.md5(data).digest()).decode("ascii")


def _timestamp(moment: dt.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def export(
    db: Database, description: dict[str, Any], directory: Path, progress: Progress
) -> Path:
    started = dt.datetime.now(dt.UTC)
    export_id = f"{int(started.timestamp() * 1000):014d}-{uuid.uuid4().hex[:8]}"
    prefix = f"AWSDynamoDB/{export_id}"
    folder = directory / prefix
    (folder / "data").mkdir(parents=True)
    (folder / "_started").touch()
    files: list[dict[str, Any]] = []
    total = 0

    def close(buffer: io.BytesIO, count: int) -> None:
        key = f"{prefix}/data/{uuid.uuid4().hex[:26]}.json.gz"
        data = buffer.getvalue()
        (directory / key).write_bytes(data)
        md5 = hashlib.md5(data)
        files.append(
            {
                "itemCount": count,
                "md5Checksum": base64.b64encode(md5.digest()).decode("ascii"),
                "etag": md5.hexdigest(),
                "dataFileS3Key": key,
            }
        )

    buffer, count = io.BytesIO(), 0
    out = gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=6, mtime=0)
    for page in pages(db, description["TableName"]):
        out.write(b"".join(orjson.dumps({"Item": item}) + b"\n" for item in page))
        count += len(page)
        total += len(page)
        if count >= ITEMS_PER_FILE:
            out.close()
            close(buffer, count)
            buffer, count = io.BytesIO(), 0
            out = gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=6, mtime=0)
        progress(total)
    out.close()
    if count or not files:
        close(buffer, count)

    manifest_files = b"".join(orjson.dumps(entry) + b"\n" for entry in files)
    (folder / "manifest-files.json").write_bytes(manifest_files)
    (folder / "manifest-files.md5").write_text(_md5_base64(manifest_files))
    table_arn = description.get("TableArn", f"arn:aws:dynamodb:::table/{description['TableName']}")
    summary = {
        "version": "2020-06-30",
        "exportArn": f"{table_arn}/export/{export_id}",
        "startTime": _timestamp(started),
        "endTime": _timestamp(dt.datetime.now(dt.UTC)),
        "tableArn": table_arn,
        "tableId": description.get("TableId", ""),
        "exportTime": _timestamp(started),
        "s3Bucket": "",
        "s3Prefix": None,
        "s3SseAlgorithm": "AES256",
        "s3SseKmsKeyId": None,
        "manifestFilesS3Key": f"{prefix}/manifest-files.json",
        "billedSizeBytes": 0,
        "itemCount": total,
        "outputFormat": "DYNAMODB_JSON",
        "exportType": "FULL_EXPORT",
    }
    summary_bytes = orjson.dumps(summary)
    (folder / "manifest-summary.json").write_bytes(summary_bytes)
    (folder / "manifest-summary.md5").write_text(_md5_base64(summary_bytes))
    return folder


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


def read_items(folder: Path) -> Iterator[dict[str, Any]]:
    """Every item of the export in ``folder``, in DynamoDB's JSON."""
    for path in _data_files(folder):
        with gzip.open(path, "rb") as lines:
            for line in lines:
                if line.strip():
                    yield orjson.loads(line)["Item"]
