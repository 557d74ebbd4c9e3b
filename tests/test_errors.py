"""DynamoDB's answers to bad requests: error code, exact message, HTTP status,
and nothing changed.

Every case is checked through boto3 (server and in-process) against the
message Amazon DynamoDB sends. Where the messages come from:

* dynalite's test suite (architect/dynalite test/*.js), whose assertions were
  recorded against real DynamoDB;
* nubo-db/dynamodb-conformance (tests/tier3/error-messages, tests/tier3/limits),
  captured against real DynamoDB in several regions.

* paritysuite/dynamodb-conformance (tests/tier3/error-messages/valueLayers),
  2026 captures in four regions: PutItem, UpdateItem and DeleteItem answer a
  bad value in DynamoDB's "current layer" wording, inside the
  "1 validation error detected: " envelope.

DynamoDB wraps some ValidationExceptions in that envelope depending on the
operation and the region, so a message is accepted bare or enveloped
(conftest.same_message), nothing else. Each case carries a comment naming the
DynamoDB rule it checks. Where the wording varies beyond that (the rendering
of a duplicate set), the test says so and checks the fixed parts.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from tallytest import Backend, assert_error

# -- messages, each once ----------------------------------------------------

RESOURCE_NOT_FOUND = "Requested resource not found"
CONDITION_FAILED = "The conditional request failed"
KEY_SCHEMA_MISMATCH = "The provided key element does not match the schema"
MISSING_OPERAND = "The provided expression refers to an attribute that does not exist in the item"
WRONG_OPERAND_TYPE = "An operand in the update expression has an incorrect data type"
INVALID_PATH = "The document path provided in the update expression is invalid for update"
INVALID = "One or more parameter values were invalid: "
TOO_MANY_DIGITS = "Attempting to store more than 38 significant digits in a Number"
OVERFLOW = (
    "Number overflow. Attempting to store a number with magnitude larger than supported range"
)
UNDERFLOW = (
    "Number underflow. Attempting to store a number with magnitude smaller than supported range"
)
ITEM_TOO_BIG = "Item size has exceeded the maximum allowed size"
UPDATE_TOO_BIG = "Item size to update has exceeded the maximum allowed size"
MAX_ITEM_BYTES = 409_600  # 400 KB; DynamoDB refuses size > 409600

UE = "Invalid UpdateExpression: "
CE = "Invalid ConditionExpression: "

ITEM = {
    "id": {"S": "k"},
    "n": {"N": "1"},
    "s": {"S": "text"},
    "ss": {"SS": ["a"]},
    "m": {"M": {"a": {"N": "1"}}},
    "l": {"L": [{"N": "1"}]},
}
KEY = {"id": {"S": "k"}}
VALUES = {  # ExpressionAttributeValues by name, taken as a case needs them
    ":v": {"N": "2"},
    ":w": {"N": "3"},
    ":one": {"N": "1"},
    ":s": {"S": "x"},
    ":b": {"BOOL": True},
    ":l": {"L": [{"N": "2"}]},
    ":ns": {"NS": ["1"]},
    ":big": {"N": "9.9E+125"},
    ":tiny": {"N": "2E-130"},
    ":tiny2": {"N": "1.5E-130"},
}


def refused(call: Callable[[], Any], code: str, message: str | None, status: int = 400) -> Any:
    """Run ``call``; it must fail with DynamoDB's (code, message, status)."""
    with pytest.raises(ClientError) as excinfo:
        call()
    assert_error(excinfo, code, message, status)
    return excinfo.value.response


@pytest.fixture
def seeded(ddb: Any, hash_table: str) -> str:
    """``hash_table`` holding ITEM; a test's failed request must leave it as it is."""
    ddb.put_item(TableName=hash_table, Item=ITEM)
    return hash_table


def unchanged(ddb: Any, table: str) -> None:
    assert ddb.get_item(TableName=table, Key=KEY, ConsistentRead=True)["Item"] == ITEM


def absent(ddb: Any, table: str, key: dict[str, Any]) -> None:
    assert "Item" not in ddb.get_item(TableName=table, Key=key, ConsistentRead=True)


def update_request(expression: str | None, names: dict[str, str] | None = None,
                   values: tuple[str, ...] = (), **extra: Any) -> dict[str, Any]:
    request: dict[str, Any] = dict(extra)
    if expression is not None:
        request["UpdateExpression"] = expression
    if names is not None:
        request["ExpressionAttributeNames"] = names
    if values:
        request["ExpressionAttributeValues"] = {v: VALUES[v] for v in values}
    return request


