"""What a table with indexes refuses, with DynamoDB's messages.

Sources: architect/dynalite's tests (recorded against DynamoDB) for the type
mismatch, Select and ConsistentRead refusals and start keys; real AWS
responses captured in eu-west-2 (an emulator's conformance suite) for the
empty key values and for transactions (type errors are cancellation reasons,
empty values top-level); ScyllaDB's alternator tests, run against DynamoDB,
for "a refused write changes nothing, not even in the base table".
"""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError
from index_tables import gsi, lsi, make_indexed  # noqa: F401
from tallytest import error_of

INVALID = "One or more parameter values were invalid: "


@pytest.fixture
def table(make_indexed: Any) -> str:  # noqa: F811
    return make_indexed(
        "errs", [("PK", "HASH"), ("SK", "RANGE")],
        {"PK": "S", "SK": "S", "g": "S", "n": "N", "b": "B"},
        gsis=[gsi("gsi_g", "g", projection="KEYS_ONLY"), gsi("gsi_n", "n"), gsi("gsi_b", "b")],
        lsis=[lsi("lsi_n", "PK", "n", projection="KEYS_ONLY")],
    )


def _refused(call: Any, **kwargs: Any) -> tuple[str, str, int]:
    with pytest.raises(ClientError) as excinfo:
        call(**kwargs)
    return error_of(excinfo)


def _mismatch(name: str, expected: str, actual: str, index: str) -> tuple[str, str, int]:
    return ("ValidationException",
            f"{INVALID}Type mismatch for Index Key {name} Expected: {expected} Actual: {actual} "
            f"IndexName: {index}", 400)


KEY = {"PK": {"S": "p"}, "SK": {"S": "s"}}


def test_type_mismatch_on_every_write(ddb: Any, table: str) -> None:
    # PutItem, and nothing is written (not even to the table).
    assert _refused(ddb.put_item, TableName=table, Item={**KEY, "g": {"N": "1"}}) == (
        _mismatch("g", "S", "N", "gsi_g"))
    assert "Item" not in ddb.get_item(TableName=table, Key=KEY)
    # n keys both gsi_n and lsi_n: DynamoDB names the first index by name.
    assert _refused(ddb.put_item, TableName=table, Item={**KEY, "n": {"S": "x"}}) == (
        _mismatch("n", "N", "S", "gsi_n"))
    assert _refused(ddb.put_item, TableName=table, Item={**KEY, "g": {"L": []}}) == (
        _mismatch("g", "S", "L", "gsi_g"))
    # UpdateItem leaves the item as it was.
    ddb.put_item(TableName=table, Item={**KEY, "g": {"S": "ok"}})
    assert _refused(ddb.update_item, TableName=table, Key=KEY, UpdateExpression="SET g = :v",
                    ExpressionAttributeValues={":v": {"N": "3"}}) == (
        _mismatch("g", "S", "N", "gsi_g"))
    assert _refused(ddb.update_item, TableName=table, Key=KEY,
                    AttributeUpdates={"g": {"Value": {"N": "3"}, "Action": "PUT"}}) == (
        _mismatch("g", "S", "N", "gsi_g"))
    assert ddb.get_item(TableName=table, Key=KEY)["Item"] == {**KEY, "g": {"S": "ok"}}
    # BatchWriteItem: one bad item refuses the whole batch.
    good = {"PK": {"S": "p"}, "SK": {"S": "good"}, "g": {"S": "x"}}
    assert _refused(ddb.batch_write_item, RequestItems={table: [
        {"PutRequest": {"Item": good}},
        {"PutRequest": {"Item": {"PK": {"S": "p"}, "SK": {"S": "bad"}, "g": {"N": "1"}}}},
    ]}) == _mismatch("g", "S", "N", "gsi_g")
    assert "Item" not in ddb.get_item(TableName=table, Key={"PK": {"S": "p"}, "SK": {"S": "good"}})


def test_a_nested_update_of_an_index_key(ddb: Any, table: str) -> None:
    # alternator's test_gsi_wrong_type_attribute_update_nested quotes DynamoDB.
    assert _refused(ddb.update_item, TableName=table, Key=KEY, UpdateExpression="SET g.h = :v",
                    ExpressionAttributeValues={":v": {"S": "x"}}) == (
        "ValidationException",
        "Key attributes must be scalars; list random access '[]' and map lookup '.' are not "
        "allowed: IndexKey: g", 400)


def test_empty_index_key_values(ddb: Any, table: str) -> None:
    assert _refused(ddb.put_item, TableName=table, Item={**KEY, "g": {"S": ""}}) == (
        "ValidationException",
        "One or more parameter values are not valid. A value specified for a secondary index "
        "key is not supported. The AttributeValue for a key attribute cannot contain an empty "
        "string value. IndexName: gsi_g, IndexKey: g", 400)
    assert _refused(ddb.put_item, TableName=table, Item={**KEY, "b": {"B": b""}}) == (
        "ValidationException",
        "One or more parameter values are not valid. A value specified for a secondary index "
        "key is not supported. The AttributeValue for a key attribute cannot contain an empty "
        "binary value. IndexName: gsi_b, IndexKey: b", 400)
    assert _refused(ddb.update_item, TableName=table, Key=KEY, UpdateExpression="SET g = :v",
                    ExpressionAttributeValues={":v": {"S": ""}}) == (
        "ValidationException",
        "One or more parameter values are not valid. The update expression attempted to update "
        "a secondary index key to a value that is not supported. The AttributeValue for a key "
        "attribute cannot contain an empty string value.", 400)
    assert "Item" not in ddb.get_item(TableName=table, Key=KEY)


