"""check_request: DynamoDB's JSON-type and constraint checks, every operation.

JSON-layer texts: architect/dynalite test/helpers.js ``assertType`` (run
against DynamoDB). Constraint texts: dynalite's tests and the 2026 captures
of nubo-db/dynamodb-conformance (us-east-1 wording). Each case names what
DynamoDB answers.
"""

from __future__ import annotations

from typing import Any

import pytest

from tallydb.engine.api._shapes import check_request
from tallydb.engine.errors import DynamoDBError, SerializationException, ValidationException

CAST = (
    "class sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl cannot be cast to "
    "class java.lang.Class (sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl "
    "and java.lang.Class are in module java.base of loader 'bootstrap')"
)
STRUCTURE_FOUND = "Start of structure or map found where not expected"
AV_MAP = "java.util.Map<java.lang.String, com.amazonaws.dynamodb.v20120810.AttributeValue>"


def error_of(operation: str, request: dict[str, Any]) -> DynamoDBError:
    with pytest.raises(DynamoDBError) as excinfo:
        check_request(operation, request)
    return excinfo.value


def serialization(operation: str, request: dict[str, Any]) -> str:
    error = error_of(operation, request)
    assert isinstance(error, SerializationException), error.message
    assert error.to_wire()["__type"] == "com.amazon.coral.service#SerializationException"
    return error.message or ""


def validation(operation: str, request: dict[str, Any]) -> str:
    error = error_of(operation, request)
    assert isinstance(error, ValidationException), error.message
    return error.message or ""


def one(path: str, value: str | None, constraint: str) -> str:
    shown = "null" if value is None else f"'{value}'"
    return (
        f"1 validation error detected: Value {shown} at '{path}' failed to satisfy "
        f"constraint: {constraint}"
    )


# --- the JSON layer -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (True, "TRUE_VALUE cannot be converted to String"),
        (False, "FALSE_VALUE cannot be converted to String"),
        (23, "NUMBER_VALUE cannot be converted to String"),
        (2147483648, "NUMBER_VALUE cannot be converted to String"),
        (34.56, "DECIMAL_VALUE cannot be converted to String"),
        ([], "Unrecognized collection type class java.lang.String"),
        ({}, STRUCTURE_FOUND),
    ],
)
def test_string_member_of_the_wrong_json_type(value: Any, message: str) -> None:
    assert serialization("DescribeTable", {"TableName": value}) == message
    assert serialization("UpdateItem", {"TableName": "abc", "UpdateExpression": value}) == message


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("23", "Unexpected token received from parser"),
        (23, "NUMBER_VALUE cannot be converted to Boolean"),
        (34.56, "DECIMAL_VALUE cannot be converted to Boolean"),
        ([], "Unrecognized collection type class java.lang.Boolean"),
        ({}, STRUCTURE_FOUND),
    ],
)
def test_boolean_member_of_the_wrong_json_type(value: Any, message: str) -> None:
    assert serialization("GetItem", {"ConsistentRead": value}) == message


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("23", "STRING_VALUE cannot be converted to Integer"),
        (True, "TRUE_VALUE cannot be converted to Integer"),
        ([], "Unrecognized collection type class java.lang.Integer"),
        ({}, STRUCTURE_FOUND),
    ],
)
def test_integer_member_of_the_wrong_json_type(value: Any, message: str) -> None:
    assert serialization("ListTables", {"Limit": value}) == message


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("23", "STRING_VALUE cannot be converted to Long"),
        (False, "FALSE_VALUE cannot be converted to Long"),
        ([], "Unrecognized collection type class java.lang.Long"),
        ({}, STRUCTURE_FOUND),
    ],
)
def test_long_member_of_the_wrong_json_type(value: Any, message: str) -> None:
    request = {"TableName": "abc", "ProvisionedThroughput": {"ReadCapacityUnits": value}}
    assert serialization("CreateTable", request) == message