# -- UpdateItem: refused from the request alone ----------------------------------

STATIC_UPDATE_CASES = [
    # Every #name used must be defined in ExpressionAttributeNames.
    pytest.param(
        update_request("SET #x = :v, #y = :w", {"#y": "n"}, (":v", ":w")),
        UE + "An expression attribute name used in the document path is not defined; "
        "attribute name: #x",
        id="undefined-name",
    ),
    # Every :value used must be defined in ExpressionAttributeValues.
    pytest.param(
        update_request("SET n = :missing"),
        UE + "An expression attribute value used in expression is not defined; "
        "attribute value: :missing",
        id="undefined-value",
    ),
    # Every name given must be used by some expression of the request.
    pytest.param(
        update_request("SET n = :v", {"#unused": "x"}, (":v",)),
        "Value provided in ExpressionAttributeNames unused in expressions: keys: {#unused}",
        id="unused-name",
    ),
    # Every value given must be used by some expression of the request.
    pytest.param(
        update_request("SET n = :v", None, (":v", ":w")),
        "Value provided in ExpressionAttributeValues unused in expressions: keys: {:w}",
        id="unused-value",
    ),
    # ExpressionAttributeNames, when present, must not be empty.
    pytest.param(
        update_request("SET n = :v", {}, (":v",)),
        "ExpressionAttributeNames must not be empty",
        id="empty-names",
    ),
    # ExpressionAttributeValues, when present, must not be empty.
    pytest.param(
        {**update_request("REMOVE s"), "ExpressionAttributeValues": {}},
        "ExpressionAttributeValues must not be empty",
        id="empty-values",
    ),
    # One action per path: SET and REMOVE of the same attribute overlap.
    pytest.param(
        update_request("SET n = :v REMOVE n", None, (":v",)),
        UE + "Two document paths overlap with each other; must remove or rewrite one of these "
        "paths; path one: [n], path two: [n]",
        id="overlap-same-path",
    ),
    # A path and its own parent overlap.
    pytest.param(
        update_request("SET m.a = :v, m = :w", None, (":v", ":w")),
        UE + "Two document paths overlap with each other; must remove or rewrite one of these "
        "paths; path one: [m, a], path two: [m]",
        id="overlap-parent",
    ),
    # The same attribute used as a map and as a list conflicts.
    pytest.param(
        update_request("REMOVE m.a SET m[1] = :v", None, (":v",)),
        UE + "Two document paths conflict with each other; must remove or rewrite one of these "
        "paths; path one: [m, a], path two: [m, [1]]",
        id="conflict-map-list",
    ),
    # Key attributes cannot be updated, by any clause.
    pytest.param(
        update_request("SET id = :s", None, (":s",)),
        INVALID + "Cannot update attribute id. This attribute is part of the key",
        id="key-set",
    ),
    pytest.param(
        update_request("ADD id :one", None, (":one",)),
        INVALID + "Cannot update attribute id. This attribute is part of the key",
        id="key-add",
    ),
    pytest.param(
        update_request("REMOVE id"),
        INVALID + "Cannot update attribute id. This attribute is part of the key",
        id="key-remove",
    ),
    # Reserved words must go through ExpressionAttributeNames; the message
    # repeats the word as written.
    pytest.param(
        update_request("SET count = :v", None, (":v",)),
        UE + "Attribute name is a reserved keyword; reserved keyword: count",
        id="reserved-word",
    ),
    pytest.param(
        update_request("SET abOrt = :v", None, (":v",)),
        UE + "Attribute name is a reserved keyword; reserved keyword: abOrt",
        id="reserved-word-as-written",
    ),
    # Syntax errors name the offending token and the text near it.
    pytest.param(
        update_request("INVALID SYNTAX HERE"),
        UE + 'Syntax error; token: "INVALID", near: "INVALID SYNTAX"',
        id="syntax-error",
    ),
    pytest.param(
        update_request("ADD play_count"),
        UE + 'Syntax error; token: "<EOF>", near: "play_count"',
        id="syntax-error-at-end",
    ),
    # Each clause at most once.
    pytest.param(
        update_request("SET n = :v SET s = :s", None, (":v", ":s")),
        UE + 'The "SET" section can only be used once in an update expression;',
        id="set-twice",
    ),
    pytest.param(
        update_request("REMOVE s SET n = :v REMOVE l", None, (":v",)),
        UE + 'The "REMOVE" section can only be used once in an update expression;',
        id="remove-twice",
    ),
    # An empty expression is refused.
    pytest.param(
        update_request(""),
        UE + "The expression can not be empty;",
        id="empty-expression",
    ),
    # Only DynamoDB's functions exist.
    pytest.param(
        update_request("SET n = if_not_exist(n, :v)", None, (":v",)),
        UE + "Invalid function name; function: if_not_exist",
        id="unknown-function",
    ),
    # Functions take their number of operands.
    pytest.param(
        update_request("SET n = if_not_exists(n)"),
        UE + "Incorrect number of operands for operator or function; "
        "operator or function: if_not_exists, number of operands: 1",
        id="operand-count",
    ),
    # if_not_exists tests a path, not a value.
    pytest.param(
        update_request("SET n = if_not_exists(:v, n)", None, (":v",)),
        UE + "Operator or function requires a document path; operator or function: if_not_exists",
        id="if-not-exists-needs-path",
    ),
    # Arithmetic takes numbers: a literal of another type is refused at once.
    pytest.param(
        update_request("SET n = n + :s", None, (":s",)),
        UE + "Incorrect operand type for operator or function; "
        "operator or function: +, operand type: S",
        id="plus-string",
    ),
    pytest.param(
        update_request("SET n = n - :l", None, (":l",)),
        UE + "Incorrect operand type for operator or function; "
        "operator or function: -, operand type: L",
        id="minus-list",
    ),
    # list_append takes lists.
    pytest.param(
        update_request("SET l = list_append(l, :s)", None, (":s",)),
        UE + "Incorrect operand type for operator or function; "
        "operator or function: list_append, operand type: S",
        id="list-append-string",
    ),
    # ADD takes a number or a set.
    pytest.param(
        update_request("ADD n :s", None, (":s",)),
        UE + "Incorrect operand type for operator or function; "
        "operator: ADD, operand type: STRING",
        id="add-string",
    ),
    pytest.param(
        update_request("ADD n :b", None, (":b",)),
        UE + "Incorrect operand type for operator or function; "
        "operator: ADD, operand type: BOOLEAN",
        id="add-boolean",
    ),
    # DELETE takes a set.
    pytest.param(
        update_request("DELETE ss :one", None, (":one",)),
        UE + "Incorrect operand type for operator or function; "
        "operator: DELETE, operand type: NUMBER",
        id="delete-number",
    ),
    # Expression and legacy parameters cannot be mixed.
    pytest.param(
        update_request("SET n = :v", None, (":v",),
                       AttributeUpdates={"n": {"Action": "PUT", "Value": {"N": "2"}}}),
        "Can not use both expression and non-expression parameters in the same request: "
        "Non-expression parameters: {AttributeUpdates} Expression parameters: {UpdateExpression}",
        id="expression-and-attribute-updates",
    ),
    # Placeholders need expressions.
    pytest.param(
        update_request(None, None, (":v",),
                       AttributeUpdates={"n": {"Action": "PUT", "Value": {"N": "2"}}}),
        "ExpressionAttributeValues can only be specified when using expressions: "
        "UpdateExpression and ConditionExpression are null",
        id="values-without-expressions",
    ),
    pytest.param(
        update_request(None, {"#n": "n"},
                       AttributeUpdates={"n": {"Action": "PUT", "Value": {"N": "2"}}}),
        "ExpressionAttributeNames can only be specified when using expressions",
        id="names-without-expressions",
    ),
    # ConditionExpression: reserved words, emptiness, redundant parentheses.
    pytest.param(
        update_request("SET n = :v", None, (":v", ":s"), ConditionExpression="status = :s"),
        CE + "Attribute name is a reserved keyword; reserved keyword: status",
        id="condition-reserved-word",
    ),
    pytest.param(
        update_request("SET n = :v", None, (":v",), ConditionExpression=""),
        CE + "The expression can not be empty;",
        id="condition-empty",
    ),
    pytest.param(
        update_request("SET n = :v", None, (":v",), ConditionExpression="((attribute_exists(n)))"),
        CE + "The expression has redundant parentheses;",
        id="condition-redundant-parentheses",
    ),
    # ReturnValues is one of DynamoDB's five modes.
    pytest.param(
        update_request("SET n = :v", None, (":v",), ReturnValues="hi"),
        "1 validation error detected: Value 'hi' at 'returnValues' failed to satisfy constraint: "
        "Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]",
        id="return-values-enum",
    ),
]


