"""The table operations through a real boto3 client and resource.

botocore serializes each call, parses each answer and runs its waiters and
paginators; the engine answers in-process (``tallydb.toolkit.inprocess``). The last
tests use the suite's ``ddb`` fixture, so they run against a real
``tallydb serve`` as well.
"""

from __future__ import annotations

import datetime
import uuid
from typing import Any

import pytest
from botocore.exceptions import ClientError
from table_requests import hash_table, range_table

FAST = {"Delay": 1, "MaxAttempts": 3}


def error(excinfo: pytest.ExceptionInfo[ClientError]) -> tuple[str, str, int]:
    response = excinfo.value.response
    return (response["Error"]["Code"], response["Error"]["Message"],
            response["ResponseMetadata"]["HTTPStatusCode"])


def test_create_wait_describe_delete_wait(client: Any) -> None:
    created = client.create_table(**range_table("videos"))["TableDescription"]
    assert created["TableStatus"] == "CREATING"
    client.get_waiter("table_exists").wait(TableName="videos", WaiterConfig=FAST)
    table = client.describe_table(TableName="videos")["Table"]
    assert table["TableStatus"] == "ACTIVE"
    assert isinstance(table["CreationDateTime"], datetime.datetime)
    assert table["TableArn"] == "arn:aws:dynamodb:us-east-1:000000000000:table/videos"
    deleted = client.delete_table(TableName="videos")["TableDescription"]
    assert deleted["TableStatus"] == "DELETING"
    client.get_waiter("table_not_exists").wait(TableName="videos", WaiterConfig=FAST)
    assert client.list_tables()["TableNames"] == []


def test_resource_create_table_wait_until_exists(resource: Any) -> None:
    table = resource.create_table(
        TableName="videos",
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                   {"AttributeName": "SK", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                              {"AttributeName": "SK", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    assert table.table_status == "CREATING"
    table.wait_until_exists()
    table.reload()  # a resource's waiter does not reload it
    assert table.table_status == "ACTIVE"
    assert table.item_count == 0
    assert table.billing_mode_summary["BillingMode"] == "PAY_PER_REQUEST"
    assert [t.name for t in resource.tables.all()] == ["videos"]
    table.delete()
    table.wait_until_not_exists()
    assert list(resource.tables.all()) == []


def test_list_tables_paginator(client: Any) -> None:
    names = [f"table_{i}" for i in range(7)]
    for name in reversed(names):
        client.create_table(**hash_table(name))
    pages = list(client.get_paginator("list_tables").paginate(PaginationConfig={"PageSize": 3}))
    assert [page["TableNames"] for page in pages] == [names[:3], names[3:6], names[6:]]
    assert "LastEvaluatedTableName" not in pages[-1]


def test_update_table_through_boto3(client: Any) -> None:
    client.create_table(**range_table("videos"))
    client.update_table(TableName="videos",
                        ProvisionedThroughput={"ReadCapacityUnits": 8, "WriteCapacityUnits": 4})
    client.get_waiter("table_exists").wait(TableName="videos", WaiterConfig=FAST)
    pt = client.describe_table(TableName="videos")["Table"]["ProvisionedThroughput"]
    assert (pt["ReadCapacityUnits"], pt["WriteCapacityUnits"]) == (8, 4)
    assert isinstance(pt["LastIncreaseDateTime"], datetime.datetime)
    with pytest.raises(ClientError) as excinfo:
        client.update_table(TableName="videos", ProvisionedThroughput={
            "ReadCapacityUnits": 8, "WriteCapacityUnits": 4})
    code, message, status = error(excinfo)
    assert (code, status) == ("ValidationException", 400)
    assert message.startswith("The provisioned throughput for the table will not change.")


def test_error_shapes_through_boto3(client: Any, raw_client: Any) -> None:
    with pytest.raises(ClientError) as excinfo:
        client.describe_table(TableName="nothere")
    assert error(excinfo) == (
        "ResourceNotFoundException", "Requested resource not found: Table: nothere not found", 400
    )
    client.create_table(**hash_table("videos"))
    with pytest.raises(ClientError) as excinfo:
        client.create_table(**hash_table("videos"))
    assert error(excinfo) == ("ResourceInUseException", "Table already exists: videos", 400)
    with pytest.raises(ClientError) as excinfo:
        client.create_table(**hash_table("ab"))
    assert error(excinfo) == (
        "ValidationException",
        "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: "
        "Member must have length greater than or equal to 3",
        400,
    )
    # What botocore would refuse itself reaches the server with its checks off
    with pytest.raises(ClientError) as excinfo:
        raw_client.list_tables(Limit="ten")
    assert error(excinfo) == (
        "SerializationException", "STRING_VALUE cannot be converted to Integer", 400
    )
    with pytest.raises(ClientError) as excinfo:
        raw_client.describe_table()
    assert error(excinfo) == (
        "ValidationException",
        "The parameter 'TableName' is required but was not present in the request",
        400,
    )


# --- the same through the real server and in-process (the suite's ``ddb``) ---------------


def test_table_life_cycle_on_every_backend(ddb: Any) -> None:
    name = f"tables_{uuid.uuid4().hex[:12]}"
    ddb.create_table(**hash_table(name))
    try:
        ddb.get_waiter("table_exists").wait(TableName=name, WaiterConfig=FAST)
        table = ddb.describe_table(TableName=name)["Table"]
        assert (table["TableStatus"], table["TableName"]) == ("ACTIVE", name)
        assert name in ddb.list_tables(ExclusiveStartTableName=name[:-1])["TableNames"]
        ddb.update_table(TableName=name, DeletionProtectionEnabled=True)
        with pytest.raises(ClientError) as excinfo:
            ddb.delete_table(TableName=name)
        assert error(excinfo)[0] == "ValidationException"
        ddb.update_table(TableName=name, DeletionProtectionEnabled=False)
    finally:
        ddb.delete_table(TableName=name)
    ddb.get_waiter("table_not_exists").wait(TableName=name, WaiterConfig=FAST)