def test_a_decimal_where_an_integer_belongs_is_truncated() -> None:
    request: dict[str, Any] = {"Limit": 2.9}
    check_request("ListTables", request)
    assert request == {"Limit": 2}


@pytest.mark.parametrize("value", ["23", True, 23, 34.56])
def test_list_member_holding_a_scalar(value: Any) -> None:
    assert serialization("CreateTable", {"KeySchema": value}) == "Unexpected field type"


def test_list_member_holding_a_map() -> None:
    assert serialization("CreateTable", {"KeySchema": {}}) == STRUCTURE_FOUND


def test_list_as_a_map_value_holding_a_scalar() -> None:
    # BatchWriteItem RequestItems.Attr ("ParameterizedList" in dynalite's tests)
    assert serialization("BatchWriteItem", {"RequestItems": {"abc": "23"}}) == CAST


@pytest.mark.parametrize("value", ["23", 23, True])
def test_map_member_holding_a_scalar(value: Any) -> None:
    assert serialization("GetItem", {"Key": value}) == "Unexpected field type"


def test_map_member_holding_a_list() -> None:
    assert serialization("GetItem", {"Key": []}) == f"Unrecognized collection type {AV_MAP}"
    assert serialization("UpdateItem", {"ExpressionAttributeNames": []}) == (
        "Unrecognized collection type java.util.Map<java.lang.String, java.lang.String>"
    )
    assert serialization("BatchWriteItem", {"RequestItems": []}) == (
        "Unrecognized collection type java.util.Map<java.lang.String, "
        "java.util.List<com.amazonaws.dynamodb.v20120810.WriteRequest>>"
    )


def test_map_inside_a_list() -> None:
    # BatchGetItem RequestItems.Attr.Keys.0 ("ParameterizedMap")
    request = {"RequestItems": {"abc": {"Keys": ["23"]}}}
    assert serialization("BatchGetItem", request) == CAST
    request = {"RequestItems": {"abc": {"Keys": [[]]}}}
    assert serialization("BatchGetItem", request) == f"Unrecognized collection type {AV_MAP}"


def test_structure_member_of_the_wrong_json_type() -> None:
    assert serialization("CreateTable", {"ProvisionedThroughput": "23"}) == (
        "Unexpected field type"
    )
    assert serialization("CreateTable", {"ProvisionedThroughput": []}) == (
        "Unrecognized collection type class "
        "com.amazonaws.dynamodb.v20120810.ProvisionedThroughput"
    )


def test_structure_in_a_list_of_the_wrong_json_type() -> None:
    assert serialization("CreateTable", {"KeySchema": ["23"]}) == (
        "Unexpected value type in payload"
    )
    assert serialization("CreateTable", {"KeySchema": [[]]}) == (
        "Unrecognized collection type class com.amazonaws.dynamodb.v20120810.KeySchemaElement"
    )


def test_attribute_value_of_the_wrong_json_type() -> None:
    assert serialization("GetItem", {"Key": {"a": "x"}}) == "Unexpected value type in payload"
    assert serialization("GetItem", {"Key": {"a": []}}) == (
        "Unrecognized collection type class com.amazonaws.dynamodb.v20120810.AttributeValue"
    )


def test_the_json_layer_answers_before_any_constraint() -> None:
    request = {"TableName": "a;", "ReturnValues": "BAD", "ConsistentRead": "yes"}
    assert serialization("GetItem", request) == "Unexpected token received from parser"


def test_unknown_members_and_nulls_are_ignored() -> None:
    check_request("ListTables", {"hi": "yo", "stuff": ["things"]})
    check_request("ListTables", {"ExclusiveStartTableName": None, "Limit": None})
    check_request("UpdateItem", {"TableName": "abc", "Key": {"a": {"S": "x"}}, "Bogus": 1})


# --- constraints -------------------------------------------------------------------------