@pytest.mark.parametrize(("request_", "message"), STATIC_UPDATE_CASES)
def test_update_item_refuses_bad_expressions(
    ddb: Any, seeded: str, request_: dict[str, Any], message: str
) -> None:
    refused(lambda: ddb.update_item(TableName=seeded, Key=KEY, **request_),
            "ValidationException", message)
    unchanged(ddb, seeded)


# -- UpdateItem: refused against the stored item ---------------------------------

ITEM_UPDATE_CASES = [
    # Arithmetic on a stored non-number.
    pytest.param(update_request("SET n2 = s + :one", None, (":one",)), WRONG_OPERAND_TYPE,
                 id="plus-on-stored-string"),
    # SET from an attribute the item does not have (no if_not_exists).
    pytest.param(update_request("SET n2 = nope + :one", None, (":one",)), MISSING_OPERAND,
                 id="plus-on-missing-attribute"),
    # ADD a number to a stored string.
    pytest.param(update_request("ADD s :one", None, (":one",)), WRONG_OPERAND_TYPE,
                 id="add-to-stored-string"),
    # ADD a number set to a string set.
    pytest.param(update_request("ADD ss :ns", None, (":ns",)), WRONG_OPERAND_TYPE,
                 id="add-wrong-set-type"),
    # DELETE from a stored number.
    pytest.param(update_request("DELETE n :ns", None, (":ns",)), WRONG_OPERAND_TYPE,
                 id="delete-from-number"),
    # list_append of a stored non-list.
    pytest.param(update_request("SET l2 = list_append(s, :l)", None, (":l",)),
                 WRONG_OPERAND_TYPE, id="list-append-stored-string"),
    # A nested path through a missing map, or into a non-map, cannot be set.
    pytest.param(update_request("SET m.x.y = :v", None, (":v",)), INVALID_PATH,
                 id="path-through-missing-map"),
    pytest.param(update_request("SET n.a = :v", None, (":v",)), INVALID_PATH,
                 id="path-into-number"),
    # Results must fit DynamoDB's Number range.
    pytest.param(update_request("SET n2 = :big + :big", None, (":big",)), OVERFLOW,
                 id="arithmetic-overflow"),
    pytest.param(update_request("SET n2 = :tiny - :tiny2", None, (":tiny", ":tiny2")), UNDERFLOW,
                 id="arithmetic-underflow"),
]


