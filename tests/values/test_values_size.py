"""Item size as DynamoDB counts it against the 400 KB limit.

Sources: "captured" = paritysuite/dynamodb-conformance, measured to the byte
against DynamoDB's gate (2026); "dynalite" = architect/dynalite's tests,
written against DynamoDB; "guide" = the developer guide's "DynamoDB item
sizes and formats".
"""

from __future__ import annotations

import base64
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from values_strategies import canonical, number_values

from tallydb.engine.errors import ValidationException
from tallydb.engine.values import (
    MAX_ITEM_SIZE,
    attribute_size,
    check_item_fits,
    check_item_size,
    item_size,
    normalize_number,
    number_size,
)
from tallydb.engine.values import messages as m

# Every literal the capture measured, with its cost in bytes.
CAPTURED_NUMBER_BYTES = [
    ("0", 1),
    ("1", 2),
    ("12", 2),
    ("123", 3),
    ("1234", 3),
    ("12345678901234567890123456789012345678", 20),
    ("0042", 2),
    ("100", 2),
    ("1010", 3),
    ("0.0000001", 2),
    ("1E125", 2),
    ("1E-100", 2),
    ("1.5", 3),
    ("15", 2),
    ("1.2", 3),
    ("1.200", 3),
    ("1.234", 4),
    ("3.14159", 5),
    ("123456", 4),
    ("100.5", 4),
    ("0.15", 2),
    ("-42", 3),
    ("-0", 1),
]


@pytest.mark.parametrize(("literal", "cost"), CAPTURED_NUMBER_BYTES)
def test_a_numbers_cost_matches_dynamodbs_gate(literal: str, cost: int) -> None:
    assert number_size(normalize_number(literal)) == cost


def test_number_costs_from_dynalites_size_limit_tests() -> None:
    # Items built to land either side of the limit around numbers of 1, 2, 5,
    # 6 and 7 digits at the top of the range (dynalite, against DynamoDB).
    assert number_size(normalize_number("1" + "0" * 125)) == 2
    assert number_size(normalize_number("1111111" + "0" * 119)) == 5
    assert number_size(normalize_number("1" * 38 + "0" * 88)) == 20


def test_a_negative_number_costs_one_byte_more_up_to_21() -> None:
    for literal in ["42", "12345", "1E125", "0.15"]:
        negative, positive = normalize_number("-" + literal), normalize_number(literal)
        assert number_size(negative) == number_size(positive) + 1
    # 38 digits straddling the point need 20 pairs: 21 bytes either sign.
    straddling = "1" * 19 + "." + "1" * 19
    assert number_size(straddling) == 21
    assert number_size("-" + straddling) == 21


def test_value_sizes() -> None:
    # guide: UTF-8 bytes, raw binary bytes, 1 byte for BOOL and NULL.
    assert attribute_size({"S": "abc"}) == 3
    assert attribute_size({"S": "£"}) == 2  # captured
    assert attribute_size({"S": ""}) == 0
    assert attribute_size({"B": "AAAAAAAAAAAAAAAAAAAAAAA="}) == 17
    assert attribute_size({"B": ""}) == 0
    assert attribute_size({"BOOL": False}) == 1
    assert attribute_size({"NULL": True}) == 1
    assert attribute_size({"SS": ["a", "bc"]}) == 3
    assert attribute_size({"NS": ["27", "-27", "461"]}) == 2 + 3 + 3
    assert attribute_size({"BS": ["AQ==", "AQI="]}) == 3


def test_document_sizes() -> None:
    # guide: 3 bytes for a List or Map, plus 1 byte per element (and a Map
    # element's name).
    assert attribute_size({"L": []}) == 3
    assert attribute_size({"M": {}}) == 3
    assert attribute_size({"L": [{"S": "ab"}, {"N": "1"}]}) == 3 + (1 + 2) + (1 + 2)
    assert attribute_size({"M": {"key": {"S": "ab"}}}) == 3 + 3 + 1 + 2
    assert attribute_size({"M": {"o": {"M": {}}}}) == 3 + 1 + 1 + 3


def test_item_size_counts_names_in_utf8() -> None:
    assert item_size({"pk": {"S": "k"}}) == 3  # captured
    assert item_size({"pk": {"S": "k"}, "n": {"N": "42"}}) == 3 + 1 + 2
    assert item_size({"£": {"S": ""}}) == 2


def test_the_gate_is_400_kb_to_the_byte() -> None:
    # 409,600 bytes accepted, 409,601 refused (captured).
    assert MAX_ITEM_SIZE == 409_600
    base = {"pk": {"S": "k"}}
    pad = MAX_ITEM_SIZE - item_size(base) - 1
    assert check_item_size({**base, "p": {"S": "x" * pad}}) == MAX_ITEM_SIZE
    with pytest.raises(ValidationException) as caught:
        check_item_size({**base, "p": {"S": "x" * (pad + 1)}})
    assert caught.value.message == "Item size has exceeded the maximum allowed size"


def test_updateitems_wording() -> None:
    # "Item size to update has exceeded the maximum allowed size" (dynalite;
    # AWS API reference, TransactWriteItems cancellation reasons).
    with pytest.raises(ValidationException) as caught:
        check_item_size({"p": {"S": "x" * MAX_ITEM_SIZE}}, update=True)
    assert caught.value.message == m.UPDATED_ITEM_TOO_LARGE


# --- the quick gate: an item's JSON is never shorter than its size ---------------

_text = st.text(max_size=8)
_binary = st.binary(max_size=8).map(lambda raw: base64.b64encode(raw).decode())
_number = number_values().map(canonical)
_scalars = st.one_of(
    _text.map(lambda t: {"S": t}), _number.map(lambda n: {"N": n}),
    _binary.map(lambda b: {"B": b}), st.booleans().map(lambda b: {"BOOL": b}),
    st.just({"NULL": True}),
    st.lists(_text, min_size=1, max_size=3, unique=True).map(lambda m: {"SS": m}),
    st.lists(_number, min_size=1, max_size=3, unique=True).map(lambda m: {"NS": m}),
    st.lists(_binary, min_size=1, max_size=3, unique=True).map(lambda m: {"BS": m}),
)
_values = st.recursive(_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3).map(lambda items: {"L": items}),
    st.dictionaries(_text, inner, max_size=3).map(lambda members: {"M": members}),
), max_leaves=8)


@given(st.dictionaries(_text, _values, max_size=4))
def test_an_items_json_is_never_shorter_than_its_size(item: dict[str, Any]) -> None:
    assert len(orjson.dumps(item)) >= item_size(item)


def test_check_item_fits_counts_only_what_its_json_cannot_settle() -> None:
    small = {"k": {"S": "a"}, "n": {"N": "1"}}
    check_item_fits(small, orjson.dumps(small), update=True)
    exact = {"k": {"S": "x" * (MAX_ITEM_SIZE - 1)}}  # 409,600 bytes, 409,609 of JSON
    check_item_fits(exact, orjson.dumps(exact))
    over = {"k": {"S": "x" * MAX_ITEM_SIZE}}
    with pytest.raises(ValidationException) as excinfo:
        check_item_fits(over, orjson.dumps(over), update=True)
    assert excinfo.value.message == m.UPDATED_ITEM_TOO_LARGE
    with pytest.raises(ValidationException) as excinfo:
        check_item_fits(over, orjson.dumps(over))
    assert excinfo.value.message == m.ITEM_TOO_LARGE
