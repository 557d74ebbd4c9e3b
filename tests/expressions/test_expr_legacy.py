"""The legacy parameters: AttributeUpdates, Expected (+ ConditionalOperator),
AttributesToGet. Messages from dynalite's tests, run against DynamoDB."""

from __future__ import annotations

from typing import Any

import pytest

from tallydb.engine.errors import ValidationException
from tallydb.engine.expressions import from_attribute_updates, from_attributes_to_get, from_expected

N = lambda n: {"N": str(n)}  # noqa: E731
S = lambda s: {"S": s}  # noqa: E731
INVALID = "One or more parameter values were invalid: "


def refused(call: Any) -> str:
    with pytest.raises(ValidationException) as caught:
        call()
    assert caught.value.message is not None
    return caught.value.message


# -- AttributeUpdates ---------------------------------------------------------------


def test_put_add_delete() -> None:
    update = from_attribute_updates({
        "b": {"Action": "DELETE"},
        "c": {"Action": "DELETE", "Value": {"SS": ["a", "b"]}},
        "d": {"Action": "ADD", "Value": N(5)},
        "e": {"Action": "ADD", "Value": {"SS": ["a", "b"]}},
        "f": {"Action": "ADD", "Value": {"L": [S("a"), N(1)]}},
        "g": {"Value": S("put is the default")},
    })
    assert update.apply({}) == {"d": N(5), "e": {"SS": ["a", "b"]},
                                "f": {"L": [S("a"), N(1)]}, "g": S("put is the default")}
    item = {"b": S("x"), "c": {"SS": ["a", "z"]}, "d": N(1), "e": {"SS": ["b", "q"]},
            "f": {"L": [N(0)]}}
    # ADD stores the union in the set's order, as PutItem and SET store a set
    assert update.apply(item) == {"c": {"SS": ["z"]}, "d": N(6), "e": {"SS": ["a", "b", "q"]},
                                  "f": {"L": [N(0), S("a"), N(1)]},
                                  "g": S("put is the default")}
    assert update.updated_view(item) == {"b": S("x"), "c": {"SS": ["a", "z"]}, "d": N(1),
                                         "e": {"SS": ["b", "q"]}, "f": {"L": [N(0)]}}


def test_delete_every_member_removes() -> None:
    update = from_attribute_updates({"b": {"Action": "DELETE", "Value": {"NS": ["2", "3"]}}})
    assert update.apply({"b": {"NS": ["2", "3"]}, "c": S("a")}) == {"c": S("a")}


def test_attribute_update_validation() -> None:
    assert refused(lambda: from_attribute_updates({"a": {"Action": "PUT"}})) == (
        INVALID + "Only DELETE action is allowed when no attribute value is specified")
    for value in [S("1"), N(1), {"B": "Yg=="}, {"NULL": True}, {"BOOL": True}, {"M": {}},
                  {"L": []}]:
        kind = next(iter(value))
        assert refused(lambda v=value: from_attribute_updates(
            {"a": {"Action": "DELETE", "Value": v}})) == (
            INVALID + f"DELETE action with value is not supported for the type {kind}")
    for value in [S("1"), {"B": "Yg=="}, {"NULL": True}, {"BOOL": True}, {"M": {}}]:
        kind = next(iter(value))
        assert refused(lambda v=value: from_attribute_updates(
            {"a": {"Action": "ADD", "Value": v}})) == (
            INVALID + f"ADD action is not supported for the type {kind}")


@pytest.mark.parametrize("updates", [
    {"b": {"Action": "DELETE", "Value": {"NS": ["1"]}}},
    {"b": {"Action": "DELETE", "Value": {"BS": ["YQ=="]}}},
    {"c": {"Action": "DELETE", "Value": {"NS": ["1"]}}},
    {"b": {"Action": "ADD", "Value": {"NS": ["1"]}}},
    {"d": {"Action": "ADD", "Value": N(1)}},
])
def test_attribute_update_type_mismatch(updates: dict[str, Any]) -> None:
    item = {"b": {"SS": ["1"]}, "c": N(1), "d": {"NS": ["1"]}}
    assert refused(lambda: from_attribute_updates(updates).apply(item)) == (
        "Type mismatch for attribute to update")


def test_attribute_updates_cannot_touch_keys() -> None:
    update = from_attribute_updates({"a": {"Value": S("x")}})
    assert refused(lambda: update.check_key_unchanged(["a"])) == (
        INVALID + "Cannot update attribute a. This attribute is part of the key")
    assert update.assigned_type("a") == "S"


# -- Expected ---------------------------------------------------------------------


