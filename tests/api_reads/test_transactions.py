"""TransactWriteItems and TransactGetItems through boto3 (real server and
in-process).

Messages and shapes: paritysuite/dynamodb-conformance's captures of real
DynamoDB (2026); the AWS API reference for ClientRequestToken.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from tallytest import Backend, TallyServer, assert_error, error_of

from tallydb.engine.values import item_size

VIDEO = {"S": "VID#9f3a"}
TOTAL = {"PK": VIDEO, "SK": {"S": "STATS#TOTAL"}}


def _increment(ddb: Any, table: str, event: str, token: str | None) -> dict[str, Any]:
    """The idempotent increment: record the event (only once), add one."""
    kwargs: dict[str, Any] = {"ClientRequestToken": token} if token else {}
    return ddb.transact_write_items(
        TransactItems=[
            {"Put": {"TableName": table,
                     "Item": {"PK": VIDEO, "SK": {"S": f"EVENT#{event}"}},
                     "ConditionExpression": "attribute_not_exists(PK)"}},
            {"Update": {"TableName": table, "Key": TOTAL,
                        "UpdateExpression": "ADD play_count :one",
                        "ExpressionAttributeValues": {":one": {"N": "1"}}}},
        ],
        ReturnConsumedCapacity="TOTAL",
        **kwargs,
    )


def _count(ddb: Any, table: str) -> int:
    item = ddb.get_item(TableName=table, Key=TOTAL, ConsistentRead=True).get("Item")
    return 0 if item is None else int(item["play_count"]["N"])


def test_idempotent_increment(ddb: Any, videos: str) -> None:
    token = str(uuid.uuid4())
    first = _increment(ddb, videos, "e1", token)
    assert first["ConsumedCapacity"] == [
        {"TableName": videos, "CapacityUnits": 4.0, "WriteCapacityUnits": 4.0}]
    again = _increment(ddb, videos, "e1", token)  # a retry: success, nothing applied
    assert again["ConsumedCapacity"][0]["TableName"] == videos
    assert _count(ddb, videos) == 1

    with pytest.raises(ClientError) as excinfo:  # a new token, the same event
        _increment(ddb, videos, "e1", str(uuid.uuid4()))
    code, message, status = error_of(excinfo)
    assert (code, status) == ("TransactionCanceledException", 400)
    assert message == ("Transaction cancelled, please refer cancellation reasons for specific "
                       "reasons [ConditionalCheckFailed, None]")
    reasons = excinfo.value.response["CancellationReasons"]
    assert reasons == [{"Code": "ConditionalCheckFailed",
                        "Message": "The conditional request failed"}, {"Code": "None"}]
    assert _count(ddb, videos) == 1

    _increment(ddb, videos, "e2", str(uuid.uuid4()))
    assert _count(ddb, videos) == 2


def test_same_token_other_request(ddb: Any, videos: str) -> None:
    token = str(uuid.uuid4())
    _increment(ddb, videos, "e1", token)
    with pytest.raises(ClientError) as excinfo:
        _increment(ddb, videos, "e2", token)
    assert error_of(excinfo)[0] == "IdempotentParameterMismatchException"
    assert _count(ddb, videos) == 1


def test_token_survives_a_restart(
    tallydb_server_factory: Callable[..., TallyServer],
) -> None:
    server = tallydb_server_factory()
    ddb = server.client()
    ddb.create_table(
        TableName="videos",
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                              {"AttributeName": "SK", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                   {"AttributeName": "SK", "KeyType": "RANGE"}],
        BillingMode="PAY_PER_REQUEST")
    token = str(uuid.uuid4())
    _increment(ddb, "videos", "e1", token)
    server.restart()
    ddb = server.client()
    _increment(ddb, "videos", "e1", token)
    assert _count(ddb, "videos") == 1


def test_all_or_nothing(ddb: Any, videos: str) -> None:
    ddb.put_item(TableName=videos, Item={**TOTAL, "play_count": {"N": "5"}})
    with pytest.raises(ClientError) as excinfo:
        ddb.transact_write_items(TransactItems=[
            {"Update": {"TableName": videos, "Key": TOTAL,
                        "UpdateExpression": "ADD play_count :one",
                        "ExpressionAttributeValues": {":one": {"N": "1"}}}},
            {"Put": {"TableName": videos, "Item": {"PK": VIDEO, "SK": {"S": "NEW"}}}},
            {"Delete": {"TableName": videos, "Key": {"PK": VIDEO, "SK": {"S": "META"}},
                        "ConditionExpression": "attribute_exists(PK)",
                        "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}},
        ])
    reasons = excinfo.value.response["CancellationReasons"]
    assert [r["Code"] for r in reasons] == ["None", "None", "ConditionalCheckFailed"]
    assert "Item" not in reasons[2]  # nothing there to return
    assert _count(ddb, videos) == 5
    assert "Item" not in ddb.get_item(TableName=videos, Key={"PK": VIDEO, "SK": {"S": "NEW"}})


def test_condition_check_and_all_old(ddb: Any, videos: str) -> None:
    ddb.put_item(TableName=videos, Item={**TOTAL, "play_count": {"N": "5"}})
    with pytest.raises(ClientError) as excinfo:
        ddb.transact_write_items(TransactItems=[
            {"Put": {"TableName": videos, "Item": {"PK": VIDEO, "SK": {"S": "X"}}}},
            {"ConditionCheck": {"TableName": videos, "Key": TOTAL,
                                "ConditionExpression": "play_count > :ten",
                                "ExpressionAttributeValues": {":ten": {"N": "10"}},
                                "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}},
        ])
    reasons = excinfo.value.response["CancellationReasons"]
    assert reasons[1] == {"Code": "ConditionalCheckFailed",
                          "Message": "The conditional request failed",
                          "Item": {**TOTAL, "play_count": {"N": "5"}}}
    ok = ddb.transact_write_items(TransactItems=[
        {"ConditionCheck": {"TableName": videos, "Key": TOTAL,
                            "ConditionExpression": "play_count < :ten",
                            "ExpressionAttributeValues": {":ten": {"N": "10"}}}},
        {"Delete": {"TableName": videos, "Key": {"PK": VIDEO, "SK": {"S": "X"}}}},
    ])
    assert "ConsumedCapacity" not in ok


def test_transactions_report_double_capacity(ddb: Any, videos: str) -> None:
    item = {"PK": VIDEO, "SK": {"S": "BIG"}, "data": {"S": "x" * 5000}}  # about 5 KB
    response = ddb.transact_write_items(
        TransactItems=[{"Put": {"TableName": videos, "Item": item}}],
        ReturnConsumedCapacity="TOTAL")
    assert response["ConsumedCapacity"][0]["CapacityUnits"] == 10.0  # 5 write units, doubled
    got = ddb.transact_get_items(
        TransactItems=[{"Get": {"TableName": videos, "Key": {"PK": VIDEO, "SK": {"S": "BIG"}}}}],
        ReturnConsumedCapacity="TOTAL")
    assert got["ConsumedCapacity"] == [
        {"TableName": videos, "CapacityUnits": 4.0, "ReadCapacityUnits": 4.0}]


def test_validation_error_reasons(ddb: Any, videos: str) -> None:
    ddb.put_item(TableName=videos, Item={**TOTAL, "name": {"S": "text"}})
    with pytest.raises(ClientError) as excinfo:
        ddb.transact_write_items(TransactItems=[
            {"Update": {"TableName": videos, "Key": TOTAL, "UpdateExpression": "ADD #n :one",
                        "ExpressionAttributeNames": {"#n": "name"},
                        "ExpressionAttributeValues": {":one": {"N": "1"}}}},
            {"Put": {"TableName": videos, "Item": {"PK": {"N": "5"}, "SK": {"S": "a"}}}},
            {"Delete": {"TableName": videos, "Key": {"PK": {"N": "5"}, "SK": {"S": "a"}}}},
        ])
    # DynamoDB stops at the first ValidationError: the actions after it are
    # None, without a Message (the conformance captures of 2026).
    reasons = excinfo.value.response["CancellationReasons"]
    assert reasons == [
        {"Code": "ValidationError",
         "Message": "An operand in the update expression has an incorrect data type"},
        {"Code": "None"},
        {"Code": "None"},
    ]
    with pytest.raises(ClientError) as excinfo:
        ddb.transact_write_items(TransactItems=[
            {"Put": {"TableName": videos, "Item": {"PK": {"N": "5"}, "SK": {"S": "a"}}}},
            {"Delete": {"TableName": videos, "Key": {"PK": {"N": "5"}, "SK": {"S": "a"}}}},
        ])
    assert excinfo.value.response["CancellationReasons"] == [
        {"Code": "ValidationError", "Message": "One or more parameter values were invalid: "
                                               "Type mismatch for key PK expected: S actual: N"},
        {"Code": "None"},
    ]
    assert error_of(excinfo)[1] == ("Transaction cancelled, please refer cancellation reasons "
                                    "for specific reasons [ValidationError, None]")


def test_transaction_over_4_mb_is_refused(ddb: Any, videos: str) -> None:
    # DynamoDB: the aggregate size of a transaction's items cannot exceed
    # 4 MB (11 items of 399 KB); 10 items of 350,000 bytes are within it.
    def put(i: int, size: int) -> dict[str, Any]:
        return {"Put": {"TableName": videos, "Item": {
            "PK": VIDEO, "SK": {"S": f"BIG{i}"}, "data": {"S": "x" * size}}}}

    puts = [put(i, 399 * 1024 - 100) for i in range(11)]
    payload = sum(item_size(p["Put"]["Item"]) for p in puts)
    with pytest.raises(ClientError) as excinfo:
        ddb.transact_write_items(TransactItems=puts)
    # DynamoDB Local 1.25's wording (DynamoDB's own is not on record; suites
    # run against DynamoDB pin its "size cannot exceed")
    assert_error(excinfo, "ValidationException",
                 f"Transaction payload size cannot exceed 4MB. Payload Size: {payload}")
    assert ddb.scan(TableName=videos)["Count"] == 0
    ddb.transact_write_items(TransactItems=[put(i, 350_000) for i in range(10)])
    pages = ddb.get_paginator("scan").paginate(TableName=videos, Select="COUNT")
    assert sum(page["Count"] for page in pages) == 10


@pytest.mark.parametrize(
    ("items", "code", "message"),
    [
        ([{"Put": {"Item": {"PK": {"S": "a"}, "SK": {"S": "a"}}}},
          {"Delete": {"Key": {"PK": {"S": "a"}, "SK": {"S": "a"}}}}],
         "ValidationException", "Transaction request cannot include multiple operations on one "
                                "item"),
        ([{"Put": {"Item": {"PK": {"S": ""}, "SK": {"S": "a"}}}}],
         "ValidationException", "One or more parameter values are not valid. The AttributeValue "
                                "for a key attribute cannot contain an empty string value. Key: "
                                "PK"),
        ([{"Update": {"Key": {"PK": {"S": "a"}, "SK": {"S": "a"}},
                      "UpdateExpression": "SET PK = :v",
                      "ExpressionAttributeValues": {":v": {"S": "b"}}}}],
         "ValidationException", "One or more parameter values were invalid: Cannot update "
                                "attribute PK. This attribute is part of the key"),
        ([{"ConditionCheck": {"Key": {"PK": {"S": "a"}, "SK": {"S": "a"}},
                              "ConditionExpression": "attribute_not_exists(PK)",
                              "ExpressionAttributeValues": {":v": {"S": "x"}}}}],
         "ValidationException", "Value provided in ExpressionAttributeValues unused in "
                                "expressions: keys: {:v}"),
    ],
)
def test_request_errors(
    ddb: Any, videos: str, items: list[dict[str, Any]], code: str, message: str
) -> None:
    for item in items:
        next(iter(item.values()))["TableName"] = videos
    with pytest.raises(ClientError) as excinfo:
        ddb.transact_write_items(TransactItems=items)
    assert error_of(excinfo) == (code, message, 400)
    assert ddb.scan(TableName=videos)["Count"] == 0


def test_unused_value_before_missing_table(ddb: Any, videos: str) -> None:
    # Conformance (us-east-1, eu-west-2): every action's own checks come before tables.
    with pytest.raises(ClientError) as excinfo:
        ddb.transact_write_items(TransactItems=[
            {"Put": {"TableName": "no-such-table-tw", "Item": {"PK": {"S": "a"}}}},
            {"ConditionCheck": {"TableName": videos, "Key": TOTAL,
                                "ConditionExpression": "attribute_not_exists(PK)",
                                "ExpressionAttributeValues": {":v": {"S": "x"}}}},
        ])
    assert error_of(excinfo)[1] == (
        "Value provided in ExpressionAttributeValues unused in expressions: keys: {:v}")
    with pytest.raises(ClientError) as excinfo:
        ddb.transact_write_items(TransactItems=[
            {"Put": {"TableName": "no-such-table-tw", "Item": {"PK": {"S": "a"}}}}])
    assert error_of(excinfo) == (
        "ResourceNotFoundException", "Requested resource not found", 400)


def test_invalid_action(backend: Backend, videos: str) -> None:
    response = backend.raw("TransactWriteItems", {"TransactItems": [
        {"Increment": {"TableName": videos, "Key": TOTAL}}]})
    assert (response.status, response.error_code) == (400, "ValidationException")
    assert response.message == ("The action or operation requested is invalid. Verify that the "
                                "action is typed correctly.")


def test_hundred_actions(ddb: Any, make_table: Callable[..., str]) -> None:
    table = make_table("tx100", hash=("id", "S"))
    items = [{"Put": {"TableName": table, "Item": {"id": {"S": f"i{n}"}}}} for n in range(100)]
    ddb.transact_write_items(TransactItems=items)
    assert ddb.scan(TableName=table, Select="COUNT")["Count"] == 100
    with pytest.raises(ClientError) as excinfo:
        extra = {"Put": {"TableName": table, "Item": {"id": {"S": "i100"}}}}
        ddb.transact_write_items(TransactItems=[*items, extra])
    code, message, _ = error_of(excinfo)
    assert code == "ValidationException"
    assert message.endswith("Member must have length less than or equal to 100")


def test_transact_get_items(ddb: Any, videos: str) -> None:
    ddb.put_item(TableName=videos, Item={**TOTAL, "play_count": {"N": "7"}, "x": {"S": "y"}})
    response = ddb.transact_get_items(TransactItems=[
        {"Get": {"TableName": videos, "Key": TOTAL, "ProjectionExpression": "play_count"}},
        {"Get": {"TableName": videos, "Key": {"PK": VIDEO, "SK": {"S": "NONE"}}}},
    ])
    assert response["Responses"] == [{"Item": {"play_count": {"N": "7"}}}, {}]
    with pytest.raises(ClientError) as excinfo:
        ddb.transact_get_items(TransactItems=[{"Get": {"TableName": videos, "Key": {}}}])
    assert error_of(excinfo)[0] == "TransactionCanceledException"
    assert excinfo.value.response["CancellationReasons"] == [
        {"Code": "ValidationError",
         "Message": "The provided key element does not match the schema"}]
    with pytest.raises(ClientError) as excinfo:
        ddb.transact_get_items(TransactItems=[{"Get": {"TableName": videos, "Key": TOTAL}}] * 2)
    assert error_of(excinfo)[1] == (
        "Transaction request cannot include multiple operations on one item")
