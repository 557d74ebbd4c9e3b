"""A request made like one that passed before takes a shorter path
(UpdateItem's and GetItem's ``quick``), and gets exactly the answer the
full checks give: a request equal by Python's ``==`` but not by JSON type,
a key of another shape, or a table deleted and made again with another
schema, are all refused as the first time. Through boto3's wire against a
real ``tallydb serve`` and in-process.
"""

from __future__ import annotations

from collections.abc import Callable

from tallytest import Backend

SCHEMA_MISMATCH = "The provided key element does not match the schema"


def _remade(backend: Backend, name: str, kind: str) -> None:
    """Delete table ``name`` and make it again, keyed by ``pk`` of ``kind``."""
    assert backend.raw("DeleteTable", {"TableName": name}).status == 200
    made = backend.raw("CreateTable", {
        "TableName": name, "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": kind}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]})
    assert made.status == 200, made.body


def test_a_repeated_get_item_follows_its_table(
        backend: Backend, make_table: Callable[..., str]) -> None:
    name = make_table("rep", hash=("pk", "S"))
    backend.raw("PutItem", {"TableName": name, "Item": {"pk": {"S": "a"}, "n": {"N": "1"}}})
    get = {"TableName": name, "Key": {"pk": {"S": "a"}}, "ConsistentRead": True}
    for _ in range(3):
        answer = backend.raw("GetItem", get)
        assert answer.json == {"Item": {"pk": {"S": "a"}, "n": {"N": "1"}}}
    _remade(backend, name, "N")
    answer = backend.raw("GetItem", get)
    assert (answer.status, answer.error_code, answer.message) == (
        400, "ValidationException", SCHEMA_MISMATCH)
    assert backend.raw("GetItem", {**get, "Key": {"pk": {"N": "1"}}}).json == {}


def test_a_get_item_equal_but_of_another_json_type_is_refused(
        backend: Backend, make_table: Callable[..., str]) -> None:
    """``True == 1`` in Python: a ConsistentRead of 1 after one of true is
    still DynamoDB's SerializationException, not the earlier request's pass."""
    name = make_table("rep", hash=("pk", "S"))
    get = {"TableName": name, "Key": {"pk": {"S": "a"}}, "ConsistentRead": True}
    for _ in range(3):
        assert backend.raw("GetItem", get).status == 200
    answer = backend.raw("GetItem", {**get, "ConsistentRead": 1})
    assert (answer.status, answer.error_code) == (400, "SerializationException")
    answer = backend.raw("GetItem", {**get, "Key": {"pk": {"S": ""}}})
    assert (answer.status, answer.error_code) == (400, "ValidationException")
    answer = backend.raw("GetItem", {**get, "Key": {"pk": {"N": "1"}}})
    assert (answer.status, answer.error_code, answer.message) == (
        400, "ValidationException", SCHEMA_MISMATCH)


def test_a_repeated_update_item_follows_its_table(
        backend: Backend, make_table: Callable[..., str]) -> None:
    name = make_table("rep", hash=("pk", "S"))
    add = {"TableName": name, "Key": {"pk": {"S": "hot"}}, "UpdateExpression": "ADD n :one",
           "ExpressionAttributeValues": {":one": {"N": "1"}}, "ReturnValues": "UPDATED_NEW"}
    for count in range(1, 5):
        assert backend.raw("UpdateItem", add).json == {"Attributes": {"n": {"N": str(count)}}}
    _remade(backend, name, "N")
    answer = backend.raw("UpdateItem", add)
    assert (answer.status, answer.error_code, answer.message) == (
        400, "ValidationException", SCHEMA_MISMATCH)
    _remade(backend, name, "S")
    assert backend.raw("UpdateItem", add).json == {"Attributes": {"n": {"N": "1"}}}


def test_an_update_item_equal_but_of_another_json_type_is_refused(
        backend: Backend, make_table: Callable[..., str]) -> None:
    name = make_table("rep", hash=("pk", "S"))
    add = {"TableName": name, "Key": {"pk": {"S": "hot"}}, "UpdateExpression": "ADD n :one",
           "ExpressionAttributeValues": {":one": {"N": "1"}}}
    for _ in range(3):
        assert backend.raw("UpdateItem", add).status == 200
    answer = backend.raw("UpdateItem", {**add, "ExpressionAttributeValues": {":one": {"N": 1}}})
    assert (answer.status, answer.error_code) == (400, "SerializationException")
    answer = backend.raw("UpdateItem", {**add, "ExpressionAttributeValues": {":one": {"S": "1"}}})
    assert (answer.status, answer.error_code) == (400, "ValidationException")
    assert "ADD" in (answer.message or "")
    answer = backend.raw("GetItem", {"TableName": name, "Key": {"pk": {"S": "hot"}}})
    assert answer.json["Item"]["n"] == {"N": "3"}  # the refused ones changed nothing


def test_members_outside_the_model_change_nothing_on_a_repeat(
        backend: Backend, make_table: Callable[..., str]) -> None:
    name = make_table("rep", hash=("pk", "S"))
    add = {"TableName": name, "Key": {"pk": {"S": "hot"}}, "UpdateExpression": "ADD n :one",
           "ExpressionAttributeValues": {":one": {"N": "1"}}, "Decoy": {"TableName": "x"}}
    for _ in range(3):
        assert backend.raw("UpdateItem", add).status == 200
    get = {"TableName": name, "Key": {"pk": {"S": "hot"}}, "Limit": "x"}
    for _ in range(3):
        assert backend.raw("GetItem", get).json["Item"]["n"] == {"N": "3"}
