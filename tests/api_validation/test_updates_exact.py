"""UpdateItem on missing items, legacy empty sets, and attribute names, as
DynamoDB answers them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from tallytest import assert_error

VALIDATION = "ValidationException"
INVALID = "One or more parameter values were invalid: "
# DynamoDB's wording for an empty name outside ExpressionAttributeNames is
# not on record: the closest documented one (ExpressionAttributeNames').
EMPTY_NAME = INVALID + "Empty attribute name"
KEY = {"pk": {"S": "a"}}
MISSING = {"pk": {"S": "missing"}}


@pytest.fixture
def tbl(ddb: Any, make_table: Callable[..., str]) -> str:
    name = make_table("upd", hash=("pk", "S"))
    ddb.put_item(TableName=name, Item={**KEY, "n": {"N": "1"}})
    return name


def items(ddb: Any, table: str) -> list[Any]:
    return sorted(ddb.scan(TableName=table, ConsistentRead=True)["Items"], key=repr)


def refused(ddb: Any, table: str, call: Callable[[], Any], message: str) -> None:
    before = items(ddb, table)
    with pytest.raises(ClientError) as excinfo:
        call()
    assert_error(excinfo, VALIDATION, message)
    assert items(ddb, table) == before


@pytest.mark.parametrize("update", [
    {"UpdateExpression": "REMOVE b"},
    {"UpdateExpression": "REMOVE x.y"},
    {"UpdateExpression": "REMOVE x[0], b"},
    {"AttributeUpdates": {"a": {"Action": "DELETE"}}},
    # a legacy DELETE of set members removes too: DynamoDB creates nothing
    # (suites run against DynamoDB; DynamoDB Local agrees)
    {"AttributeUpdates": {"a": {"Action": "DELETE", "Value": {"NS": ["4"]}}}},
    {"AttributeUpdates": {"a": {"Action": "DELETE", "Value": {"SS": ["x"]}},
                          "b": {"Action": "DELETE"}}},
])
def test_update_that_only_removes_creates_nothing(
        ddb: Any, tbl: str, update: dict[str, Any]) -> None:
    # DynamoDB: nothing to remove from a missing item, so none is created,
    # and even ALL_NEW returns no Attributes.
    answer = ddb.update_item(TableName=tbl, Key=MISSING, ReturnValues="ALL_NEW", **update)
    assert "Attributes" not in answer
    assert "Item" not in ddb.get_item(TableName=tbl, Key=MISSING, ConsistentRead=True)


def test_transaction_update_that_only_removes_creates_nothing(ddb: Any, tbl: str) -> None:
    ddb.transact_write_items(TransactItems=[{"Update": {
        "TableName": tbl, "Key": MISSING, "UpdateExpression": "REMOVE x.y"}}])
    assert "Item" not in ddb.get_item(TableName=tbl, Key=MISSING, ConsistentRead=True)


def test_empty_attribute_updates_creates_the_item(ddb: Any, tbl: str) -> None:
    ddb.update_item(TableName=tbl, Key=MISSING, AttributeUpdates={})
    assert ddb.get_item(TableName=tbl, Key=MISSING, ConsistentRead=True)["Item"] == MISSING


def test_remove_of_a_nested_path_on_an_item_without_it_is_invalid(ddb: Any, tbl: str) -> None:
    # DynamoDB: on an existing item the path must exist.
    refused(ddb, tbl, lambda: ddb.update_item(TableName=tbl, Key=KEY,
                                              UpdateExpression="REMOVE x.y"),
            "The document path provided in the update expression is invalid for update")


@pytest.mark.parametrize("action", ["PUT", "DELETE"])
@pytest.mark.parametrize(("value", "message"), [
    ({"NS": []}, INVALID + "An number set  may not be empty"),
    ({"SS": []}, INVALID + "An string set  may not be empty"),
    ({"BS": []}, INVALID + "Binary sets should not be empty"),
])
def test_attribute_updates_with_an_empty_set_is_invalid(
        ddb: Any, tbl: str, action: str, value: Any, message: str) -> None:
    refused(ddb, tbl, lambda: ddb.update_item(
        TableName=tbl, Key=KEY, AttributeUpdates={"s": {"Action": action, "Value": value}}),
        message)


def test_empty_attribute_names_are_invalid(ddb: Any, tbl: str) -> None:
    refused(ddb, tbl, lambda: ddb.put_item(TableName=tbl, Item={**KEY, "": {"S": "x"}}),
            EMPTY_NAME)
    refused(ddb, tbl, lambda: ddb.update_item(
        TableName=tbl, Key=KEY, AttributeUpdates={"": {"Value": {"N": "1"}}}), EMPTY_NAME)
    refused(ddb, tbl, lambda: ddb.put_item(
        TableName=tbl, Item=KEY, Expected={"": {"Exists": False}}), EMPTY_NAME)
    refused(ddb, tbl, lambda: ddb.get_item(TableName=tbl, Key=KEY, AttributesToGet=[""]),
            EMPTY_NAME)
    refused(ddb, tbl, lambda: ddb.scan(
        TableName=tbl, ScanFilter={"": {"ComparisonOperator": "NULL"}}), EMPTY_NAME)
    # DynamoDB's own wording for the placeholder map (projection, update, condition).
    placeholder = ("ExpressionAttributeNames contains invalid value: Empty attribute name "
                   "for key #a")
    refused(ddb, tbl, lambda: ddb.get_item(
        TableName=tbl, Key=KEY, ProjectionExpression="#a",
        ExpressionAttributeNames={"#a": ""}), placeholder)
    refused(ddb, tbl, lambda: ddb.update_item(
        TableName=tbl, Key=KEY, UpdateExpression="SET #a = :v",
        ExpressionAttributeNames={"#a": ""}, ExpressionAttributeValues={":v": {"N": "1"}}),
        placeholder)
    refused(ddb, tbl, lambda: ddb.put_item(
        TableName=tbl, Item=KEY, ConditionExpression="attribute_exists(#a)",
        ExpressionAttributeNames={"#a": ""}), placeholder)


def test_put_item_refuses_a_name_over_65535(ddb: Any, tbl: str) -> None:
    # DynamoDB: 65,535 is the longest attribute name (alternator's tests,
    # run against DynamoDB); the model's map-key constraint words the refusal.
    long_name = "x" * 65535
    ddb.put_item(TableName=tbl, Item={"pk": {"S": "long"}, long_name: {"N": "1"}})
    before = items(ddb, tbl)
    with pytest.raises(ClientError) as excinfo:
        ddb.put_item(TableName=tbl, Item={"pk": {"S": "longer"}, long_name + "x": {"N": "1"}})
    assert_error(excinfo, VALIDATION, None)
    assert excinfo.value.response["Error"]["Message"].endswith(
        "' at 'item' failed to satisfy constraint: Map keys must satisfy constraint: "
        "[Member must have length less than or equal to 65535]")
    assert items(ddb, tbl) == before


@pytest.mark.parametrize(("kind", "stored", "added", "expected"), [
    ("SS", ["b", "d"], ["c", "a", "e"], ["a", "b", "c", "d", "e"]),
    ("NS", ["10", "2"], ["-1", "3.5", "100"], ["-1", "2", "3.5", "10", "100"]),
    ("BS", [b"\x02", b"\xff"], [b"\x01", b"\x03"], [b"\x01", b"\x02", b"\x03", b"\xff"]),
])
def test_add_to_a_set_stores_it_in_the_sets_order(
        ddb: Any, tbl: str, kind: str, stored: list[Any], added: list[Any],
        expected: list[Any]) -> None:
    # Sets are unordered in DynamoDB; tallydb stores them one way whatever
    # wrote them: PutItem and SET sort them (strings and binaries by their
    # bytes, numbers by value), and so does ADD, as DynamoDB Local does.
    ddb.put_item(TableName=tbl, Item={**KEY, "s": {kind: stored}})
    ddb.update_item(TableName=tbl, Key=KEY, UpdateExpression="ADD s :v",
                    ExpressionAttributeValues={":v": {kind: added}})
    got = ddb.get_item(TableName=tbl, Key=KEY, ConsistentRead=True)["Item"]["s"]
    assert got == {kind: expected}
    ddb.update_item(TableName=tbl, Key=KEY, AttributeUpdates={
        "s": {"Action": "ADD", "Value": {kind: [expected[-1], expected[0]]}}})
    assert ddb.get_item(TableName=tbl, Key=KEY, ConsistentRead=True)["Item"]["s"] == got