@pytest.mark.parametrize(("request_", "message"), ITEM_UPDATE_CASES)
def test_update_item_refuses_what_the_item_cannot_take(
    ddb: Any, seeded: str, request_: dict[str, Any], message: str
) -> None:
    refused(lambda: ddb.update_item(TableName=seeded, Key=KEY, **request_),
            "ValidationException", message)
    unchanged(ddb, seeded)


def test_update_item_too_big(ddb: Any, seeded: str) -> None:
    # An update whose result passes 400 KB is refused, with the update's own wording.
    refused(lambda: ddb.update_item(
        TableName=seeded, Key=KEY, UpdateExpression="SET big = :huge",
        ExpressionAttributeValues={":huge": {"S": "x" * 410_000}},
    ), "ValidationException", UPDATE_TOO_BIG)
    unchanged(ddb, seeded)


def test_update_item_on_a_missing_item_creates_nothing_when_refused(
    ddb: Any, hash_table: str
) -> None:
    # An UpdateItem that fails creates no item, even an empty one.
    key = {"id": {"S": "new"}}
    refused(lambda: ddb.update_item(
        TableName=hash_table, Key=key, UpdateExpression="SET n = n + :one",
        ExpressionAttributeValues={":one": {"N": "1"}},
    ), "ValidationException", MISSING_OPERAND)
    refused(lambda: ddb.update_item(
        TableName=hash_table, Key=key, UpdateExpression="SET n.a = :one",
        ExpressionAttributeValues={":one": {"N": "1"}},
    ), "ValidationException", INVALID_PATH)
    absent(ddb, hash_table, key)


# -- ConditionalCheckFailedException ----------------------------------------------


