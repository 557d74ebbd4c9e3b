"""ExportTableToPointInTime, DescribeExport, ListExports, and ImportTable
reading the export back: through boto3 against a real ``tallydb serve`` and
in-process. The files are checked against DynamoDB's documented export
layout ("DynamoDB table export output format") field by field."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError
from exportkit import enable_recovery, every_type, items_of, wait_export, wait_import
from tallytest import Backend, delete_table_quietly, unique_name

BUCKET = "exports-bucket"


def bucket_root(backend: Backend) -> Path:
    """Where the backend's default object store keeps its buckets."""
    if backend.name == "server":
        server = backend.server  # type: ignore[attr-defined]
        return Path(server.data) / "s3"
    return Path(backend.engine.integrations.objects.root)  # type: ignore[attr-defined]


def _error(info: pytest.ExceptionInfo[ClientError]) -> tuple[str, str]:
    error = info.value.response["Error"]
    return error["Code"], error.get("Message", "")


@pytest.mark.parametrize("export_format", ["DYNAMODB_JSON", "ION"])
def test_an_export_imported_as_a_new_table_equals_the_source(
    backend: Backend, make_table: Callable[..., str], export_format: str,
) -> None:
    ddb = backend.client()
    table = make_table("source")
    for number in range(30):
        ddb.put_item(TableName=table, Item=every_type(number))
    arn = enable_recovery(ddb, table)

    started = ddb.export_table_to_point_in_time(
        TableArn=arn, S3Bucket=BUCKET, S3Prefix="nightly", ExportFormat=export_format,
    )["ExportDescription"]
    assert started["ExportStatus"] == "IN_PROGRESS"
    assert started["ExportArn"].startswith(arn + "/export/")
    done = wait_export(ddb, started["ExportArn"])
    assert done["ExportStatus"] == "COMPLETED", done
    assert done["ItemCount"] == 30
    assert done["ExportFormat"] == export_format and done["ExportType"] == "FULL_EXPORT"
    assert done["BilledSizeBytes"] > 0

    root = bucket_root(backend) / BUCKET
    folder = root / done["ExportManifest"].rpartition("/")[0]
    assert folder.parent.name == "AWSDynamoDB" and folder.parent.parent.name == "nightly"
    assert (folder / "_started").is_file()
    summary = json.loads((folder / "manifest-summary.json").read_text())
    assert summary["exportArn"] == done["ExportArn"] and summary["tableArn"] == arn
    assert summary["itemCount"] == 30 and summary["outputFormat"] == export_format
    assert summary["s3Bucket"] == BUCKET and summary["s3Prefix"] == "nightly"
    assert summary["manifestFilesS3Key"] == done["ExportManifest"].replace(
        "manifest-summary.json", "manifest-files.json")
    entries = [json.loads(line) for line in
               (folder / "manifest-files.json").read_text().splitlines()]
    assert sum(entry["itemCount"] for entry in entries) == 30
    for entry in entries:
        data = (root / entry["dataFileS3Key"]).read_bytes()
        assert entry["md5Checksum"] == base64.b64encode(hashlib.md5(data).digest()).decode()
        assert entry["etag"] == hashlib.md5(data).hexdigest()
        first = gzip.decompress(data).splitlines()[0]
        if export_format == "ION":
            assert first.startswith(b"$ion_1_0 {Item:{")
        else:
            assert json.loads(first)["Item"]["PK"]["S"].startswith("item-")

    copy = unique_name("copy")
    try:
        imported = ddb.import_table(
            S3BucketSource={"S3Bucket": BUCKET,
                            "S3KeyPrefix": done["ExportManifest"].replace(
                                "manifest-summary.json", "data/")},
            InputFormat=export_format, InputCompressionType="GZIP",
            TableCreationParameters={
                "TableName": copy, "BillingMode": "PAY_PER_REQUEST",
                "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
                "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}]},
        )["ImportTableDescription"]
        assert imported["ImportStatus"] == "IN_PROGRESS"
        finished = wait_import(ddb, imported["ImportArn"])
        assert finished["ImportStatus"] == "COMPLETED", finished
        assert finished["ImportedItemCount"] == finished["ProcessedItemCount"] == 30
        assert finished["ErrorCount"] == 0
        assert items_of(ddb, copy) == items_of(ddb, table)
        listed = ddb.list_imports(TableArn=finished["TableArn"])["ImportSummaryList"]
        assert [s["ImportArn"] for s in listed] == [imported["ImportArn"]]
    finally:
        delete_table_quietly(ddb, copy)
    summaries = ddb.list_exports(TableArn=arn)["ExportSummaries"]
    assert summaries == [{"ExportArn": done["ExportArn"], "ExportStatus": "COMPLETED",
                          "ExportType": "FULL_EXPORT"}]


def test_an_export_holds_the_table_as_it_was_while_writes_go_on(
    backend: Backend, make_table: Callable[..., str],
) -> None:
    ddb = backend.client()
    table = make_table("busy")
    ddb.put_item(TableName=table, Item={"PK": {"S": "counter"}, "n": {"N": "0"}})
    arn = enable_recovery(ddb, table)
    started = ddb.export_table_to_point_in_time(TableArn=arn, S3Bucket=BUCKET)
    for _ in range(50):
        ddb.update_item(TableName=table, Key={"PK": {"S": "counter"}},
                        UpdateExpression="ADD n :one",
                        ExpressionAttributeValues={":one": {"N": "1"}})
    done = wait_export(ddb, started["ExportDescription"]["ExportArn"])
    assert done["ExportStatus"] == "COMPLETED" and done["ItemCount"] == 1
    root = bucket_root(backend) / BUCKET
    entry = json.loads((root / done["ExportManifest"]).read_text())
    files = (root / entry["manifestFilesS3Key"]).read_text().splitlines()
    lines = gzip.decompress((root / json.loads(files[0])["dataFileS3Key"]).read_bytes())
    exported = int(json.loads(lines.splitlines()[0])["Item"]["n"]["N"])
    assert 0 <= exported <= 50  # the counter at one moment, whole


def test_the_same_client_token_answers_the_same_export(
    backend: Backend, make_table: Callable[..., str],
) -> None:
    ddb = backend.client()
    table = make_table("token")
    arn = enable_recovery(ddb, table)
    first = ddb.export_table_to_point_in_time(TableArn=arn, S3Bucket=BUCKET, ClientToken="once")
    again = ddb.export_table_to_point_in_time(TableArn=arn, S3Bucket=BUCKET, ClientToken="once")
    assert again["ExportDescription"]["ExportArn"] == first["ExportDescription"]["ExportArn"]
    with pytest.raises(ClientError) as info:
        ddb.export_table_to_point_in_time(TableArn=arn, S3Bucket="another-bucket",
                                          ClientToken="once")
    assert _error(info)[0] == "ExportConflictException"
    wait_export(ddb, first["ExportDescription"]["ExportArn"])


def test_export_refusals(backend: Backend, make_table: Callable[..., str]) -> None:
    ddb = backend.client()
    table = make_table("refused")
    arn = ddb.describe_table(TableName=table)["Table"]["TableArn"]
    with pytest.raises(ClientError) as info:
        ddb.export_table_to_point_in_time(TableArn=arn, S3Bucket=BUCKET)
    assert _error(info) == ("PointInTimeRecoveryUnavailableException",
                            f"Point in time recovery is not enabled for table '{table}'")
    missing = arn.rpartition("/")[0] + "/no-such-table"
    with pytest.raises(ClientError) as info:
        ddb.export_table_to_point_in_time(TableArn=missing, S3Bucket=BUCKET)
    assert _error(info) == ("TableNotFoundException", f"Table not found: {missing}")
    enable_recovery(ddb, table)
    with pytest.raises(ClientError) as info:
        ddb.export_table_to_point_in_time(TableArn=arn, S3Bucket=BUCKET, ExportTime=0)
    assert _error(info)[0] == "InvalidExportTimeException"
    with pytest.raises(ClientError) as info:
        ddb.describe_export(ExportArn=arn + "/export/01700000000000-00000000")
    assert _error(info)[0] == "ExportNotFoundException"
    raw = backend.raw("ExportTableToPointInTime", {"TableArn": arn, "S3Bucket": "-bad-"})
    assert raw.status == 400 and raw.json["__type"].endswith("#ValidationException")


def test_import_refusals_and_item_errors(backend: Backend, make_table: Callable[..., str]
                                         ) -> None:
    ddb = backend.client()
    existing = make_table("exists")
    params: dict[str, Any] = {
        "TableName": existing, "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}]}
    source = {"S3Bucket": BUCKET, "S3KeyPrefix": "incoming/"}
    with pytest.raises(ClientError) as info:
        ddb.import_table(S3BucketSource=source, InputFormat="CSV",
                         TableCreationParameters=params)
    assert _error(info) == ("ResourceInUseException", f"Table already exists: {existing}")

    folder = bucket_root(backend) / BUCKET / "incoming" / unique_name("csv")
    folder.mkdir(parents=True)
    (folder / "part-1.csv").write_text("PK;n;note\nfirst;1;\nsecond;2;hello\n;3;no key\n")
    table = unique_name("fromcsv")
    try:
        started = ddb.import_table(
            S3BucketSource={"S3Bucket": BUCKET,
                            "S3KeyPrefix": f"incoming/{folder.name}/"},
            InputFormat="CSV", InputFormatOptions={"Csv": {"Delimiter": ";"}},
            TableCreationParameters={**params, "TableName": table},
        )["ImportTableDescription"]
        done = wait_import(ddb, started["ImportArn"])
        assert done["ImportStatus"] == "FAILED" and done["FailureCode"] == "ItemValidationError"
        assert (done["ProcessedItemCount"], done["ImportedItemCount"], done["ErrorCount"]
                ) == (3, 2, 1)
        assert done["CloudWatchLogGroupArn"].endswith(":log-group:/aws-dynamodb/imports:*")
        assert items_of(ddb, table) == [
            {"PK": {"S": "first"}, "n": {"S": "1"}},
            {"PK": {"S": "second"}, "n": {"S": "2"}, "note": {"S": "hello"}},
        ]
    finally:
        delete_table_quietly(ddb, table)
