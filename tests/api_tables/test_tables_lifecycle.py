"""DescribeTable, ListTables, DeleteTable and UpdateTable in-process.

Messages: dynalite's tests (recorded against DynamoDB), nubo-db/dynamodb-
conformance (2026) and its catalogue of DynamoDB's messages (2026), and the
cortexproject/cortex#441 log of DynamoDB's "will not change" answer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from table_requests import hash_table, message_of, range_table

Call = Callable[[str, dict[str, Any]], Any]
INVALID = "One or more parameter values were invalid: "


# --- DescribeTable ------------------------------------------------------------------------


def test_describe_a_missing_table(call: Call) -> None:
    for operation in ("DescribeTable", "DeleteTable"):
        result = call(operation, {"TableName": "nothere"})
        assert message_of(result, "ResourceNotFoundException") == (
            "Requested resource not found: Table: nothere not found"
        )
    result = call("UpdateTable", {"TableName": "nothere", "DeletionProtectionEnabled": True})
    assert message_of(result, "ResourceNotFoundException") == (
        "Requested resource not found: Table: nothere not found"
    )


def test_describe_counts_the_items(call: Call, engine: Any) -> None:
    call("CreateTable", hash_table("videos"))
    with engine.store.transaction() as txn:
        record = txn.table("videos")
        assert record is not None
        txn.put_item(record, b"a", b"", {"id": {"S": "a"}})
        txn.put_item(record, b"b", b"", {"id": {"S": "b"}})
    table = call("DescribeTable", {"TableName": "videos"})["Table"]
    assert table["ItemCount"] == 2
    assert table["TableSizeBytes"] > 0


def test_describe_by_table_arn(call: Call) -> None:
    call("CreateTable", hash_table("videos"))
    arn = "arn:aws:dynamodb:us-east-1:000000000000:table/videos"
    assert call("DescribeTable", {"TableName": arn})["Table"]["TableName"] == "videos"


# --- ListTables ------------------------------------------------------------------------------


def test_list_tables_sorted_and_paged(call: Call) -> None:
    names = ["b-table", "a_table", "C.table", "abc", "a-table"]
    for name in names:
        call("CreateTable", hash_table(name))
    assert call("ListTables", {}) == {"TableNames": sorted(names)}
    first = call("ListTables", {"Limit": 2})
    assert first == {"TableNames": ["C.table", "a-table"], "LastEvaluatedTableName": "a-table"}
    second = call("ListTables", {"Limit": 2, "ExclusiveStartTableName": "a-table"})
    assert second == {"TableNames": ["a_table", "abc"], "LastEvaluatedTableName": "abc"}
    assert call("ListTables", {"Limit": 2, "ExclusiveStartTableName": "abc"}) == {
        "TableNames": ["b-table"]
    }
    # a Limit equal to what is left answers without LastEvaluatedTableName (dynalite)
    assert call("ListTables", {"Limit": 5}) == {"TableNames": sorted(names)}
    # the start need not be a table's name
    assert call("ListTables", {"ExclusiveStartTableName": "a_tabla"})["TableNames"][0] == (
        "a_table"
    )


def test_list_tables_pages_of_a_hundred(call: Call) -> None:
    for i in range(101):
        call("CreateTable", hash_table(f"t{i:03d}"))
    page = call("ListTables", {})
    assert len(page["TableNames"]) == 100
    assert page["LastEvaluatedTableName"] == "t099"
    assert call("ListTables", {"ExclusiveStartTableName": "t099"}) == {"TableNames": ["t100"]}


def test_list_tables_limits(call: Call) -> None:
    cases = ((0, "greater than or equal to 1"), (101, "less than or equal to 100"))
    for limit, constraint in cases:
        assert message_of(call("ListTables", {"Limit": limit}), "ValidationException") == (
            f"1 validation error detected: Value '{limit}' at 'limit' failed to satisfy "
            f"constraint: Member must have value {constraint}"
        )


# --- DeleteTable ---------------------------------------------------------------------------------


def test_delete_answers_deleting_and_the_table_is_gone(call: Call) -> None:
    gsi_table = range_table(
        "videos",
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                              {"AttributeName": "SK", "AttributeType": "S"},
                              {"AttributeName": "G", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{
            "IndexName": "by_g", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"},
            "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
        }],
    )
    call("CreateTable", gsi_table)
    deleted = call("DeleteTable", {"TableName": "videos"})["TableDescription"]
    assert deleted["TableName"] == "videos"
    assert deleted["TableStatus"] == "DELETING"
    assert "GlobalSecondaryIndexes" not in deleted  # as DynamoDB answers (dynalite)
    assert message_of(call("DescribeTable", {"TableName": "videos"}),
                      "ResourceNotFoundException")
    assert call("ListTables", {}) == {"TableNames": []}
    # the name is free again
    assert call("CreateTable", hash_table("videos"))["TableDescription"]["TableName"] == "videos"


def test_deletion_protection(call: Call) -> None:
    call("CreateTable", hash_table("kept", DeletionProtectionEnabled=True))
    assert message_of(call("DeleteTable", {"TableName": "kept"}), "ValidationException") == (
        "Resource cannot be deleted as it is currently protected against deletion. "
        "Disable deletion protection first."
    )
    call("UpdateTable", {"TableName": "kept", "DeletionProtectionEnabled": False})
    assert call("DeleteTable", {"TableName": "kept"})["TableDescription"]["TableName"] == "kept"


# --- UpdateTable ---------------------------------------------------------------------------------


def refused(call: Call, request: dict[str, Any]) -> str:
    return message_of(call("UpdateTable", request), "ValidationException")


def test_update_with_nothing_to_change(call: Call) -> None:
    everything = (
        "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, "
        "GlobalSecondaryIndexUpdates, SSESpecification, ReplicaUpdates, "
        "MultiAccountReplicaReady, ReplicaTransitRoleArn, MultiRegionConsistency, "
        "DeletionProtectionEnabled, OnDemandThroughput, WarmThroughput or TableClass is required"
    )
    # answered before the table is looked up (catalogue 2026)
    assert refused(call, {"TableName": "nothere"}) == everything
    assert refused(call, {"TableName": "nothere", "GlobalSecondaryIndexUpdates": []}) == (
        everything
    )
    assert refused(call, {"TableName": "nothere", "MultiRegionConsistency": "STRONG"}) == (
        everything.replace(" MultiRegionConsistency,", "")
    )
    request = {"TableName": "nothere", "GlobalSecondaryIndexUpdates": [],
               "DeletionProtectionEnabled": True}
    assert refused(call, request) == INVALID + "List of GlobalSecondaryIndexUpdates is empty"


def test_throughput_change(call: Call) -> None:
    call("CreateTable", range_table("videos"))
    answer = call("UpdateTable", {
        "TableName": "videos",
        "ProvisionedThroughput": {"ReadCapacityUnits": 10, "WriteCapacityUnits": 10},
    })["TableDescription"]
    # DynamoDB answers the table as it was, UPDATING; the change is visible next
    assert answer["TableStatus"] == "UPDATING"
    assert answer["ProvisionedThroughput"]["ReadCapacityUnits"] == 5
    table = call("DescribeTable", {"TableName": "videos"})["Table"]
    assert table["TableStatus"] == "ACTIVE"
    pt = table["ProvisionedThroughput"]
    assert (pt["ReadCapacityUnits"], pt["WriteCapacityUnits"]) == (10, 10)
    assert pt["NumberOfDecreasesToday"] == 0
    assert "LastIncreaseDateTime" in pt
    call("UpdateTable", {
        "TableName": "videos",
        "ProvisionedThroughput": {"ReadCapacityUnits": 2, "WriteCapacityUnits": 10},
    })
    pt = call("DescribeTable", {"TableName": "videos"})["Table"]["ProvisionedThroughput"]
    assert (pt["ReadCapacityUnits"], pt["NumberOfDecreasesToday"]) == (2, 1)
    assert "LastDecreaseDateTime" in pt


def test_throughput_that_would_not_change(call: Call) -> None:
    call("CreateTable", range_table("videos"))
    same = {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}
    will_not_change = (
        "The provisioned throughput for the table will not change. The requested value equals "
        "the current value. Current ReadCapacityUnits provisioned for the table: 5. Requested "
        "ReadCapacityUnits: 5. Current WriteCapacityUnits provisioned for the table: 5. "
        "Requested WriteCapacityUnits: 5. Refer to the Amazon DynamoDB Developer Guide for "
        "current limits and how to request higher limits."
    )
    assert refused(call, {"TableName": "videos", "ProvisionedThroughput": same}) == (
        will_not_change
    )
    request = {"TableName": "videos", "BillingMode": "PROVISIONED", "ProvisionedThroughput": same}
    assert refused(call, request) == will_not_change


def test_throughput_out_of_bounds(call: Call) -> None:
    big = 1000000000001
    request = {"TableName": "nothere",
               "ProvisionedThroughput": {"ReadCapacityUnits": big, "WriteCapacityUnits": big}}
    assert refused(call, request) == f"Given value {big} for ReadCapacityUnits is out of bounds"


def test_billing_mode_switches(call: Call) -> None:
    call("CreateTable", range_table("videos"))
    call("UpdateTable", {"TableName": "videos", "BillingMode": "PAY_PER_REQUEST"})
    table = call("DescribeTable", {"TableName": "videos"})["Table"]
    assert table["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    assert table["ProvisionedThroughput"]["ReadCapacityUnits"] == 0
    # on-demand again: accepted, nothing changes (catalogue 2026; conformance)
    answer = call("UpdateTable", {"TableName": "videos", "BillingMode": "PAY_PER_REQUEST"})
    assert answer["TableDescription"]["TableStatus"] == "UPDATING"
    call("UpdateTable", {
        "TableName": "videos", "BillingMode": "PROVISIONED",
        "ProvisionedThroughput": {"ReadCapacityUnits": 7, "WriteCapacityUnits": 3},
    })
    table = call("DescribeTable", {"TableName": "videos"})["Table"]
    assert table["BillingModeSummary"]["BillingMode"] == "PROVISIONED"
    assert "LastUpdateToPayPerRequestDateTime" in table["BillingModeSummary"]
    pt = table["ProvisionedThroughput"]
    assert (pt["ReadCapacityUnits"], pt["WriteCapacityUnits"]) == (7, 3)


@pytest.mark.parametrize(
    ("create", "update", "message"),
    [
        (hash_table, {"ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}},
         INVALID + "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when "
         "BillingMode is PAY_PER_REQUEST"),
        (range_table, {"BillingMode": "PAY_PER_REQUEST",
                       "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}},
         INVALID + "ProvisionedThroughput cannot be specified when BillingMode is "
         "PAY_PER_REQUEST"),
        (hash_table, {"BillingMode": "PROVISIONED"},
         INVALID + "ProvisionedThroughput must be specified when BillingMode is PROVISIONED"),
        (range_table, {"BillingMode": "PROVISIONED"},
         INVALID + "ProvisionedThroughput must be specified when BillingMode is PROVISIONED"),
        (range_table, {"OnDemandThroughput": {"MaxReadRequestUnits": 5}},
         INVALID + "MaxReadRequestUnits for OnDemandThroughput cannot be specified when the "
         "table BillingMode is PROVISIONED"),
        (hash_table, {"DeletionProtectionEnabled": True, "BillingMode": "PROVISIONED"},
         INVALID + "DeletionProtection modification must be the only operation in the request"),
        (hash_table, {"TableClass": "STANDARD", "DeletionProtectionEnabled": True},
         INVALID + "TableClass modification must be the only operation in the request"),
    ],
)
def test_billing_refusals(
    call: Call, create: Callable[..., dict[str, Any]], update: dict[str, Any], message: str
) -> None:
    call("CreateTable", create("videos"))
    before = call("DescribeTable", {"TableName": "videos"})["Table"]
    assert refused(call, {"TableName": "videos", **update}) == message
    assert call("DescribeTable", {"TableName": "videos"})["Table"] == before


def test_configuration_changes(call: Call) -> None:
    call("CreateTable", hash_table(
        "videos", OnDemandThroughput={"MaxReadRequestUnits": 10, "MaxWriteRequestUnits": 5}))
    answer = call("UpdateTable", {"TableName": "videos", "DeletionProtectionEnabled": True})
    assert answer["TableDescription"]["DeletionProtectionEnabled"] is True
    assert answer["TableDescription"]["TableStatus"] == "ACTIVE"
    call("UpdateTable", {"TableName": "videos", "DeletionProtectionEnabled": False})
    call("UpdateTable", {"TableName": "videos", "TableClass": "STANDARD_INFREQUENT_ACCESS"})
    call("UpdateTable", {"TableName": "videos", "OnDemandThroughput": {
        "MaxReadRequestUnits": 20, "MaxWriteRequestUnits": -1}})
    table = call("DescribeTable", {"TableName": "videos"})["Table"]
    assert table["DeletionProtectionEnabled"] is False
    assert table["TableClassSummary"]["TableClass"] == "STANDARD_INFREQUENT_ACCESS"
    assert table["OnDemandThroughput"] == {"MaxReadRequestUnits": 20}


def test_deleting_an_unknown_index(call: Call) -> None:
    # ack-api-quirks catalogue (2026, DDB-TABLE-161): "Index <name> for table".
    call("CreateTable", hash_table("videos"))
    request = {"TableName": "videos",
               "GlobalSecondaryIndexUpdates": [{"Delete": {"IndexName": "nope"}}]}
    assert message_of(call("UpdateTable", request), "ResourceNotFoundException") == (
        "Requested resource not found: Index nope for table videos"
    )
