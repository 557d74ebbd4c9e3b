"""api/_params: the expression-parameter rules the item operations share.

Texts: dynalite's tests (recorded against DynamoDB); the mixed-parameter and
EAV-without-expression texts also captured 2026 (nubo-db/dynamodb-conformance,
us-east-1 wording); "ReturnValues can only be ALL_OLD or NONE": dynalite and 2026
us-east-1 captures.
"""

from __future__ import annotations

from typing import Any

import pytest

from tallydb.engine.api._params import (
    EXPRESSION_PARAMETERS,
    check_expression_params,
    check_return_values,
    placeholders,
)
from tallydb.engine.errors import ValidationException


def refused(request: dict[str, Any], operation: str = "UpdateItem") -> str:
    with pytest.raises(ValidationException) as excinfo:
        placeholders(request, *EXPRESSION_PARAMETERS[operation])
    return excinfo.value.message or ""


def test_expression_and_legacy_parameters_do_not_mix() -> None:
    assert refused({"UpdateExpression": "SET a = :v", "AttributeUpdates": {}}) == (
        "Can not use both expression and non-expression parameters in the same request: "
        "Non-expression parameters: {AttributeUpdates} Expression parameters: {UpdateExpression}"
    )
    request = {"UpdateExpression": "SET a = :v", "ConditionExpression": "a = :v",
               "AttributeUpdates": {}, "Expected": {}}
    assert refused(request) == (
        "Can not use both expression and non-expression parameters in the same request: "
        "Non-expression parameters: {AttributeUpdates, Expected} "
        "Expression parameters: {UpdateExpression, ConditionExpression}"
    )
    assert refused({"ConditionExpression": "a = :v", "Expected": {}}, "PutItem") == (
        "Can not use both expression and non-expression parameters in the same request: "
        "Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}"
    )


def test_query_may_pair_key_conditions_with_a_filter_expression() -> None:
    assert check_expression_params(
        {"KeyConditions": {}, "FilterExpression": "a = :v"}, *EXPRESSION_PARAMETERS["Query"]
    )


def test_placeholder_maps_need_an_expression() -> None:
    assert refused({"AttributeUpdates": {}, "ExpressionAttributeNames": {"#a": "a"}}) == (
        "ExpressionAttributeNames can only be specified when using expressions"
    )
    assert refused({"ExpressionAttributeValues": {":a": {"S": "a"}}}) == (
        "ExpressionAttributeValues can only be specified when using expressions: "
        "UpdateExpression and ConditionExpression are null"
    )
    assert refused({"ExpressionAttributeValues": {":a": {"S": "a"}}}, "PutItem") == (
        "ExpressionAttributeValues can only be specified when using expressions: "
        "ConditionExpression is null"
    )
    # A ProjectionExpression cannot use values
    assert refused({"ProjectionExpression": "a", "ExpressionAttributeValues": {":a": {"S": "a"}}},
                   "Scan") == (
        "ExpressionAttributeValues can only be specified when using expressions: "
        "FilterExpression is null"
    )


def test_placeholder_maps_must_not_be_empty() -> None:
    assert refused({"UpdateExpression": "SET a = :v", "ExpressionAttributeNames": {}}) == (
        "ExpressionAttributeNames must not be empty"
    )
    assert refused({"UpdateExpression": "SET a = :v", "ExpressionAttributeValues": {}}) == (
        "ExpressionAttributeValues must not be empty"
    )


@pytest.mark.parametrize("key", ["x", "#", "#a-b", "##a"])
def test_invalid_name_keys(key: str) -> None:
    request = {"UpdateExpression": "SET a = :v", "ExpressionAttributeNames": {key: "a"}}
    assert refused(request) == (
        f'ExpressionAttributeNames contains invalid key: Syntax error; key: "{key}"'
    )


@pytest.mark.parametrize("key", ["v", ":", ":a.b"])
def test_invalid_value_keys(key: str) -> None:
    request = {"UpdateExpression": "SET a = :v", "ExpressionAttributeValues": {key: {"S": "a"}}}
    assert refused(request) == (
        f'ExpressionAttributeValues contains invalid key: Syntax error; key: "{key}"'
    )


def test_invalid_values_name_their_key() -> None:
    request = {"UpdateExpression": "SET a = :v", "ExpressionAttributeValues": {":v": {"SS": []}}}
    assert refused(request) == (
        "ExpressionAttributeValues contains invalid value: One or more parameter values were "
        "invalid: An string set  may not be empty for key :v"
    )
    request = {"UpdateExpression": "SET a = :v", "ExpressionAttributeValues": {":v": {}}}
    assert refused(request) == (
        "ExpressionAttributeValues contains invalid value: Supplied AttributeValue is empty, "
        "must contain exactly one of the supported datatypes for key :v"
    )


def test_bound_placeholders() -> None:
    request = {
        "UpdateExpression": "SET #n = :v",
        "ExpressionAttributeNames": {"#n": "count"},
        "ExpressionAttributeValues": {":v": {"N": "01.50"}},
    }
    bound = placeholders(request)
    assert dict(bound.names) == {"#n": "count"}
    # canonical, as tallydb.engine.values makes it
    assert dict(bound.values) == {":v": {"N": "1.5"}}
    assert placeholders({"AttributeUpdates": {}}) is None
    assert placeholders({}) is None


def test_return_values_per_operation() -> None:
    for operation in ("PutItem", "DeleteItem"):
        for value in ("ALL_NEW", "UPDATED_OLD", "UPDATED_NEW"):
            with pytest.raises(ValidationException) as excinfo:
                check_return_values(operation, {"ReturnValues": value})
            assert excinfo.value.message == "ReturnValues can only be ALL_OLD or NONE"
        assert check_return_values(operation, {"ReturnValues": "ALL_OLD"}) == "ALL_OLD"
        assert check_return_values(operation, {}) == "NONE"
    assert check_return_values("UpdateItem", {"ReturnValues": "UPDATED_NEW"}) == "UPDATED_NEW"