@pytest.mark.parametrize(("expected", "message"), [
    ({"a": {}}, "Value must be provided when Exists is null for Attribute: a"),
    ({"a": {"Exists": True}}, "Value must be provided when Exists is true for Attribute: a"),
    ({"a": {"Exists": False, "Value": S("a")}},
     "Value cannot be used when Exists is false for Attribute: a"),
    ({"a": {"Exists": True, "ComparisonOperator": "LT"}},
     "Exists and ComparisonOperator cannot be used together for Attribute: a"),
    ({"a": {"AttributeValueList": [S("a")], "Value": S("a"), "ComparisonOperator": "LT"}},
     "Value and AttributeValueList cannot be used together for Attribute: a"),
    ({"a": {"AttributeValueList": [S("a")]}},
     "AttributeValueList can only be used with a ComparisonOperator for Attribute: a"),
    ({"a": {"Exists": True, "AttributeValueList": [S("a")]}},
     "AttributeValueList can only be used with a ComparisonOperator for Attribute: a"),
    ({"a": {"AttributeValueList": [], "ComparisonOperator": "EQ"}},
     "Invalid number of argument(s) for the EQ ComparisonOperator"),
    ({"a": {"AttributeValueList": [S("a")], "ComparisonOperator": "NULL"}},
     "Invalid number of argument(s) for the NULL ComparisonOperator"),
    ({"a": {"AttributeValueList": [], "ComparisonOperator": "IN"}},
     "Invalid number of argument(s) for the IN ComparisonOperator"),
    ({"a": {"AttributeValueList": [N(1), N(10), N(12)], "ComparisonOperator": "BETWEEN"}},
     "Invalid number of argument(s) for the BETWEEN ComparisonOperator"),
    ({"a": {"Value": S("a"), "ComparisonOperator": "NULL"}},
     "Invalid number of argument(s) for the NULL ComparisonOperator"),
    ({"a": {"Value": S("a"), "ComparisonOperator": "BETWEEN"}},
     "Invalid number of argument(s) for the BETWEEN ComparisonOperator"),
    ({"a": {"ComparisonOperator": "EQ"}},
     "Value or AttributeValueList must be used with ComparisonOperator: EQ for Attribute: a"),
    ({"a": {"AttributeValueList": [N(1), S("1")], "ComparisonOperator": "IN"}},
     "AttributeValues inside AttributeValueList must be of same type"),
])
def test_expected_validation(expected: dict[str, Any], message: str) -> None:
    assert refused(lambda: from_expected(expected)) == INVALID + message


def test_expected_between_order() -> None:
    assert refused(lambda: from_expected(
        {"a": {"AttributeValueList": [N(5), N(1)], "ComparisonOperator": "BETWEEN"}})) == (
        "The BETWEEN condition was provided a range where the lower bound is greater than "
        "the upper bound")


ITEM = {"s": S("hello"), "n": N(5), "ss": {"SS": ["a", "b"]}, "active": {"BOOL": False}}


@pytest.mark.parametrize(("condition", "expected"), [
    ({"Value": S("hello")}, True),
    ({"Value": S("nope")}, False),
    ({"Value": {"BOOL": False}, "Exists": True}, True),
    ({"Exists": False}, False),
    ({"ComparisonOperator": "EQ", "AttributeValueList": [S("hello")]}, True),
    ({"ComparisonOperator": "NE", "AttributeValueList": [S("hello")]}, False),
    ({"ComparisonOperator": "LT", "AttributeValueList": [S("i")]}, True),
    ({"ComparisonOperator": "GE", "AttributeValueList": [S("i")]}, False),
    ({"ComparisonOperator": "NOT_NULL"}, True),
    ({"ComparisonOperator": "NULL"}, False),
    ({"ComparisonOperator": "CONTAINS", "AttributeValueList": [S("ell")]}, True),
    ({"ComparisonOperator": "NOT_CONTAINS", "AttributeValueList": [S("ell")]}, False),
    ({"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": [S("he")]}, True),
    ({"ComparisonOperator": "IN", "AttributeValueList": [S("x"), S("hello")]}, True),
    ({"ComparisonOperator": "BETWEEN", "AttributeValueList": [S("a"), S("z")]}, True),
    ({"ComparisonOperator": "EQ", "Value": S("hello")}, True),
])
def test_expected_on_s(condition: dict[str, Any], expected: bool) -> None:
    attribute = "active" if condition.get("Value") == {"BOOL": False} else "s"
    assert from_expected({attribute: condition}).holds(ITEM) is expected


def test_expected_missing_attributes() -> None:
    assert from_expected({"gone": {"Exists": False}}).holds(ITEM)
    assert from_expected({"gone": {"ComparisonOperator": "NULL"}}).holds(None)
    assert not from_expected({"gone": {"Value": S("x")}}).holds(None)
    assert from_expected({"gone": {"ComparisonOperator": "NE",
                                   "AttributeValueList": [S("x")]}}).holds(ITEM)


def test_conditional_operator() -> None:
    expected = {"s": {"Value": S("hello")}, "n": {"Value": N(6)}}
    assert not from_expected(expected).holds(ITEM)
    assert not from_expected(expected, "AND").holds(ITEM)
    assert from_expected(expected, "OR").holds(ITEM)


# -- AttributesToGet --------------------------------------------------------------------


def test_attributes_to_get() -> None:
    projection = from_attributes_to_get(["s", "gone", "n"])
    assert projection.apply(ITEM) == {"s": S("hello"), "n": N(5)}
    assert refused(lambda: from_attributes_to_get(["a", "b", "a"])) == (
        INVALID + "Duplicate value in attribute name: a")