def test_failed_conditions_change_nothing_and_return_the_item_when_asked(
    ddb: Any, seeded: str
) -> None:
    condition = {"ConditionExpression": "n = :w", "ExpressionAttributeValues": {":w": VALUES[":w"]}}
    calls: dict[str, Callable[..., Any]] = {
        "UpdateItem": lambda **kw: ddb.update_item(
            TableName=seeded, Key=KEY, UpdateExpression="SET s = :s",
            ExpressionAttributeValues={**kw.pop("ExpressionAttributeValues"), ":s": VALUES[":s"]},
            **kw),
        "PutItem": lambda **kw: ddb.put_item(TableName=seeded, Item=KEY, **kw),
        "DeleteItem": lambda **kw: ddb.delete_item(TableName=seeded, Key=KEY, **kw),
    }
    for name, call in calls.items():
        # The condition does not hold: 400 ConditionalCheckFailedException, no Item.
        response = refused(lambda call=call: call(**condition),
                           "ConditionalCheckFailedException", CONDITION_FAILED)
        assert "Item" not in response, name
        # ReturnValuesOnConditionCheckFailure=ALL_OLD: the item as it stood.
        response = refused(
            lambda call=call: call(**condition, ReturnValuesOnConditionCheckFailure="ALL_OLD"),
            "ConditionalCheckFailedException", CONDITION_FAILED)
        assert response["Item"] == ITEM, name
        unchanged(ddb, seeded)


def test_condition_on_a_missing_item_fails(ddb: Any, hash_table: str) -> None:
    # attribute_exists on an item that is not there fails, and creates nothing;
    # there is no old item to return.
    key = {"id": {"S": "nobody"}}
    response = refused(lambda: ddb.update_item(
        TableName=hash_table, Key=key, UpdateExpression="ADD n :one",
        ConditionExpression="attribute_exists(id)",
        ExpressionAttributeValues={":one": {"N": "1"}},
        ReturnValuesOnConditionCheckFailure="ALL_OLD",
    ), "ConditionalCheckFailedException", CONDITION_FAILED)
    assert "Item" not in response
    absent(ddb, hash_table, key)


# -- Values: Numbers, sets, sizes, keys (PutItem) ---------------------------------

PUT_VALUE_CASES = [
    # At most 38 significant digits.
    pytest.param({"x": {"N": "123456789012345678901234567890123456789"}}, TOO_MANY_DIGITS,
                 id="39-digits"),
    pytest.param({"x": {"N": "-1.23456789012345678901234567890123456789"}}, TOO_MANY_DIGITS,
                 id="39-digits-fraction"),
    # Magnitudes up to 9.99...E+125 and down to 1E-130.
    pytest.param({"x": {"N": "1e126"}}, OVERFLOW, id="overflow"),
    pytest.param({"x": {"N": "-1e126"}}, OVERFLOW, id="negative-overflow"),
    pytest.param({"x": {"N": "1e-131"}}, UNDERFLOW, id="underflow"),
    pytest.param({"x": {"N": "-1e-131"}}, UNDERFLOW, id="negative-underflow"),
    # A Number must be a number.
    pytest.param({"x": {"N": "b"}}, "The parameter cannot be converted to a numeric value: b",
                 id="not-a-number"),
    # (PutItem's "current layer" keeps the colon and space for an empty string.)
    pytest.param({"x": {"N": ""}}, "The parameter cannot be converted to a numeric value: ",
                 id="empty-number"),
    pytest.param({"x": {"NS": ["1", "b"]}},
                 "The parameter cannot be converted to a numeric value: b",
                 id="not-a-number-in-set"),
    # Sets are never empty (the doubled space is DynamoDB's).
    pytest.param({"x": {"SS": []}}, INVALID + "An string set  may not be empty", id="empty-ss"),
    pytest.param({"x": {"NS": []}}, INVALID + "An number set  may not be empty", id="empty-ns"),
    pytest.param({"x": {"BS": []}}, INVALID + "Binary sets should not be empty", id="empty-bs"),
    # An AttributeValue holds exactly one type.
    pytest.param({"x": {"S": "a", "N": "1"}},
                 "Supplied AttributeValue has more than one datatypes set, must contain exactly "
                 "one of the supported datatypes", id="two-types"),
    pytest.param({"x": {}},
                 "Supplied AttributeValue is empty, must contain exactly one of the supported "
                 "datatypes", id="no-type"),
    # Key attributes: present, of the declared type, not empty.
    pytest.param({"id": {"N": "1"}},
                 INVALID + "Type mismatch for key id expected: S actual: N", id="key-type"),
    pytest.param({"id": {"S": ""}},
                 "One or more parameter values are not valid. The AttributeValue for a key "
                 "attribute cannot contain an empty string value. Key: id", id="empty-key"),
]


