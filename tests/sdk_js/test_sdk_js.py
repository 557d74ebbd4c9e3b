"""The same CreateTable / PutItem / UpdateItem / Query flow through the AWS
SDK for JavaScript v3 (``flow.mjs``, Node from Debian) and through boto3,
with the same answers.

The JavaScript SDK is installed here by the test set-up (``npm install``
into tests/sdk_js/node_modules, once); without Node and npm the test is
skipped, saying so. In CI (``CI`` set) a failed install fails the test
rather than skipping it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError
from tallytest import TallyServer, create_table, unique_name

HERE = Path(__file__).parent
SDK = HERE / "node_modules" / "@aws-sdk" / "client-dynamodb"

COUNTER = {"plays": {"N": "5"}}
QUERY = {"Count": 2, "Items": [
    {"PK": {"S": "video"}, "SK": {"S": "c"}, "title": {"S": "title c"}},
    {"PK": {"S": "video"}, "SK": {"S": "b"}, "title": {"S": "title b"}},
]}
REFUSED = {"name": "ConditionalCheckFailedException",
           "message": "The conditional request failed", "status": 400}


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """One pytest worker installs; the others wait for it."""
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def node() -> str:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("Node.js and npm are not installed (Debian: apt-get install nodejs npm): "
                    "the AWS SDK for JavaScript v3 flow cannot run")
    with _locked(HERE / ".npm-install.lock"):
        if not SDK.is_dir():
            result = subprocess.run(
                [npm, "install", "--no-audit", "--no-fund", "--no-package-lock",
                 "--loglevel=error"],
                cwd=HERE, capture_output=True, text=True, timeout=600, check=False)
            if result.returncode != 0 or not SDK.is_dir():
                _unavailable("npm could not install @aws-sdk/client-dynamodb: "
                             + (result.stderr or result.stdout)[-1000:])
    return node


def test_javascript_sdk_flow(tallydb_server: TallyServer, node: str) -> None:
    table = unique_name("js-flow")
    result = subprocess.run([node, "flow.mjs", str(tallydb_server.url), table], cwd=HERE,
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    answered = json.loads(result.stdout)
    assert answered == {"counter": COUNTER, "query": QUERY, "refused": REFUSED,
                        "deleted": "DELETING"}


def test_boto3_flow(ddb: Any) -> None:
    table = create_table(ddb, unique_name("py-flow"), hash=("PK", "S"), range=("SK", "S"))
    try:
        for sk in "abc":
            ddb.put_item(TableName=table, Item={"PK": {"S": "video"}, "SK": {"S": sk},
                                                "title": {"S": f"title {sk}"}})
        for _ in range(5):
            counter = ddb.update_item(
                TableName=table, Key={"PK": {"S": "video"}, "SK": {"S": "a"}},
                UpdateExpression="ADD plays :one",
                ExpressionAttributeValues={":one": {"N": "1"}}, ReturnValues="UPDATED_NEW")
        assert counter["Attributes"] == COUNTER
        page = ddb.query(TableName=table, KeyConditionExpression="PK = :pk AND SK >= :from",
                         ExpressionAttributeValues={":pk": {"S": "video"}, ":from": {"S": "b"}},
                         ScanIndexForward=False)
        assert {"Count": page["Count"], "Items": page["Items"]} == QUERY
        with pytest.raises(ClientError) as excinfo:
            ddb.put_item(TableName=table, Item={"PK": {"S": "video"}, "SK": {"S": "a"}},
                         ConditionExpression="attribute_not_exists(PK)")
        error = excinfo.value.response
        assert {"name": error["Error"]["Code"], "message": error["Error"]["Message"],
                "status": error["ResponseMetadata"]["HTTPStatusCode"]} == REFUSED
    finally:
        deleted = ddb.delete_table(TableName=table)
    assert deleted["TableDescription"]["TableStatus"] == "DELETING"
