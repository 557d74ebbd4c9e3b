"""StartBulkPutItems, DescribeBulkOperation, ListBulkOperations and
CancelBulkOperation, through boto3 against a real ``tallydb serve`` and
in-process, with the objects in the default directory per bucket."""

from __future__ import annotations

import gzip
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError
from exportkit import WAIT, items_of
from tallytest import Backend, unique_name

BUCKET = "bulk-bucket"


def _root(backend: Backend) -> Path:
    if backend.name == "server":
        return Path(backend.server.data) / "s3"  # type: ignore[attr-defined]
    return Path(backend.engine.integrations.objects.root)  # type: ignore[attr-defined]


def _wait(ddb: Any, arn: str, *running: str) -> dict[str, Any]:
    deadline = time.monotonic() + WAIT
    while True:
        description: dict[str, Any] = ddb.describe_bulk_operation(
            BulkOperationArn=arn)["BulkOperationDescription"]
        if description["BulkOperationStatus"] not in running or time.monotonic() > deadline:
            return description
        time.sleep(0.1)


def _objects(backend: Backend, prefix: str, lines: list[bytes]) -> None:
    folder = _root(backend) / BUCKET / prefix
    folder.mkdir(parents=True)
    (folder / "part-0.json.gz").write_bytes(gzip.compress(b"\n".join(lines) + b"\n"))


def test_bulk_put_items_fills_an_existing_table(
    backend: Backend, make_table: Callable[..., str],
) -> None:
    ddb = backend.client()
    table = make_table("bulk")
    ddb.put_item(TableName=table, Item={"PK": {"S": "kept"}})
    prefix = unique_name("in")
    lines = [json.dumps({"Item": {"PK": {"S": f"k{i}"}, "n": {"N": str(i)}}}).encode()
             for i in range(300)]
    lines.append(b'{"Item": {"nokey": {"S": "x"}}}')
    _objects(backend, prefix, lines)
    started = ddb.start_bulk_put_items(
        TableName=table,
        InputS3Configuration={"S3Bucket": BUCKET, "S3KeyPrefix": prefix + "/",
                              "InputFormat": "DYNAMODB_JSON", "InputCompressionType": "GZIP"},
        OutputS3Configuration={"S3Bucket": BUCKET, "S3KeyPrefix": "reports",
                               "OutputType": ["ERROR"]},
        ClientToken="bulk-once",
    )["BulkOperationDescription"]
    arn = started["BulkOperationArn"]
    assert started["BulkOperationStatus"] == "IN_PROGRESS"
    again = ddb.start_bulk_put_items(
        TableName=table,
        InputS3Configuration={"S3Bucket": BUCKET, "S3KeyPrefix": prefix + "/",
                              "InputFormat": "DYNAMODB_JSON", "InputCompressionType": "GZIP"},
        OutputS3Configuration={"S3Bucket": BUCKET, "S3KeyPrefix": "reports",
                               "OutputType": ["ERROR"]},
        ClientToken="bulk-once",
    )["BulkOperationDescription"]
    assert again["BulkOperationArn"] == arn
    done = _wait(ddb, arn, "IN_PROGRESS")
    assert done["BulkOperationStatus"] == "COMPLETED_WITH_ERRORS", done
    assert (done["ProcessedItemCount"], done["FailedItemCount"]) == (301, 1)
    assert done["BulkOperationUsage"][0]["BulkPutBytes"] > 0
    assert len(items_of(ddb, table)) == 301  # 300 put, one kept
    reports = list((_root(backend) / BUCKET / "reports").rglob("errors.json"))
    assert len(reports) == 1
    assert json.loads(reports[0].read_text().splitlines()[0])["itemIndex"] == 300
    listed = ddb.list_bulk_operations()["BulkOperationsSummaryList"]
    assert arn in [s["BulkOperationArn"] for s in listed]
    with pytest.raises(ClientError) as info:
        ddb.describe_bulk_operation(BulkOperationArn=arn + "0")
    assert info.value.response["Error"]["Code"] == "ResourceNotFoundException"
    with pytest.raises(ClientError) as info:
        ddb.start_bulk_put_items(
            TableName=table,
            InputS3Configuration={"S3Bucket": BUCKET, "InputFormat": "ION"},
            OutputS3Configuration={"S3Bucket": BUCKET, "OutputType": ["ERROR"]},
            ClientToken="bulk-once")
    assert info.value.response["Error"]["Code"] == "IdempotentParameterMismatchException"


def test_a_cancelled_bulk_operation_stops_at_its_write_rate(
    backend: Backend, make_table: Callable[..., str],
) -> None:
    ddb = backend.client()
    table = make_table("slow")
    prefix = unique_name("many")
    _objects(backend, prefix, [json.dumps({"Item": {"PK": {"S": f"k{i}"}}}).encode()
                               for i in range(20_000)])
    started = ddb.start_bulk_put_items(
        TableName=table, MaxWriteRequestUnits=1024,
        InputS3Configuration={"S3Bucket": BUCKET, "S3KeyPrefix": prefix + "/",
                              "InputFormat": "DYNAMODB_JSON", "InputCompressionType": "GZIP"},
        OutputS3Configuration={"S3Bucket": BUCKET, "OutputType": ["ERROR"]},
    )["BulkOperationDescription"]
    cancelled = ddb.cancel_bulk_operation(BulkOperationArn=started["BulkOperationArn"])
    assert cancelled["BulkOperationStatus"] in ("CANCELLING", "CANCELLED")
    done = _wait(ddb, started["BulkOperationArn"], "IN_PROGRESS", "CANCELLING")
    assert done["BulkOperationStatus"] == "CANCELLED"
    assert done["ProcessedItemCount"] < 20_000  # 1,024 a second: it was stopped well before