@pytest.mark.parametrize(("attributes", "message"), PUT_VALUE_CASES)
def test_put_item_refuses_bad_values(
    ddb: Any, hash_table: str, attributes: dict[str, Any], message: str
) -> None:
    item = {**KEY, **attributes}
    refused(lambda: ddb.put_item(TableName=hash_table, Item=item), "ValidationException", message)
    absent(ddb, hash_table, KEY)


def test_put_item_refuses_duplicates_in_sets(ddb: Any, hash_table: str) -> None:
    # Sets hold no duplicates. DynamoDB's rendering of the collection varies by
    # region ([a, a] / ["a", "a"]); the fixed parts are checked.
    for value in ({"SS": ["a", "a"]}, {"NS": ["1", "1"]}, {"BS": [b"b", b"b"]}):
        response = refused(
            lambda value=value: ddb.put_item(TableName=hash_table, Item={**KEY, "x": value}),
            "ValidationException", None)
        message = response["Error"]["Message"]
        assert "Input collection" in message and "contains duplicates" in message, message
    absent(ddb, hash_table, KEY)


def test_put_item_missing_key(ddb: Any, hash_table: str) -> None:
    # Every key attribute must be in the item.
    refused(lambda: ddb.put_item(TableName=hash_table, Item={"n": {"N": "1"}}),
            "ValidationException", INVALID + "Missing the key id in the item")


def test_put_item_size_limit_is_409600_bytes(ddb: Any, hash_table: str) -> None:
    # Item size = attribute names + values (UTF-8 bytes); exactly 409,600 is
    # accepted, 409,601 refused (dynamodb-conformance, limits/itemSize).
    overhead = len("id") + len("k") + len("p")
    at_limit = {**KEY, "p": {"S": "x" * (MAX_ITEM_BYTES - overhead)}}
    ddb.put_item(TableName=hash_table, Item=at_limit)
    over = {**KEY, "p": {"S": "y" * (MAX_ITEM_BYTES - overhead + 1)}}
    refused(lambda: ddb.put_item(TableName=hash_table, Item=over),
            "ValidationException", ITEM_TOO_BIG)
    stored = ddb.get_item(TableName=hash_table, Key=KEY, ConsistentRead=True)["Item"]
    assert stored["p"]["S"] == "x" * (MAX_ITEM_BYTES - overhead)


@pytest.mark.parametrize("mode", ["UPDATED_NEW", "ALL_NEW", "UPDATED_OLD"])
def test_put_and_delete_return_values_are_all_old_or_none(
    ddb: Any, seeded: str, mode: str
) -> None:
    # PutItem and DeleteItem only know ALL_OLD and NONE. DynamoDB's wording
    # (paritysuite deleteItem "request validation envelope", eu-west-2 and
    # us-east-1, 2026-10-09; dynalite putItem.js); "Return values set to invalid
    # value" is DynamoDB Local's.
    message = "ReturnValues can only be ALL_OLD or NONE"
    refused(lambda: ddb.put_item(TableName=seeded, Item=KEY, ReturnValues=mode),
            "ValidationException", message)
    refused(lambda: ddb.delete_item(TableName=seeded, Key=KEY, ReturnValues=mode),
            "ValidationException", message)
    unchanged(ddb, seeded)


# -- Keys that do not match the table ---------------------------------------------

KEY_MISMATCH_CASES = [
    pytest.param({"PK": {"S": "a"}}, id="missing-range-key"),
    pytest.param({"PK": {"S": "a"}, "SK": {"N": "1"}}, id="wrong-type"),
    pytest.param({"PK": {"S": "a"}, "SK": {"S": "b"}, "x": {"S": "c"}}, id="extra-attribute"),
    pytest.param({"pk": {"S": "a"}, "SK": {"S": "b"}}, id="wrong-name"),
]


@pytest.mark.parametrize("key", KEY_MISMATCH_CASES)
def test_key_must_match_the_schema(ddb: Any, videos: str, key: dict[str, Any]) -> None:
    # GetItem, UpdateItem and DeleteItem take exactly the table's key attributes.
    for call in (
        lambda: ddb.get_item(TableName=videos, Key=key),
        lambda: ddb.update_item(TableName=videos, Key=key, UpdateExpression="ADD n :one",
                                ExpressionAttributeValues={":one": {"N": "1"}}),
        lambda: ddb.delete_item(TableName=videos, Key=key),
    ):
        refused(call, "ValidationException", KEY_SCHEMA_MISMATCH)
    absent(ddb, videos, {"PK": {"S": "a"}, "SK": {"S": "b"}})


