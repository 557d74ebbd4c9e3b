"""INCREMENTAL_EXPORT, and a FULL_EXPORT of an earlier ExportTime: both read
point-in-time recovery's history. Through boto3 against a real ``tallydb
serve`` and in-process."""

from __future__ import annotations

import gzip
import json
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError
from exportkit import enable_recovery, wait_export
from tallytest import Backend

BUCKET = "incremental-bucket"


def _root(backend: Backend) -> Path:
    if backend.name == "server":
        return Path(backend.server.data) / "s3" / BUCKET  # type: ignore[attr-defined]
    return Path(backend.engine.integrations.objects.root) / BUCKET  # type: ignore[attr-defined]


def _next_second() -> int:
    """Wait for the next whole second of the clock; that second."""
    second = math.floor(time.time()) + 1
    while time.time() < second:
        time.sleep(0.01)
    return second


def _lines(root: Path, description: dict[str, Any]) -> list[dict[str, Any]]:
    summary = json.loads((root / description["ExportManifest"]).read_text())
    lines = []
    for entry in (root / summary["manifestFilesS3Key"]).read_text().splitlines():
        data = gzip.decompress((root / json.loads(entry)["dataFileS3Key"]).read_bytes())
        lines += [json.loads(line) for line in data.splitlines() if line.strip()]
    return lines


def _put(ddb: Any, table: str, key: str, n: int) -> None:
    ddb.put_item(TableName=table, Item={"PK": {"S": key}, "n": {"N": str(n)}})


def _add(ddb: Any, table: str, key: str) -> None:
    ddb.update_item(TableName=table, Key={"PK": {"S": key}}, UpdateExpression="ADD n :one",
                    ExpressionAttributeValues={":one": {"N": "1"}})


@pytest.mark.parametrize("view", ["NEW_AND_OLD_IMAGES", "NEW_IMAGE"])
def test_an_incremental_export_holds_exactly_the_changes_between_two_times(
    backend: Backend, make_table: Callable[..., str], view: str,
) -> None:
    ddb = backend.client()
    table = make_table("changes")
    arn = enable_recovery(ddb, table)
    for key in ("a0", "a1", "a2", "a3"):
        _put(ddb, table, key, 0)
    start = _next_second()
    _add(ddb, table, "a0")
    _add(ddb, table, "a0")
    ddb.delete_item(TableName=table, Key={"PK": {"S": "a1"}})
    _put(ddb, table, "b0", 7)
    _put(ddb, table, "b1", 8)
    ddb.delete_item(TableName=table, Key={"PK": {"S": "b1"}})  # made and gone: no change
    end = _next_second()
    _add(ddb, table, "a0")  # after the window
    _add(ddb, table, "a2")
    _put(ddb, table, "c0", 9)

    started = ddb.export_table_to_point_in_time(
        TableArn=arn, S3Bucket=BUCKET, S3Prefix="inc", ExportType="INCREMENTAL_EXPORT",
        IncrementalExportSpecification={"ExportFromTime": start, "ExportToTime": end,
                                        "ExportViewType": view},
    )["ExportDescription"]
    assert started["ExportType"] == "INCREMENTAL_EXPORT"
    done = wait_export(ddb, started["ExportArn"])
    assert done["ExportStatus"] == "COMPLETED", done
    assert done["ItemCount"] == 3
    root = _root(backend)
    summary = json.loads((root / done["ExportManifest"]).read_text())
    assert summary["exportType"] == "INCREMENTAL_EXPORT" and summary["outputView"] == view
    lines = {line["Keys"]["PK"]["S"]: line for line in _lines(root, done)}
    assert sorted(lines) == ["a0", "a1", "b0"]
    for line in lines.values():
        micros = int(line["Metadata"]["WriteTimestampMicros"]["N"])
        assert start * 1_000_000 <= micros < end * 1_000_000
    assert lines["a0"]["NewImage"] == {"PK": {"S": "a0"}, "n": {"N": "2"}}
    assert "NewImage" not in lines["a1"]
    assert lines["b0"]["NewImage"] == {"PK": {"S": "b0"}, "n": {"N": "7"}}
    assert "OldImage" not in lines["b0"]
    if view == "NEW_AND_OLD_IMAGES":
        assert lines["a0"]["OldImage"] == {"PK": {"S": "a0"}, "n": {"N": "0"}}
        assert lines["a1"]["OldImage"] == {"PK": {"S": "a1"}, "n": {"N": "0"}}
    else:
        assert all("OldImage" not in line for line in lines.values())
    data_key = json.loads((root / summary["manifestFilesS3Key"]).read_text().splitlines()[0])
    assert data_key["dataFileS3Key"].startswith("inc/AWSDynamoDB/data/")


def test_a_full_export_of_an_earlier_time_holds_the_table_as_it_was(
    backend: Backend, make_table: Callable[..., str],
) -> None:
    ddb = backend.client()
    table = make_table("earlier")
    arn = enable_recovery(ddb, table)
    _put(ddb, table, "kept", 1)
    _put(ddb, table, "changed", 1)
    _put(ddb, table, "deleted", 1)
    then = _next_second()
    _add(ddb, table, "changed")
    ddb.delete_item(TableName=table, Key={"PK": {"S": "deleted"}})
    _put(ddb, table, "added", 1)
    _next_second()
    _next_second()
    started = ddb.export_table_to_point_in_time(TableArn=arn, S3Bucket=BUCKET, ExportTime=then)
    done = wait_export(ddb, started["ExportDescription"]["ExportArn"])
    assert done["ExportStatus"] == "COMPLETED", done
    items = {line["Item"]["PK"]["S"]: line["Item"]["n"]["N"]
             for line in _lines(_root(backend), done)}
    assert items == {"kept": "1", "changed": "1", "deleted": "1"}


def test_incremental_refusals(backend: Backend, make_table: Callable[..., str]) -> None:
    ddb = backend.client()
    table = make_table("badwindow")
    arn = enable_recovery(ddb, table)
    now = _next_second()  # (the history begins with the first whole second after)
    cases: list[tuple[dict[str, Any], str]] = [
        ({"ExportType": "INCREMENTAL_EXPORT"}, "ValidationException"),
        ({"ExportType": "INCREMENTAL_EXPORT",
          "IncrementalExportSpecification": {"ExportFromTime": now - 10 * 86_400}},
         "InvalidExportTimeException"),
        ({"ExportType": "INCREMENTAL_EXPORT",
          "IncrementalExportSpecification": {"ExportFromTime": now, "ExportToTime": now}},
         "ValidationException"),
        ({"IncrementalExportSpecification": {"ExportFromTime": now}}, "ValidationException"),
    ]
    for extra, code in cases:
        with pytest.raises(ClientError) as info:
            ddb.export_table_to_point_in_time(TableArn=arn, S3Bucket=BUCKET, **extra)
        assert info.value.response["Error"]["Code"] == code, extra