def test_item_operation_without_table_name() -> None:
    assert validation("UpdateItem", {}) == (
        "2 validation errors detected: "
        "Value null at 'tableName' failed to satisfy constraint: Member must not be null; "
        "Value null at 'key' failed to satisfy constraint: Member must not be null"
    )
    assert validation("Scan", {}) == one("tableName", None, "Member must not be null")


def test_table_names_dynamodb_checks() -> None:
    # "" breaks only the minimum of the ARN form (captured 2026)
    assert validation("PutItem", {"TableName": "", "Item": {}}) == one(
        "tableName", "", "Member must have length greater than or equal to 1"
    )
    assert validation("PutItem", {"TableName": "bad table!@#", "Item": {}}) == one(
        "tableName", "bad table!@#",
        "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+",
    )
    assert validation("PutItem", {"TableName": "a" * 256, "Item": {}}) == one(
        "tableName", "a" * 256, "Member must have length less than or equal to 255"
    )
    assert validation("CreateTable", {
        "TableName": "ab", "AttributeDefinitions": [], "KeySchema": [{"AttributeName": "a",
                                                                      "KeyType": "HASH"}],
    }) == one("tableName", "ab", "Member must have length greater than or equal to 3")
    check_request("DescribeTable", {"TableName": "arn:aws:dynamodb:us-east-1:0:table/abc"})


def test_table_operations_answer_a_missing_table_name_in_their_own_words() -> None:
    for operation in ("CreateTable", "DescribeTable", "DeleteTable", "UpdateTable"):
        assert validation(operation, {}) == (
            "The parameter 'TableName' is required but was not present in the request"
        )


def test_enum_value_sets_print_in_dynamodbs_order() -> None:
    request = {"TableName": "abc", "Key": {}, "ReturnValues": "NOPE"}
    assert validation("UpdateItem", request) == one(
        "returnValues", "NOPE",
        "Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]",
    )
    request = {
        "TableName": "abc",
        "AttributeDefinitions": [{"AttributeName": "b", "AttributeType": "SS"}],
        "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"}],
    }
    assert validation("CreateTable", request) == one(
        "attributeDefinitions.1.member.attributeType", "SS",
        "Member must satisfy enum value set: [B, N, S]",
    )


def test_several_violations_in_one_message_in_dynamodbs_order() -> None:
    # PutItem: returnValues before tableName; the three enums in this order (captured 2026)
    request = {"TableName": "", "Item": {}, "ReturnValues": "INVALID"}
    assert validation("PutItem", request) == (
        "2 validation errors detected: Value 'INVALID' at 'returnValues' failed to satisfy "
        "constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, "
        "UPDATED_NEW]; Value '' at 'tableName' failed to satisfy constraint: Member must have "
        "length greater than or equal to 1"
    )
    request = {
        "TableName": "abc", "Item": {}, "ReturnValues": "INVALID",
        "ReturnConsumedCapacity": "INVALID", "ReturnItemCollectionMetrics": "INVALID",
    }
    assert validation("PutItem", request) == (
        "3 validation errors detected: Value 'INVALID' at 'returnValues' failed to satisfy "
        "constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, "
        "UPDATED_NEW]; Value 'INVALID' at 'returnConsumedCapacity' failed to satisfy "
        "constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]; Value "
        "'INVALID' at 'returnItemCollectionMetrics' failed to satisfy constraint: Member must "
        "satisfy enum value set: [SIZE, NONE]"
    )
    # UpdateItem: returnConsumedCapacity before returnValues (captured 2026)
    request = {"TableName": "abc", "Key": {}, "ReturnValues": "INVALID",
               "ReturnConsumedCapacity": "INVALID"}
    assert validation("UpdateItem", request).startswith(
        "2 validation errors detected: Value 'INVALID' at 'returnConsumedCapacity'"
    )


