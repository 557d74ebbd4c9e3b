"""Validating AttributeValues, items and keys as DynamoDB does.

Sources: "captured" = paritysuite/dynamodb-conformance, run against real
DynamoDB (2026); "dynalite" = architect/dynalite's tests, written against real
DynamoDB; "logs" = real DynamoDB responses quoted in bug reports.
"""

from __future__ import annotations

from typing import Any

import pytest

from tallydb.engine.errors import DynamoDBError, SerializationException, ValidationException
from tallydb.engine.values import messages as m
from tallydb.engine.values import (
    validate_item,
    validate_item_key,
    validate_key,
    validate_value,
)


def refusal(fn: Any, *args: Any, **kwargs: Any) -> tuple[str, str | None]:
    with pytest.raises(DynamoDBError) as caught:
        fn(*args, **kwargs)
    return type(caught.value).__name__, caught.value.message


def invalid(av: Any, **kwargs: Any) -> str | None:
    kind, message = refusal(validate_value, av, **kwargs)
    assert kind == "ValidationException"
    return message


def unserializable(av: Any) -> str | None:
    kind, message = refusal(validate_value, av)
    assert kind == "SerializationException"
    return message


def deep_map(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {"S": "leaf"}
    for _ in range(depth):
        value = {"M": {"n": value}}
    return value


# --- the shape of an AttributeValue --------------------------------------------


def test_an_empty_attribute_value() -> None:
    # dynalite: {} and a member that is not a datatype are both "empty".
    assert invalid({}) == m.EMPTY_ATTRIBUTE_VALUE
    assert invalid({"a": ""}) == m.EMPTY_ATTRIBUTE_VALUE
    assert invalid({"S": None}) == m.EMPTY_ATTRIBUTE_VALUE  # JSON null is absent


def test_more_than_one_datatype() -> None:
    assert invalid({"S": "a", "N": "1"}) == m.MULTIPLE_DATATYPES  # dynalite


def test_a_bad_member_is_reported_before_more_than_one_datatype() -> None:
    # dynalite: {S: 'a', N: 'b'} -> the numeric message, not "more than one".
    assert invalid({"S": "a", "N": "b"}) == f"{m.NOT_A_NUMBER}: b"
    assert invalid({"S": "", "N": ""}) == f"{m.NOT_A_NUMBER}: "


def test_unknown_members_are_dropped() -> None:
    assert validate_value({"S": "a", "x": 1, "N": None}) == {"S": "a"}


@pytest.mark.parametrize(
    ("av", "message"),
    [
        # Empty sets, with DynamoDB's grammar and double spaces (captured).
        ({"SS": []}, m.EMPTY_STRING_SET),
        ({"NS": []}, m.EMPTY_NUMBER_SET),
        ({"BS": []}, m.EMPTY_BINARY_SET),
        # NULL must be true (captured).
        ({"NULL": False}, m.NULL_NOT_TRUE),
        # A set member that is not a number (captured, current layer).
        ({"NS": ["1", ""]}, f"{m.NOT_A_NUMBER}: "),
        ({"NS": ["1", "b", "a"]}, f"{m.NOT_A_NUMBER}: b"),
        ({"M": {"x": {"L": [{"N": "1e126"}]}}}, m.OVERFLOW),  # nested (captured)
    ],
)
def test_value_refusals(av: dict[str, Any], message: str) -> None:
    assert invalid(av) == message


def test_empty_strings_and_binaries_are_values() -> None:
    # Non-key S and B may be empty since 2020; so may set members (captured).
    assert validate_value({"S": ""}) == {"S": ""}
    assert validate_value({"B": ""}) == {"B": ""}
    assert validate_value({"SS": [""]}) == {"SS": [""]}
    assert validate_value({"BS": ["", "AQ=="]}) == {"BS": ["", "AQ=="]}
    assert validate_value({"L": []}) == {"L": []}
    assert validate_value({"M": {}}) == {"M": {}}


# --- duplicate set members -------------------------------------------------------


def test_duplicates_in_the_current_layer() -> None:
    # Members quoted, byte order up to the first repeat, then the repeat, then
    # the rest as sent; BS joined without a space, and "]of" (captured).
    assert invalid({"SS": ["b", "a", "b"]}) == (
        m.DUPLICATE_STRINGS.format(members='["a", "b", "b"]')
    )
    assert invalid({"SS": ["c", "a", "c", "b"]}) == (
        m.DUPLICATE_STRINGS.format(members='["a", "c", "c", "b"]')
    )
    assert invalid({"BS": ["/w==", "AA==", "AA=="]}) == (
        m.DUPLICATE_BINARIES.format(members='["AA==","/w==","AA=="]')
    )
    assert invalid({"NS": ["2", "1", "2"]}) == m.DUPLICATE_NUMBERS
    assert m.DUPLICATE_NUMBERS.endswith("Input collection contains duplicates.")


def test_number_set_duplicates_compare_by_value() -> None:
    assert invalid({"NS": ["1", "1.0"]}) == m.DUPLICATE_NUMBERS
    assert invalid({"NS": ["100", "1e2"]}) == m.DUPLICATE_NUMBERS


def test_duplicates_in_the_older_layer() -> None:
    # BatchWriteItem/Transact*: members as sent, unquoted (captured).
    older = {"wording": "older"}
    assert invalid({"SS": ["b", "a", "b"]}, **older) == (
        m.DUPLICATE_STRINGS.format(members="[b, a, b]")
    )
    assert invalid({"BS": ["/w==", "AA==", "AA=="]}, **older) == (
        m.DUPLICATE_BINARIES.format(members="[/w==, AA==, AA==]")
    )
    assert invalid({"NS": ["2", "1", "2"]}, **older) == "Input collection contains duplicates"


# --- canonical output ------------------------------------------------------------


def test_sets_come_back_in_dynamodb_order() -> None:
    # GetItem returns string and binary sets bytewise, number sets by value;
    # the empty string sorts first (captured).
    assert validate_value({"SS": ["b", "", "a"]}) == {"SS": ["", "a", "b"]}
    assert validate_value({"SS": ["\U00010000", "\uffff"]}) == {"SS": ["\uffff", "\U00010000"]}
    assert validate_value({"BS": ["/w==", "AA==", ""]}) == {"BS": ["", "AA==", "/w=="]}
    assert validate_value({"NS": ["10", "9", "-1", "1.50"]}) == {"NS": ["-1", "1.5", "9", "10"]}


def test_numbers_are_canonical_at_every_depth() -> None:
    item = {"a": {"N": "01"}, "b": {"M": {"x": {"L": [{"N": "1e2"}, {"S": "s"}]}}}}
    assert validate_item(item) == {
        "a": {"N": "1"},
        "b": {"M": {"x": {"L": [{"N": "100"}, {"S": "s"}]}}},
    }


def test_a_canonical_item_comes_back_as_the_same_object() -> None:
    item = {
        "pk": {"S": "k"},
        "n": {"N": "12.5"},
        "b": {"B": "Yg=="},
        "t": {"BOOL": True},
        "z": {"NULL": True},
        "m": {"M": {"l": {"L": [{"S": "x"}, {"N": "-1"}]}}},
    }
    assert validate_item(item) is item


def test_a_value_made_canonical_copies_the_item_and_keeps_the_others() -> None:
    # Values before and after the first one that changes come back as the
    # very objects sent; the first refusal in the item's order decides.
    text, number, after = {"S": "x"}, {"N": "5"}, {"SS": ["a", "b"]}
    item = {"a": text, "b": number, "c": {"N": "05"}, "d": after, "e": {"N": "1.50"}}
    checked = validate_item(item)
    assert checked == {"a": text, "b": number, "c": {"N": "5"}, "d": after, "e": {"N": "1.5"}}
    assert checked is not item and list(checked) == list(item)
    assert checked["a"] is text and checked["b"] is number and checked["d"] is after
    assert item["c"] == {"N": "05"}  # what was sent is left as it was
    assert refusal(validate_item, {"a": {"N": "05"}, "b": {"SS": []}, "c": {"N": "x"}})[1] == (
        m.EMPTY_STRING_SET)
    assert refusal(validate_item, {"a": {"N": "x"}, "b": {"N": "05"}})[1] == (
        refusal(validate_value, {"N": "x"})[1])


def test_the_json_layer_reads_booleans_from_strings() -> None:
    # dynalite: TRUE/1/YES and FALSE/0/NO in any case.
    assert validate_value({"BOOL": "yes"}) == {"BOOL": True}
    assert validate_value({"BOOL": "0"}) == {"BOOL": False}
    assert validate_value({"NULL": "true"}) == {"NULL": True}
    assert invalid({"NULL": "false"}) == m.NULL_NOT_TRUE


# --- nesting ---------------------------------------------------------------------


def test_nesting_is_limited_to_32_levels() -> None:
    # The attribute is level 1: 31 map wraps (leaf at 32) are accepted, 32 are
    # refused, in items and in ExpressionAttributeValues (captured).
    assert validate_value(deep_map(31)) == deep_map(31)
    assert invalid(deep_map(32)) == m.NESTING_TOO_DEEP
    assert refusal(validate_item, {"data": deep_map(32)})[1] == m.NESTING_TOO_DEEP


def test_transactions_skip_the_depth_check_on_expression_values() -> None:
    # TransactWriteItems does not check ExpressionAttributeValues' depth (captured).
    assert validate_value(deep_map(40), check_depth=False) == deep_map(40)


# --- the JSON layer's refusals (SerializationException, dynalite) -------------------


@pytest.mark.parametrize(
    ("av", "message"),
    [
        ({"S": 1}, m.NOT_A_STRING.format(java_class=m.JAVA_NUMBER)),
        ({"S": True}, m.NOT_A_STRING.format(java_class=m.JAVA_BOOLEAN)),
        ({"N": 123}, m.NOT_A_STRING.format(java_class=m.JAVA_NUMBER)),  # alternator too
        ({"S": {}}, m.UNEXPECTED_MAP),
        ({"S": []}, m.UNEXPECTED_LIST),
        ({"BOOL": "hello"}, "'HELLO' can not be converted to an Boolean"),
        ({"BOOL": 1}, m.NOT_A_BOOLEAN.format(java_class=m.JAVA_NUMBER)),
        ({"B": True}, m.NOT_A_BLOB.format(java_class=m.JAVA_BOOLEAN)),
        ({"L": "x"}, m.EXPECTED_LIST),
        ({"L": {}}, m.UNEXPECTED_MAP),
        ({"SS": "x"}, m.EXPECTED_LIST),
        ({"M": "x"}, m.EXPECTED_MAP),
        ({"M": []}, m.UNEXPECTED_LIST),
        ("x", m.EXPECTED_STRUCTURE),
        ([], m.UNEXPECTED_LIST),
        (
            {"B": "abc"},
            "'abc' can not be converted to a Blob: "
            "Base64 encoded length is expected a multiple of 4 bytes but found: 3",
        ),
        ({"B": "ab c"}, "'ab c' can not be converted to a Blob: Invalid Base64 character: ' '"),
        ({"B": "AA=A"}, "'AA=A' can not be converted to a Blob: Invalid Base64 character: '='"),
        (
            {"B": "YR=="},
            "'YR==' can not be converted to a Blob: "
            "Invalid last non-pad Base64 character dectected",
        ),
        ({"BS": ["AAAA", "abc"]}, m.BLOB_BAD_LENGTH.format(value="abc", length=3)),
    ],
)
def test_json_of_the_wrong_shape(av: Any, message: str) -> None:
    assert unserializable(av) == message


def test_an_item_must_be_a_map() -> None:
    assert refusal(validate_item, "x") == ("SerializationException", m.EXPECTED_MAP)
    assert refusal(validate_item, []) == ("SerializationException", m.UNEXPECTED_LIST)


def test_serialization_errors_carry_their_wire_shape() -> None:
    with pytest.raises(SerializationException) as caught:
        validate_value({"S": 1})
    assert caught.value.to_wire()["__type"].endswith("#SerializationException")
    assert "Message" in caught.value.to_wire()


# --- keys --------------------------------------------------------------------------

HASH = [("pk", "S")]
HASH_RANGE = [("pk", "S"), ("sk", "N")]


def key_refusal(key: Any, schema: Any) -> str | None:
    kind, message = refusal(validate_key, key, schema)
    assert kind == "ValidationException"
    return message


def test_a_key_that_does_not_match_the_schema() -> None:
    # A missing, extra or mistyped key attribute (dynalite; moto's tests
    # verified against AWS: a range key on a hash-only table).
    assert key_refusal({"pk": {"S": "a"}, "sk": {"S": "b"}}, HASH) == m.KEY_SCHEMA_MISMATCH
    assert key_refusal({}, HASH) == m.KEY_SCHEMA_MISMATCH
    assert key_refusal({"other": {"S": "a"}}, HASH) == m.KEY_SCHEMA_MISMATCH
    assert key_refusal({"pk": {"N": "1"}}, HASH) == m.KEY_SCHEMA_MISMATCH
    assert key_refusal({"pk": {"S": "a"}}, HASH_RANGE) == m.KEY_SCHEMA_MISMATCH
    assert key_refusal({"pk": {"S": "a"}, "sk": {"S": "1"}}, HASH_RANGE) == m.KEY_SCHEMA_MISMATCH


def test_an_empty_key_value() -> None:
    # captured; logs.
    assert key_refusal({"pk": {"S": ""}}, HASH) == (
        "One or more parameter values are not valid. The AttributeValue for a key "
        "attribute cannot contain an empty string value. Key: pk"
    )
    assert key_refusal({"PK": {"B": ""}}, [("PK", "B")]) == (
        "One or more parameter values are not valid. The AttributeValue for a key "
        "attribute cannot contain an empty binary value. Key: PK"
    )


def test_key_size_limits() -> None:
    # 2048 bytes for a hash key, 1024 for a range key, in UTF-8 (dynalite).
    validate_key({"pk": {"S": "x" * 2048}}, HASH)
    assert key_refusal({"pk": {"S": "x" * 2049}}, HASH) == m.HASH_KEY_TOO_LONG
    assert key_refusal({"pk": {"S": "é" * 1025}}, HASH) == m.HASH_KEY_TOO_LONG
    schema = [("pk", "S"), ("sk", "S")]
    validate_key({"pk": {"S": "a"}, "sk": {"S": "x" * 1024}}, schema)
    assert key_refusal({"pk": {"S": "a"}, "sk": {"S": "x" * 1025}}, schema) == m.RANGE_KEY_TOO_LONG


def test_a_key_comes_back_canonical() -> None:
    assert validate_key({"pk": {"S": "a"}, "sk": {"N": "1e2"}}, HASH_RANGE) == {
        "pk": {"S": "a"},
        "sk": {"N": "100"},
    }


def test_a_key_value_is_validated_as_a_value_first() -> None:
    # A bad number in a Key is the number's message (captured).
    assert key_refusal({"pk": {"N": "abc"}}, [("pk", "N")]) == f"{m.NOT_A_NUMBER}: abc"


def test_an_items_key() -> None:
    # PutItem's Item (dynalite; moto).
    schema = [("id", "S"), ("created_at", "N")]
    with pytest.raises(ValidationException) as caught:
        validate_item_key({"id": {"N": "1"}, "created_at": {"N": "2"}}, schema)
    assert caught.value.message == (
        "One or more parameter values were invalid: Type mismatch for key id expected: S actual: N"
    )
    with pytest.raises(ValidationException) as caught:
        validate_item_key({"id": {"S": "a"}}, schema)
    assert caught.value.message == (
        "One or more parameter values were invalid: Missing the key created_at in the item"
    )
    with pytest.raises(ValidationException) as caught:
        validate_item_key({"id": {"S": ""}, "created_at": {"N": "2"}}, schema)
    assert caught.value.message == m.EMPTY_STRING_KEY.format("id")
    validate_item_key({"id": {"S": "a"}, "created_at": {"N": "2"}, "x": {"S": ""}}, schema)