# -- Tables -------------------------------------------------------------------------


def test_item_operations_on_a_missing_table(ddb: Any) -> None:
    # Any item operation on a table that does not exist.
    table = "no-such-table"
    for call in (
        lambda: ddb.get_item(TableName=table, Key=KEY),
        lambda: ddb.put_item(TableName=table, Item=KEY),
        lambda: ddb.update_item(TableName=table, Key=KEY, UpdateExpression="ADD n :one",
                                ExpressionAttributeValues={":one": {"N": "1"}}),
        lambda: ddb.delete_item(TableName=table, Key=KEY),
    ):
        refused(call, "ResourceNotFoundException", RESOURCE_NOT_FOUND)


def test_table_operations_on_a_missing_table(ddb: Any) -> None:
    # DescribeTable and DeleteTable name the table they did not find.
    message = "Requested resource not found: Table: no-such-table not found"
    refused(lambda: ddb.describe_table(TableName="no-such-table"),
            "ResourceNotFoundException", message)
    refused(lambda: ddb.delete_table(TableName="no-such-table"),
            "ResourceNotFoundException", message)


def test_create_table_twice(ddb: Any, hash_table: str) -> None:
    # A table name is taken until the table is deleted.
    refused(lambda: ddb.create_table(
        TableName=hash_table,
        AttributeDefinitions=[{"AttributeName": "other", "AttributeType": "N"}],
        KeySchema=[{"AttributeName": "other", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
    ), "ResourceInUseException", f"Table already exists: {hash_table}")
    table = ddb.describe_table(TableName=hash_table)["Table"]
    assert table["KeySchema"] == [{"AttributeName": "id", "KeyType": "HASH"}]


def _create(ddb: Any, name: str = "bad-table", **overrides: Any) -> Any:
    request: dict[str, Any] = {
        "TableName": name,
        "AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"}],
        "BillingMode": "PAY_PER_REQUEST",
    }
    request.update(overrides)
    return ddb.create_table(**{k: v for k, v in request.items() if v is not None})


CREATE_TABLE_CASES = [
    # Table names: 3 to 255 characters of [a-zA-Z0-9_.-].
    pytest.param({"TableName": "ab"},
                 "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy "
                 "constraint: Member must have length greater than or equal to 3", id="short-name"),
    pytest.param({"TableName": "bad table!@#"},
                 "1 validation error detected: Value 'bad table!@#' at 'tableName' failed to "
                 "satisfy constraint: Member must satisfy regular expression pattern: "
                 "[a-zA-Z0-9_.-]+", id="name-pattern"),
    # KeyType is HASH or RANGE; AttributeType is S, N or B.
    pytest.param({"KeySchema": [{"AttributeName": "a", "KeyType": "INVALID"}]},
                 "1 validation error detected: Value 'INVALID' at 'keySchema.1.member.keyType' "
                 "failed to satisfy constraint: Member must satisfy enum value set: [HASH, RANGE]",
                 id="key-type-enum"),
    pytest.param({"AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "SS"}]},
                 "1 validation error detected: Value 'SS' at "
                 "'attributeDefinitions.1.member.attributeType' failed to satisfy constraint: "
                 "Member must satisfy enum value set: [B, N, S]", id="attribute-type-enum"),
    # Key attributes must be defined, and only they.
    pytest.param({"AttributeDefinitions": [{"AttributeName": "b", "AttributeType": "S"}]},
                 INVALID + "Some index key attributes are not defined in AttributeDefinitions. "
                 "Keys: [a], AttributeDefinitions: [b]", id="key-not-defined"),
    pytest.param({"AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "S"},
                                           {"AttributeName": "b", "AttributeType": "S"}]},
                 INVALID + "Number of attributes in KeySchema does not exactly match number of "
                 "attributes defined in AttributeDefinitions", id="extra-definition"),
    pytest.param({"KeySchema": [{"AttributeName": "a", "KeyType": "HASH"},
                                {"AttributeName": "a", "KeyType": "RANGE"}]},
                 "Invalid KeySchema: Some index key attribute have no definition",
                 id="same-key-twice"),
    # The first key is HASH, the second RANGE.
    pytest.param({"AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "S"},
                                           {"AttributeName": "b", "AttributeType": "S"}],
                  "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"},
                                {"AttributeName": "b", "KeyType": "HASH"}]},
                 "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type",
                 id="second-not-range"),
    pytest.param({"AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "S"},
                                           {"AttributeName": "b", "AttributeType": "S"}],
                  "KeySchema": [{"AttributeName": "a", "KeyType": "RANGE"},
                                {"AttributeName": "b", "KeyType": "HASH"}]},
                 "Invalid KeySchema: The first KeySchemaElement is not a HASH key type",
                 id="first-not-hash"),
    # Billing: PROVISIONED needs throughput, PAY_PER_REQUEST takes none.
    pytest.param({"BillingMode": "PROVISIONED"},
                 INVALID + "ReadCapacityUnits and WriteCapacityUnits must both be specified when "
                 "BillingMode is PROVISIONED", id="provisioned-without-throughput"),
    pytest.param({"ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}},
                 INVALID + "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when "
                 "BillingMode is PAY_PER_REQUEST", id="on-demand-with-throughput"),
]


