"""Equality and ordering of values in conditions.

DynamoDB (developer guide, "Comparison operator and function reference"):
``a = b`` is true when a and b are equal, of the same type; ``<``, ``<=``,
``>``, ``>=`` and BETWEEN compare Numbers by value, Strings by UTF-8 binary
value and Binaries byte by byte, and are false for values of different types.
"""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st
from values_strategies import canonical, number_values

from tallydb.engine.values import compare_values, values_equal


def test_numbers_are_equal_by_value() -> None:
    assert values_equal({"N": "1"}, {"N": "1"})
    assert values_equal({"N": "1.0"}, {"N": "1"})  # even if not canonical
    assert not values_equal({"N": "1"}, {"N": "2"})


def test_different_types_are_never_equal() -> None:
    assert not values_equal({"N": "1"}, {"S": "1"})
    assert not values_equal({"SS": ["a"]}, {"L": [{"S": "a"}]})
    assert not values_equal({"NULL": True}, {"BOOL": False})


def test_sets_are_equal_in_any_order() -> None:
    assert values_equal({"SS": ["a", "b"]}, {"SS": ["b", "a"]})
    assert values_equal({"NS": ["1", "2"]}, {"NS": ["2.0", "1"]})
    assert values_equal({"BS": ["AQ==", "Ag=="]}, {"BS": ["Ag==", "AQ=="]})
    assert not values_equal({"SS": ["a"]}, {"SS": ["a", "b"]})


def test_documents_are_equal_member_by_member() -> None:
    a = {"M": {"x": {"N": "1"}, "y": {"L": [{"S": "s"}, {"NS": ["1", "2"]}]}}}
    b = {"M": {"y": {"L": [{"S": "s"}, {"NS": ["2", "1.0"]}]}, "x": {"N": "1.00"}}}
    assert values_equal(a, b)
    assert not values_equal({"L": [{"N": "1"}, {"N": "2"}]}, {"L": [{"N": "2"}, {"N": "1"}]})
    assert not values_equal({"M": {"x": {"N": "1"}}}, {"M": {"x": {"N": "1"}, "y": {"N": "1"}}})


def test_ordering_only_between_two_numbers_strings_or_binaries() -> None:
    assert compare_values({"N": "-1"}, {"N": "0.5"}) == -1
    assert compare_values({"N": "10"}, {"N": "9"}) == 1
    assert compare_values({"S": "a"}, {"S": "a"}) == 0
    assert compare_values({"S": "B"}, {"S": "a"}) == -1
    assert compare_values({"B": "AA=="}, {"B": "/w=="}) == -1
    assert compare_values({"N": "1"}, {"S": "1"}) is None
    assert compare_values({"BOOL": True}, {"BOOL": False}) is None
    assert compare_values({"SS": ["a"]}, {"SS": ["a"]}) is None
    assert compare_values({"NULL": True}, {"NULL": True}) is None


@given(number_values(), number_values())
def test_numbers_compare_by_value(x: Decimal, y: Decimal) -> None:
    assert compare_values({"N": canonical(x)}, {"N": canonical(y)}) == (x > y) - (x < y)


@given(st.text(), st.text())
def test_strings_compare_by_utf8_bytes(x: str, y: str) -> None:
    bx, by = x.encode("utf-8"), y.encode("utf-8")
    assert compare_values({"S": x}, {"S": y}) == (bx > by) - (bx < by)