def test_transactions_cancel_on_a_type_mismatch(ddb: Any, table: str) -> None:
    with pytest.raises(ClientError) as excinfo:
        ddb.transact_write_items(TransactItems=[
            {"Put": {"TableName": table, "Item": {**KEY, "n": {"S": "5"}}}},
            {"Update": {"TableName": table, "Key": {"PK": {"S": "p"}, "SK": {"S": "u"}},
                        "UpdateExpression": "SET g = :v",
                        "ExpressionAttributeValues": {":v": {"N": "5"}}}},
        ])
    response = excinfo.value.response
    assert response["Error"]["Code"] == "TransactionCanceledException"
    # DynamoDB stops at the first ValidationError: the actions after it are None.
    assert response["CancellationReasons"] == [
        {"Code": "ValidationError", "Message": _mismatch("n", "N", "S", "gsi_n")[1]},
        {"Code": "None"},
    ]
    assert _refused(ddb.transact_write_items, TransactItems=[
        {"Put": {"TableName": table, "Item": {**KEY, "g": {"S": ""}}}}]) == (
        "ValidationException",
        "One or more parameter values are not valid. A value specified for a secondary index "
        "key is not supported. The AttributeValue for a key attribute cannot contain an empty "
        "string value. IndexName: gsi_g, IndexKey: g", 400)


@pytest.mark.parametrize(
    ("operation", "kwargs", "message"),
    [
        ("query", {"IndexName": "nope", "KeyConditionExpression": "g = :g"},
         "The table does not have the specified index: nope"),
        ("scan", {"IndexName": "nope"}, "The table does not have the specified index: nope"),
        ("query", {"IndexName": "gsi_g", "KeyConditionExpression": "g = :g",
                   "ConsistentRead": True},
         "Consistent reads are not supported on global secondary indexes"),
        ("scan", {"IndexName": "gsi_g", "ConsistentRead": True},
         "Consistent reads are not supported on global secondary indexes"),
        ("query", {"IndexName": "gsi_g", "KeyConditionExpression": "g = :g",
                   "Select": "ALL_ATTRIBUTES"},
         INVALID + "Select type ALL_ATTRIBUTES is not supported for global secondary index "
                   "gsi_g because its projection type is not ALL"),
        ("scan", {"IndexName": "gsi_g", "Select": "ALL_ATTRIBUTES"},
         INVALID + "Select type ALL_ATTRIBUTES is not supported for global secondary index "
                   "gsi_g because its projection type is not ALL"),
        ("query", {"IndexName": "gsi_g", "KeyConditionExpression": "PK = :g"},
         "Query condition missed key schema element: g"),
        ("query", {"IndexName": "gsi_g", "KeyConditionExpression": "g = :g",
                   "FilterExpression": "g = :g"},
         "Filter Expression can only contain non-primary key attributes: Primary key "
         "attribute: g"),
        # a start key of another size than the table's key and the index's
        # (DynamoDB's newer wording, as in tests/api_reads/test_query.py)
        ("query", {"IndexName": "gsi_g", "KeyConditionExpression": "g = :g",
                   "ExclusiveStartKey": {"PK": {"S": "p"}, "SK": {"S": "s"}}},
         "Exclusive Start Key must have same size as table's key schema"),
        ("query", {"IndexName": "gsi_g", "KeyConditionExpression": "g = :g",
                   "ExclusiveStartKey": {"PK": {"S": "p"}, "SK": {"S": "s"}, "g": {"N": "1"}}},
         "The provided key element does not match the schema"),
        ("query", {"IndexName": "gsi_g", "KeyConditionExpression": "g = :g",
                   "ExclusiveStartKey": {"PK": {"S": "p"}, "x": {"S": "s"}, "g": {"S": "g"}}},
         "The provided starting key is invalid: The provided key element does not match the "
         "schema"),
        ("scan", {"IndexName": "gsi_g", "ExclusiveStartKey": {"PK": {"S": "p"}}},
         "Exclusive Start Key must have same size as table's key schema"),
        ("scan", {"ProjectionExpression": "g.h"},
         "Key attributes must be scalars; list random access '[]' and map lookup '.' are not "
         "allowed: IndexKey: g"),
    ],
)
def test_index_reads_refused(ddb: Any, table: str, operation: str, kwargs: dict[str, Any],
                             message: str) -> None:
    if "KeyConditionExpression" in kwargs:
        kwargs["ExpressionAttributeValues"] = {":g": {"S": "g"}}
    assert _refused(getattr(ddb, operation), TableName=table, **kwargs) == (
        "ValidationException", message, 400)
