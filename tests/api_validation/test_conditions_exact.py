"""Conditions and legacy parameters as DynamoDB answers them.

A value from the request with a type its operator cannot take is the
request's mistake (ValidationException); the same type in the item makes the
condition false. Legacy Expected, QueryFilter and ScanFilter share one table
of what each ComparisonOperator takes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from tallytest import assert_error

VALIDATION = "ValidationException"
FAILED = "ConditionalCheckFailedException"
CONDITION_FAILED = "The conditional request failed"
INVALID = "One or more parameter values were invalid: "
CE = "Invalid ConditionExpression: "
UE = "Invalid UpdateExpression: "
KEY = {"pk": {"S": "a"}}
ITEM = {"pk": {"S": "a"}, "n": {"N": "1"}, "l": {"L": [{"N": "1"}]}, "s": {"S": "abc"}}


@pytest.fixture
def tbl(ddb: Any, make_table: Callable[..., str]) -> str:
    name = make_table("cond", hash=("pk", "S"))
    ddb.put_item(TableName=name, Item=ITEM)
    return name


def refused(ddb: Any, table: str, call: Callable[[], Any], code: str, message: str) -> None:
    before = ddb.scan(TableName=table, ConsistentRead=True)["Items"]
    with pytest.raises(ClientError) as excinfo:
        call()
    assert_error(excinfo, code, message)
    assert ddb.scan(TableName=table, ConsistentRead=True)["Items"] == before


def operand_type(operator: str, name: str) -> str:
    return (CE + "Incorrect operand type for operator or function; "
            f"operator or function: {operator}, operand type: {name}")


@pytest.mark.parametrize(("condition", "values", "operator", "name"), [
    ("n < :v", {":v": {"L": [{"N": "1"}]}}, "<", "LIST"),
    ("n <= :v", {":v": {"L": [{"N": "1"}]}}, "<=", "LIST"),
    ("n > :v", {":v": {"M": {}}}, ">", "MAP"),
    ("n >= :v", {":v": {"BOOL": True}}, ">=", "BOOLEAN"),
    ("n BETWEEN :v AND :w", {":v": {"L": []}, ":w": {"L": []}}, "BETWEEN", "LIST"),
])
def test_ordering_a_request_value_it_cannot_order_is_invalid(
        ddb: Any, tbl: str, condition: str, values: dict[str, Any], operator: str,
        name: str) -> None:
    # DynamoDB: "Incorrect operand type for operator or function;
    # operator or function: <, operand type: LIST" (LIST as captured; the
    # other type names follow DynamoDB's ADD/DELETE spelling).
    refused(ddb, tbl, lambda: ddb.put_item(
        TableName=tbl, Item={**ITEM, "x": {"N": "2"}}, ConditionExpression=condition,
        ExpressionAttributeValues=values), VALIDATION, operand_type(operator, name))


def test_ordering_an_item_value_it_cannot_order_is_false(ddb: Any, tbl: str) -> None:
    # DynamoDB: the list is in the item, so the condition is simply false.
    refused(ddb, tbl, lambda: ddb.put_item(
        TableName=tbl, Item={**ITEM, "x": {"N": "2"}}, ConditionExpression="l < :v",
        ExpressionAttributeValues={":v": {"N": "5"}}), FAILED, CONDITION_FAILED)


@pytest.mark.parametrize(("operator", "values", "kind"), [
    ("LE", [{"L": []}], "L"),
    ("CONTAINS", [{"L": []}], "L"),
    ("BEGINS_WITH", [{"N": "1"}], "N"),
    ("IN", [{"L": []}, {"L": []}], "L"),
    ("BETWEEN", [{"NS": ["1"]}, {"NS": ["2"]}], "NS"),
    ("BETWEEN", [{"L": []}, {"L": []}], "L"),
])
def test_expected_with_a_type_its_operator_cannot_take_is_invalid(
        ddb: Any, tbl: str, operator: str, values: list[Any], kind: str) -> None:
    # DynamoDB: "ComparisonOperator LE is not valid for L AttributeValue type".
    refused(ddb, tbl, lambda: ddb.put_item(
        TableName=tbl, Item={**ITEM, "x": {"N": "2"}},
        Expected={"n": {"ComparisonOperator": operator, "AttributeValueList": values}}),
        VALIDATION, INVALID + f"ComparisonOperator {operator} is not valid for {kind} "
        "AttributeValue type")


def test_expected_not_contains_on_a_missing_attribute_is_false(ddb: Any, tbl: str) -> None:
    # DynamoDB: NOT_CONTAINS on an attribute the item lacks does not hold.
    refused(ddb, tbl, lambda: ddb.put_item(
        TableName=tbl, Item={"pk": {"S": "new"}},
        Expected={"q": {"ComparisonOperator": "NOT_CONTAINS",
                        "AttributeValueList": [{"N": "1"}]}}), FAILED, CONDITION_FAILED)


@pytest.mark.parametrize(("extra", "message"), [
    ({}, "ConditionalOperator cannot be used without Filter or Expected"),
    ({"Expected": {}},
     "ConditionalOperator can only be used when Filter or Expected has two or more elements"),
    ({"Expected": {"n": {"Exists": True, "Value": {"N": "1"}}}},
     "ConditionalOperator can only be used when Filter or Expected has two or more elements"),
])
def test_conditional_operator_needs_two_conditions(
        ddb: Any, tbl: str, extra: dict[str, Any], message: str) -> None:
    # DynamoDB's request validator, worded as Amazon's DAX client words it.
    refused(ddb, tbl, lambda: ddb.put_item(
        TableName=tbl, Item={**ITEM, "x": {"N": "2"}}, ConditionalOperator="OR", **extra),
        VALIDATION, message)


def test_conditional_operator_on_a_scan_needs_a_filter(ddb: Any, tbl: str) -> None:
    with pytest.raises(ClientError) as excinfo:
        ddb.scan(TableName=tbl, ConditionalOperator="AND")
    assert_error(excinfo, VALIDATION,
                 "ConditionalOperator cannot be used without Filter or Expected")


@pytest.mark.parametrize(("operator", "value", "count"), [
    ("EQ", {"L": [{"N": "1"}]}, 1),
    ("NE", {"L": [{"N": "1"}]}, 0),
    ("EQ", {"M": {}}, 0),
    ("NE", {"BOOL": True}, 1),
])
def test_scan_filter_compares_documents_and_booleans(
        ddb: Any, tbl: str, operator: str, value: Any, count: int) -> None:
    # DynamoDB: EQ and NE take L, M and BOOL values in QueryFilter/ScanFilter.
    answer = ddb.scan(TableName=tbl, ScanFilter={
        "l": {"ComparisonOperator": operator, "AttributeValueList": [value]}})
    assert answer["Count"] == count
    answer = ddb.query(TableName=tbl, KeyConditions={
        "pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "a"}]}},
        QueryFilter={"l": {"ComparisonOperator": operator, "AttributeValueList": [value]}})
    assert answer["Count"] == count


@pytest.mark.parametrize("function", ["if_not_exists", "list_append"])
def test_update_functions_in_a_condition_are_misused(
        ddb: Any, tbl: str, function: str) -> None:
    refused(ddb, tbl, lambda: ddb.put_item(
        TableName=tbl, Item={**ITEM, "x": {"N": "2"}},
        ConditionExpression=f"{function}(l, :v) = :v",
        ExpressionAttributeValues={":v": {"L": []}}), VALIDATION,
        CE + "The function is not allowed to be used this way in an expression; "
        f"function: {function}")


def test_list_append_does_not_take_its_own_result(ddb: Any, tbl: str) -> None:
    refused(ddb, tbl, lambda: ddb.update_item(
        TableName=tbl, Key=KEY, UpdateExpression="SET l = list_append(list_append(:a, :b), :c)",
        ExpressionAttributeValues={":a": {"L": []}, ":b": {"L": []}, ":c": {"L": []}}),
        VALIDATION, UE + "The function is not allowed to be used this way in an expression; "
        "function: list_append")


def test_list_append_of_if_not_exists_still_works(ddb: Any, tbl: str) -> None:
    answer = ddb.update_item(
        TableName=tbl, Key=KEY, UpdateExpression="SET l = list_append(if_not_exists(l, :e), :v)",
        ExpressionAttributeValues={":e": {"L": []}, ":v": {"L": [{"N": "2"}]}},
        ReturnValues="UPDATED_NEW")
    assert answer["Attributes"] == {"l": {"L": [{"N": "1"}, {"N": "2"}]}}