@pytest.mark.parametrize(("overrides", "message"), CREATE_TABLE_CASES)
def test_create_table_validation(ddb: Any, overrides: dict[str, Any], message: str) -> None:
    refused(lambda: _create(ddb, **overrides), "ValidationException", message)
    name = overrides.get("TableName", "bad-table")
    assert name not in ddb.list_tables()["TableNames"]


# -- The wire: malformed requests, never a 500 --------------------------------------


def test_malformed_json_is_a_serialization_exception(backend: Backend) -> None:
    # A body that is not JSON: 400 and a bare SerializationException.
    raw = backend.raw("ListTables", b"{not json")
    assert raw.status == 400
    assert raw.json == {"__type": "com.amazon.coral.service#SerializationException"}


@pytest.mark.parametrize("target", ["DynamoDB_20120810.ListTable", "whatever", ""])
def test_unknown_operation(backend: Backend, target: str) -> None:
    # A target DynamoDB does not know: 400 and a bare UnknownOperationException.
    raw = backend.raw(target, b"{}")
    assert raw.status == 400
    assert raw.json == {"__type": "com.amazon.coral.service#UnknownOperationException"}


def test_member_of_the_wrong_json_type(backend: Backend) -> None:
    # A member whose JSON type is wrong fails deserialization (newest wording
    # recorded in dynalite's test/helpers.js assertType).
    raw = backend.raw("DescribeTable", {"TableName": 23})
    assert (raw.status, raw.error_code) == (400, "SerializationException")
    assert raw.message == "NUMBER_VALUE cannot be converted to String"


@pytest.mark.parametrize("body", [b"[]", b"null", b"23", b'"x"', b"\xff\xfe", b"{" * 10_000,
                                  b'{"TableName": {"S": "x"}}', b'{"Key": [1, 2]}'])
def test_garbage_gets_a_400_never_a_500(backend: Backend, body: bytes) -> None:
    # The server never answers 500 to a client's mistake, and keeps serving.
    for operation in ("GetItem", "UpdateItem", "CreateTable"):
        raw = backend.raw(operation, body)
        assert raw.status == 400, (operation, raw.status, raw.body[:200])
        assert raw.error_code in {"SerializationException", "ValidationException"}, raw.body[:200]
    assert backend.raw("ListTables", b"{}").status == 200


def test_responses_carry_dynamodb_headers(backend: Backend) -> None:
    # Every response carries x-amz-crc32 (botocore checks it) and the JSON 1.0 content type.
    if backend.name != "server":
        pytest.skip("the in-process transport's headers are checked by botocore itself")
    for raw in (backend.raw("ListTables", b"{}"), backend.raw("ListTables", b"{not json")):
        assert raw.headers["x-amz-crc32"] == str(zlib.crc32(raw.body))
        assert raw.headers["content-type"] == "application/x-amz-json-1.0"
        assert raw.headers.get("x-amzn-requestid")


@pytest.mark.parametrize("mode", ["legacy", "standard"])
def test_conditional_check_failure_is_not_retried(backend: Backend, seeded: str, mode: str) -> None:
    # A failed condition is the answer, not a transient fault: botocore's retry
    # rules (either mode, default attempts) must hand it back on the first try.
    from botocore.config import Config

    ddb = backend.client(Config(retries={"mode": mode}))
    with pytest.raises(ddb.exceptions.ConditionalCheckFailedException) as excinfo:
        ddb.put_item(TableName=seeded, Item=KEY, ConditionExpression="attribute_not_exists(id)")
    assert excinfo.value.response["ResponseMetadata"]["RetryAttempts"] == 0
    unchanged(ddb, seeded)