def test_nested_paths_and_null_members() -> None:
    request = {
        "TableName": "abc",
        "AttributeDefinitions": [],
        "KeySchema": [{"KeyType": "HASH"}, {"AttributeName": "a"},
                      {"KeyType": "Woop", "AttributeName": "a"}],
    }
    assert validation("CreateTable", request) == (
        "3 validation errors detected: "
        "Value null at 'keySchema.1.member.attributeName' failed to satisfy constraint: "
        "Member must not be null; "
        "Value null at 'keySchema.2.member.keyType' failed to satisfy constraint: "
        "Member must not be null; "
        "Value 'Woop' at 'keySchema.3.member.keyType' failed to satisfy constraint: "
        "Member must satisfy enum value set: [HASH, RANGE]"
    )


def test_create_table_still_requires_its_definitions() -> None:
    # botocore's model no longer marks them required; DynamoDB does (dynalite)
    assert validation("CreateTable", {"TableName": "abc;"}) == (
        "3 validation errors detected: "
        "Value null at 'attributeDefinitions' failed to satisfy constraint: "
        "Member must not be null; "
        "Value 'abc;' at 'tableName' failed to satisfy constraint: "
        "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; "
        "Value null at 'keySchema' failed to satisfy constraint: Member must not be null"
    )


def test_value_and_length_limits() -> None:
    request = {
        "TableName": "abc", "AttributeDefinitions": [], "KeySchema": [],
        "ProvisionedThroughput": {"ReadCapacityUnits": -1, "WriteCapacityUnits": -1},
    }
    message = validation("CreateTable", request)
    assert message.startswith("3 validation errors detected: ")
    for part in (
        "Value '[]' at 'keySchema' failed to satisfy constraint: "
        "Member must have length greater than or equal to 1",
        "Value '-1' at 'provisionedThroughput.writeCapacityUnits' failed to satisfy "
        "constraint: Member must have value greater than or equal to 1",
        "Value '-1' at 'provisionedThroughput.readCapacityUnits' failed to satisfy "
        "constraint: Member must have value greater than or equal to 1",
    ):
        assert part in message
    assert validation("ListTables", {"ExclusiveStartTableName": "a;", "Limit": 500}) == (
        "3 validation errors detected: "
        "Value 'a;' at 'exclusiveStartTableName' failed to satisfy constraint: "
        "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; "
        "Value 'a;' at 'exclusiveStartTableName' failed to satisfy constraint: "
        "Member must have length greater than or equal to 3; "
        "Value '500' at 'limit' failed to satisfy constraint: "
        "Member must have value less than or equal to 100"
    )
    assert validation("ListTables", {"Limit": 0}) == one(
        "limit", "0", "Member must have value greater than or equal to 1"
    )


def test_indexes_paths_as_dynamodb_prints_them() -> None:
    request = {
        "TableName": "abc",
        "GlobalSecondaryIndexUpdates": [
            {"Update": {"IndexName": "a", "ProvisionedThroughput": {}}},
            {"Update": {"IndexName": "abc;", "ProvisionedThroughput": {
                "ReadCapacityUnits": 1000000000001, "WriteCapacityUnits": 0}}},
        ],
    }
    # dynalite's recorded message, verbatim
    assert validation("UpdateTable", request) == (
        "5 validation errors detected: "
        "Value 'a' at 'globalSecondaryIndexUpdates.1.member.update.indexName' failed to "
        "satisfy constraint: Member must have length greater than or equal to 3; "
        "Value null at 'globalSecondaryIndexUpdates.1.member.update.provisionedThroughput."
        "writeCapacityUnits' failed to satisfy constraint: Member must not be null; "
        "Value null at 'globalSecondaryIndexUpdates.1.member.update.provisionedThroughput."
        "readCapacityUnits' failed to satisfy constraint: Member must not be null; "
        "Value 'abc;' at 'globalSecondaryIndexUpdates.2.member.update.indexName' failed to "
        "satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; "
        "Value '0' at 'globalSecondaryIndexUpdates.2.member.update.provisionedThroughput."
        "writeCapacityUnits' failed to satisfy constraint: Member must have value greater "
        "than or equal to 1"
    )


