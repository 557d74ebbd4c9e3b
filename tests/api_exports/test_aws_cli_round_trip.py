"""The AWS CLI's ``export-table-to-point-in-time`` against ``tallydb serve``,
then ``import-table`` of the files it wrote: an equal table. Once with an
S3 endpoint (moto's server, an S3 independent of tallydb), once with the
default directory per bucket."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Callable
from typing import Any

import pytest
from exportkit import WAIT, MotoS3, every_type, items_of
from tallytest import TallyServer, unique_name

BUCKET = "cli-exports"


def _aws(cli: str, url: str, *args: str) -> dict[str, Any]:
    env = dict(os.environ, AWS_ACCESS_KEY_ID="x", AWS_SECRET_ACCESS_KEY="y",
               AWS_DEFAULT_REGION="us-east-1", AWS_MAX_ATTEMPTS="1")
    done = subprocess.run([cli, "dynamodb", *args, "--endpoint-url", url, "--output", "json"],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout or "{}")
    return answer


def _wait(cli: str, url: str, command: str, option: str, arn: str, member: str,
          status: str) -> dict[str, Any]:
    deadline = time.monotonic() + WAIT
    while True:
        description = _aws(cli, url, command, option, arn)[member]
        if description[status] != "IN_PROGRESS" or time.monotonic() > deadline:
            return description
        time.sleep(0.5)


def _round_trip(server: TallyServer, cli: str) -> None:
    ddb = server.client()
    url = str(server.url)
    table = unique_name("cli-source")
    ddb.create_table(TableName=table, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}])
    for number in range(120):
        ddb.put_item(TableName=table, Item=every_type(number))
    ddb.update_continuous_backups(
        TableName=table, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
    arn = ddb.describe_table(TableName=table)["Table"]["TableArn"]

    started = _aws(cli, url, "export-table-to-point-in-time", "--table-arn", arn,
                   "--s3-bucket", BUCKET, "--s3-prefix", "cli")["ExportDescription"]
    done = _wait(cli, url, "describe-export", "--export-arn", started["ExportArn"],
                 "ExportDescription", "ExportStatus")
    assert done["ExportStatus"] == "COMPLETED", done
    assert done["ItemCount"] == 120

    copy = unique_name("cli-copy")
    parameters = json.dumps({
        "TableName": copy, "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}]})
    source = json.dumps({"S3Bucket": BUCKET, "S3KeyPrefix": done["ExportManifest"].replace(
        "manifest-summary.json", "data/")})
    imported = _aws(cli, url, "import-table", "--s3-bucket-source", source,
                    "--input-format", "DYNAMODB_JSON", "--input-compression-type", "GZIP",
                    "--table-creation-parameters", parameters)["ImportTableDescription"]
    finished = _wait(cli, url, "describe-import", "--import-arn", imported["ImportArn"],
                     "ImportTableDescription", "ImportStatus")
    assert finished["ImportStatus"] == "COMPLETED", finished
    assert finished["ImportedItemCount"] == 120
    assert items_of(ddb, copy) == items_of(ddb, table)


@pytest.mark.timeout(600)
def test_aws_cli_round_trip_through_an_s3_endpoint(
    tallydb_server_factory: Callable[..., TallyServer], moto_s3: MotoS3, aws_cli: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    moto_s3.client().create_bucket(Bucket=BUCKET)
    monkeypatch.setenv("TALLYDB_S3_ACCESS_KEY_ID", "moto")
    monkeypatch.setenv("TALLYDB_S3_SECRET_ACCESS_KEY", "moto")
    server = tallydb_server_factory(extra_args=("--s3-endpoint", moto_s3.url))
    _round_trip(server, aws_cli)
    keys = [entry["Key"] for entry in
            moto_s3.client().list_objects_v2(Bucket=BUCKET, Prefix="cli/")["Contents"]]
    assert any(key.endswith("/manifest-summary.json") for key in keys)


@pytest.mark.timeout(600)
def test_aws_cli_round_trip_through_the_directory_per_bucket(
    tallydb_server_factory: Callable[..., TallyServer], aws_cli: str,
) -> None:
    server = tallydb_server_factory()
    _round_trip(server, aws_cli)
    assert server.data is not None
    assert list((server.data / "s3" / BUCKET / "cli" / "AWSDynamoDB").glob(
        "*/manifest-summary.json"))


@pytest.mark.timeout(300)
def test_an_unreachable_bucket_fails_the_export_with_s3s_code(
    tallydb_server_factory: Callable[..., TallyServer], moto_s3: MotoS3,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TALLYDB_S3_ACCESS_KEY_ID", "moto")
    monkeypatch.setenv("TALLYDB_S3_SECRET_ACCESS_KEY", "moto")
    server = tallydb_server_factory(extra_args=("--s3-endpoint", moto_s3.url))
    ddb = server.client()
    table = unique_name("nobucket")
    ddb.create_table(TableName=table, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}])
    ddb.update_continuous_backups(
        TableName=table, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
    arn = ddb.describe_table(TableName=table)["Table"]["TableArn"]
    started = ddb.export_table_to_point_in_time(TableArn=arn, S3Bucket="no-such-bucket")
    from exportkit import wait_export

    done = wait_export(ddb, started["ExportDescription"]["ExportArn"])
    assert done["ExportStatus"] == "FAILED" and done["FailureCode"] == "S3NoSuchBucket"
