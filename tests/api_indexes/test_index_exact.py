"""Index behaviour DynamoDB decides: key size limits on index keys, and what
a GSI that does not project an attribute answers when asked for it."""

from __future__ import annotations

import time
from typing import Any

import pytest
from botocore.exceptions import ClientError
from tallytest import assert_error, unique_name

VALIDATION = "ValidationException"
INVALID = "One or more parameter values were invalid: "
# The table key's wording (values.messages): DynamoDB's for an index key is
# not on record.
HASH_TOO_LONG = INVALID + "Size of hashkey has exceeded the maximum size limit of2048 bytes"


@pytest.fixture
def indexed(ddb: Any) -> Any:
    name = unique_name("idx")
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"}
                              for n in ("pk", "g", "r")],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        GlobalSecondaryIndexes=[
            {"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"},
                                                {"AttributeName": "r", "KeyType": "RANGE"}],
             "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["shown"]}},
        ])
    yield name
    ddb.delete_table(TableName=name)


def count(ddb: Any, table: str) -> int:
    return int(ddb.scan(TableName=table, Select="COUNT")["Count"])


def test_index_key_over_the_key_size_limit_is_refused(ddb: Any, indexed: str) -> None:
    # DynamoDB: an index partition key holds at most 2,048 bytes, a sort key
    # 1,024; the write is refused and nothing is written.
    with pytest.raises(ClientError) as excinfo:
        ddb.put_item(TableName=indexed, Item={"pk": {"S": "a"}, "g": {"S": "x" * 2049}})
    assert_error(excinfo, VALIDATION, HASH_TOO_LONG)
    with pytest.raises(ClientError) as excinfo:
        ddb.update_item(TableName=indexed, Key={"pk": {"S": "a"}},
                        UpdateExpression="SET r = :r",
                        ExpressionAttributeValues={":r": {"S": "y" * 1025}})
    assert_error(excinfo, VALIDATION, INVALID + "Aggregated size of all range keys has "
                 "exceeded the size limit of 1024 bytes")
    assert count(ddb, indexed) == 0
    ddb.put_item(TableName=indexed, Item={"pk": {"S": "a"}, "g": {"S": "x" * 2048},
                                          "r": {"S": "y" * 1024}})
    assert count(ddb, indexed) == 1


def test_gsi_added_over_existing_data_leaves_out_too_long_keys(ddb: Any) -> None:
    name = unique_name("later")
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    try:
        ddb.put_item(TableName=name, Item={"pk": {"S": "short"}, "g": {"S": "ok"}})
        ddb.put_item(TableName=name, Item={"pk": {"S": "long"}, "g": {"S": "x" * 3000}})
        ddb.update_table(
            TableName=name,
            AttributeDefinitions=[{"AttributeName": "g", "AttributeType": "S"}],
            GlobalSecondaryIndexUpdates=[{"Create": {
                "IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"}}}])
        deadline = time.monotonic() + 60
        while True:
            indexes = ddb.describe_table(TableName=name)["Table"]["GlobalSecondaryIndexes"]
            if indexes[0]["IndexStatus"] == "ACTIVE" or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        scanned = ddb.scan(TableName=name, IndexName="by_g")["Items"]
        assert [item["pk"]["S"] for item in scanned] == ["short"]
    finally:
        ddb.delete_table(TableName=name)


@pytest.mark.parametrize("request_kwargs", [
    {"AttributesToGet": ["g", "unseen"]},
    {"ProjectionExpression": "g, unseen"},
    {"Select": "SPECIFIC_ATTRIBUTES", "AttributesToGet": ["unseen"]},
])
def test_gsi_asked_for_an_attribute_it_does_not_project_is_invalid(
        ddb: Any, indexed: str, request_kwargs: dict[str, Any]) -> None:
    # DynamoDB refuses it rather than answering items without it; the
    # wording is DynamoDB Local's (validateAttributesToGetAndProjExpr).
    if "ProjectionExpression" in request_kwargs:
        key: dict[str, Any] = {"KeyConditionExpression": "g = :g",
                               "ExpressionAttributeValues": {":g": {"S": "v"}}}
    else:
        key = {"KeyConditions": {"g": {"ComparisonOperator": "EQ",
                                       "AttributeValueList": [{"S": "v"}]}}}
    with pytest.raises(ClientError) as excinfo:
        ddb.query(TableName=indexed, IndexName="by_g", **key, **request_kwargs)
    assert_error(excinfo, VALIDATION, INVALID + "Global secondary index by_g does not project "
                 "[unseen]")


def test_gsi_asked_for_projected_attributes_answers(ddb: Any, indexed: str) -> None:
    ddb.put_item(TableName=indexed, Item={"pk": {"S": "a"}, "g": {"S": "v"}, "r": {"S": "1"},
                                          "shown": {"N": "1"}, "unseen": {"N": "2"}})
    answer = ddb.query(TableName=indexed, IndexName="by_g", KeyConditionExpression="g = :g",
                       ExpressionAttributeValues={":g": {"S": "v"}},
                       ProjectionExpression="shown, pk")
    assert answer["Items"] == [{"shown": {"N": "1"}, "pk": {"S": "a"}}]