def test_map_entries_paths() -> None:
    request = {"TableName": "abc", "KeyConditions": {"a": {"ComparisonOperator": "X"}}}
    assert validation("Query", request) == one(
        "keyConditions.a.member.comparisonOperator", "X",
        "Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, "
        "NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]",
    )


def test_map_value_limits_are_reported_for_the_whole_map() -> None:
    puts = [{"PutRequest": {"Item": {"pk": {"S": "x"}}}}] * 26
    message = validation("BatchWriteItem", {"RequestItems": {"t1": puts}})
    assert message.startswith("1 validation error detected: Value '{t1=[WriteRequest(")
    assert message.endswith(
        "' at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint: "
        "[Member must have length less than or equal to 25, Member must have length greater "
        "than or equal to 1]"
    )
    assert validation("BatchWriteItem", {"RequestItems": {}}) == one(
        "requestItems", "{}", "Member must have length greater than or equal to 1"
    )


def test_at_most_ten_violations_are_reported() -> None:
    request = {
        "TableName": "abc", "AttributeDefinitions": [], "KeySchema": [{"AttributeName": "a",
                                                                       "KeyType": "HASH"}],
        "LocalSecondaryIndexes": [{}] * 9,
    }
    message = validation("CreateTable", request)
    assert message.startswith("10 validation errors detected: ")
    assert message.count("failed to satisfy constraint") == 10
    assert message.endswith(
        "Value null at 'localSecondaryIndexes.4.member.indexName' failed to satisfy "
        "constraint: Member must not be null"
    )


# --- the hot path: a request made like one that passed passes without the checkers ---


def test_a_request_like_one_that_passed_is_still_refused_for_what_differs() -> None:
    good: dict[str, Any] = {
        "TableName": "counters", "Key": {"pk": {"S": "a"}},
        "UpdateExpression": "ADD n :one", "ExpressionAttributeValues": {":one": {"N": "1"}},
        "ExpressionAttributeNames": {"#n": "n"}, "ReturnValues": "UPDATED_NEW",
    }
    check_request("UpdateItem", good)
    check_request("UpdateItem", good)  # remembered: passes the quick way
    # Each member that differs is checked in full again, with DynamoDB's answer.
    assert validation("UpdateItem", {**good, "ReturnValues": "SOME"}).startswith(
        "1 validation error detected: Value 'SOME' at 'returnValues' failed to satisfy "
        "constraint: Member must satisfy enum value set:")
    assert serialization("UpdateItem", {**good, "ReturnValues": 1}) == (
        "NUMBER_VALUE cannot be converted to String")
    assert validation("UpdateItem", {**good, "TableName": "a"}) == one(
        "tableName", "a", "Member must have length greater than or equal to 3")
    assert serialization("UpdateItem", {**good, "Key": {"pk": "a"}}) == (
        "Unexpected value type in payload")
    assert serialization("UpdateItem", {**good, "ExpressionAttributeNames": {"#n": ["n"]}}) == (
        "Unrecognized collection type class java.lang.String")
    assert serialization("UpdateItem", {**good, "UpdateExpression": {}}) == STRUCTURE_FOUND
    without_key = {k: v for k, v in good.items() if k != "Key"}
    assert validation("UpdateItem", without_key) == one("key", None, "Member must not be null")
    # A JSON decimal where an integer belongs is still truncated in place.
    query: dict[str, Any] = {"TableName": "counters", "Limit": 5}
    check_request("Query", query)
    check_request("Query", query)
    truncated: dict[str, Any] = {"TableName": "counters", "Limit": 5.7}
    check_request("Query", truncated)
    assert truncated["Limit"] == 5 and type(truncated["Limit"]) is int
    assert validation("Query", {"TableName": "counters", "Limit": 0}) == one(
        "limit", "0", "Member must have value greater than or equal to 1")
