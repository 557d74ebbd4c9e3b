"""The same CreateTable / PutItem / UpdateItem / Query flow through the AWS
SDK for JavaScript v3 (``flow.mjs``, Node from Debian) and through boto3,
with the same answers.

The JavaScript SDK is installed by the ``node`` fixture (tests/conftest.py:
``npm install`` into tests/sdk_js/node_modules, once); without Node and npm
the test is skipped, saying so. In CI (``CI`` set) a failed install fails
the test rather than skipping it.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError
from tallytest import TallyServer, create_table, unique_name

HERE = Path(__file__).parent

COUNTER = {"plays": {"N": "5"}}
QUERY = {"Count": 2, "Items": [
    {"PK": {"S": "video"}, "SK": {"S": "c"}, "title": {"S": "title c"}},
    {"PK": {"S": "video"}, "SK": {"S": "b"}, "title": {"S": "title b"}},
]}
REFUSED = {"name": "ConditionalCheckFailedException",
           "message": "The conditional request failed", "status": 400}


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
