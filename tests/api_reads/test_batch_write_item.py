"""BatchWriteItem through boto3 (real server and in-process).

Messages are DynamoDB's: architect/dynalite's tests (recorded against
DynamoDB) and paritysuite/dynamodb-conformance's captures (2026).
"""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError
from tallytest import Backend, error_of


def _scan_keys(ddb: Any, table: str) -> list[str]:
    return sorted(item["id"]["S"] for item in ddb.scan(TableName=table)["Items"])


def test_puts_and_deletes_in_one_batch(ddb: Any, hash_table: str) -> None:
    old = {"PutRequest": {"Item": {"id": {"S": "old"}}}}
    ddb.batch_write_item(RequestItems={hash_table: [old]})
    response = ddb.batch_write_item(
        RequestItems={
            hash_table: [
                {"PutRequest": {"Item": {"id": {"S": "a"}, "n": {"N": "1"}}}},
                {"PutRequest": {"Item": {"id": {"S": "b"}}}},
                {"DeleteRequest": {"Key": {"id": {"S": "old"}}}},
            ]
        },
        ReturnConsumedCapacity="TOTAL",
    )
    assert response["UnprocessedItems"] == {}
    # One write unit per item up to 1 KB; a delete of any item costs one.
    assert response["ConsumedCapacity"] == [{"TableName": hash_table, "CapacityUnits": 3.0}]
    assert _scan_keys(ddb, hash_table) == ["a", "b"]


def test_twenty_five_requests_is_the_limit(ddb: Any, hash_table: str) -> None:
    requests = [{"PutRequest": {"Item": {"id": {"S": f"k{i:02}"}}}} for i in range(25)]
    assert ddb.batch_write_item(RequestItems={hash_table: requests})["UnprocessedItems"] == {}
    assert len(_scan_keys(ddb, hash_table)) == 25
    too_many = [*requests, {"PutRequest": {"Item": {"id": {"S": "k25"}}}}]
    with pytest.raises(ClientError) as excinfo:
        ddb.batch_write_item(RequestItems={hash_table: too_many})
    code, message, status = error_of(excinfo)
    assert (code, status) == ("ValidationException", 400)
    # DynamoDB echoes the request in Java's toString form; the constraint is exact.
    assert message.startswith("1 validation error detected: ")
    assert "Member must have length less than or equal to 25" in message


def test_duplicate_keys_in_one_batch(ddb: Any, hash_table: str) -> None:
    with pytest.raises(ClientError) as excinfo:
        ddb.batch_write_item(
            RequestItems={
                hash_table: [
                    {"PutRequest": {"Item": {"id": {"S": "dup"}}}},
                    {"DeleteRequest": {"Key": {"id": {"S": "dup"}}}},
                ]
            }
        )
    assert error_of(excinfo) == (
        "ValidationException", "Provided list of item keys contains duplicates", 400)
    assert _scan_keys(ddb, hash_table) == []


def test_key_problems(ddb: Any, hash_table: str) -> None:
    cases = [
        ({"PutRequest": {"Item": {"id": {"N": "5"}}}},
         "The provided key element does not match the schema"),
        ({"PutRequest": {"Item": {"other": {"S": "x"}}}},
         "The provided key element does not match the schema"),
        ({"DeleteRequest": {"Key": {"other": {"S": "x"}}}},
         "The provided key element does not match the schema"),
        ({"PutRequest": {"Item": {"id": {"S": ""}}}},
         "One or more parameter values are not valid. The AttributeValue for a key attribute "
         "cannot contain an empty string value. Key: id"),
    ]
    for write, message in cases:
        with pytest.raises(ClientError) as excinfo:
            ddb.batch_write_item(RequestItems={hash_table: [write]})
        assert error_of(excinfo) == ("ValidationException", message, 400)


def test_missing_table(ddb: Any) -> None:
    with pytest.raises(ClientError) as excinfo:
        ddb.batch_write_item(
            RequestItems={"no-such-table-bw": [{"PutRequest": {"Item": {"id": {"S": "a"}}}}]})
    assert error_of(excinfo) == ("ResourceNotFoundException", "Requested resource not found", 400)


def test_a_bad_request_writes_nothing(ddb: Any, hash_table: str) -> None:
    with pytest.raises(ClientError):
        ddb.batch_write_item(
            RequestItems={
                hash_table: [
                    {"PutRequest": {"Item": {"id": {"S": "fine"}}}},
                    {"PutRequest": {"Item": {"id": {"N": "1"}}}},
                ]
            }
        )
    assert _scan_keys(ddb, hash_table) == []


@pytest.mark.parametrize(
    "write",
    [
        # The seed article: "BatchWriteItem is put/delete only". An update is
        # not a member DynamoDB knows here; what is left is an empty request.
        {"UpdateRequest": {"Key": {"id": {"S": "a"}}, "UpdateExpression": "ADD n :one",
                           "ExpressionAttributeValues": {":one": {"N": "1"}}}},
        {},
        {"PutRequest": {"Item": {"id": {"S": "a"}}}, "DeleteRequest": {"Key": {"id": {"S": "a"}}}},
    ],
)
def test_only_put_or_delete(backend: Backend, hash_table: str, write: dict[str, Any]) -> None:
    response = backend.raw("BatchWriteItem", {"RequestItems": {hash_table: [write]}})
    assert response.status == 400
    assert response.error_code == "ValidationException"
    # DynamoDB's words for a WriteRequest without exactly one member (dynalite).
    assert response.message == (
        "Supplied AttributeValue has more than one datatypes set, must contain exactly one of "
        "the supported datatypes"
    )
    assert backend.client().scan(TableName=hash_table)["Count"] == 0


def test_item_too_large(ddb: Any, hash_table: str) -> None:
    big = {"id": {"S": "big"}, "blob": {"S": "x" * (400 * 1024)}}
    with pytest.raises(ClientError) as excinfo:
        ddb.batch_write_item(RequestItems={hash_table: [{"PutRequest": {"Item": big}}]})
    assert error_of(excinfo) == (
        "ValidationException", "Item size has exceeded the maximum allowed size", 400)
