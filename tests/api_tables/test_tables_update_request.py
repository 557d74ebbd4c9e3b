"""api/_params.update_request: UpdateItem's request half, decided once per shape.

A request shaped like one that passed (same table, expressions, names, value
placeholders, ReturnValues and every other member botocore's model checks)
skips the checks its shape decided, the model's (``check_request``) too. Every case
here is run twice, once with nothing remembered and once right after a good
request of the same shape, and must come out the same: the same decision, or
the same DynamoDB error. The errors themselves are pinned by the UpdateItem
tests (tests/api_reads, tests/test_errors.py); this file pins that the hot
path never changes one.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

from tallydb.engine.api import Engine, _params
from tallydb.engine.api._params import update_request
from tallydb.engine.errors import DynamoDBError
from tallydb.engine.storage import Store

TABLE = "counters"
GSI_TABLE = "ranked"
KEY = {"PK": {"S": "user#1"}, "SK": {"S": "song#1"}}


@pytest.fixture
def engine() -> Iterator[Engine]:
    engine = Engine(Store(None))
    engine.call("CreateTable", {
        "TableName": TABLE, "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"},
                                 {"AttributeName": "SK", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
                      {"AttributeName": "SK", "KeyType": "RANGE"}],
    })
    engine.call("CreateTable", {
        "TableName": GSI_TABLE, "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "N"},
                                 {"AttributeName": "board", "AttributeType": "S"},
                                 {"AttributeName": "score", "AttributeType": "N"}],
        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
        "GlobalSecondaryIndexes": [{
            "IndexName": "top", "Projection": {"ProjectionType": "KEYS_ONLY"},
            "KeySchema": [{"AttributeName": "board", "KeyType": "HASH"},
                          {"AttributeName": "score", "KeyType": "RANGE"}]}],
    })
    yield engine
    engine.close()


def counter(**changes: Any) -> dict[str, Any]:
    request: dict[str, Any] = {
        "TableName": TABLE, "Key": copy.deepcopy(KEY),
        "UpdateExpression": "ADD play_count :one",
        "ExpressionAttributeValues": {":one": {"N": "1"}}, "ReturnValues": "UPDATED_NEW",
    }
    request.update(changes)
    return {k: v for k, v in request.items() if v is not None}


SAMPLE_ITEMS: list[dict[str, Any]] = [
    {}, {"play_count": {"N": "41"}}, {"v": {"N": "3"}, "l": {"L": [{"S": "a"}]}},
    {"s": {"S": "abc"}, "tags": {"SS": ["x", "y"]}, "v": {"N": "7"}},
]


def outcome(engine: Engine, request: dict[str, Any]) -> Any:
    """What update_request decides, in comparable form, or the error."""
    try:
        with engine.store.transaction() as txn:
            decided = update_request(txn, copy.deepcopy(request))
    except DynamoDBError as error:
        return "refused", type(error).__name__, error.message
    applied: list[Any] = []
    for item in SAMPLE_ITEMS:
        base = {**item, **decided.key}
        try:
            applied.append(decided.update.apply(base) if decided.update else base)
        except DynamoDBError as error:
            applied.append((type(error).__name__, error.message))
    holds = [decided.condition.holds(item) if decided.condition else None
             for item in SAMPLE_ITEMS]
    return (decided.return_values, decided.table.name, decided.key, decided.hk, decided.rk,
            applied, holds)


def both_ways(engine: Engine, good: dict[str, Any], request: dict[str, Any]) -> Any:
    """``request``'s outcome with nothing remembered and after ``good``."""
    _params._update_shapes.clear()
    cold = outcome(engine, request)
    _params._update_shapes.clear()
    assert outcome(engine, good)[0] != "refused"
    assert _params._update_shapes, "the good request's shape is remembered"
    assert outcome(engine, good)[0] != "refused"  # and decided the quick way, remembered
    warm = outcome(engine, request)
    assert warm == cold
    return warm


# (good request of a shape, a request of the same shape that must come out the same)
SAME_SHAPE: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("the same request", counter(), counter()),
    ("another key", counter(), counter(Key={"PK": {"S": "u2"}, "SK": {"S": "é" * 300}})),
    ("a number to canonicalise", counter(),
     counter(ExpressionAttributeValues={":one": {"N": "+01.50"}})),
    ("a number that is not one", counter(),
     counter(ExpressionAttributeValues={":one": {"N": "1x"}})),
    ("a number out of range", counter(),
     counter(ExpressionAttributeValues={":one": {"N": "1e126"}})),
    ("two datatypes", counter(),
     counter(ExpressionAttributeValues={":one": {"N": "1", "S": "a"}})),
    ("an empty value", counter(), counter(ExpressionAttributeValues={":one": {}})),
    ("a value that is not a map", counter(), counter(ExpressionAttributeValues={":one": "1"})),
    ("ADD with a string", counter(), counter(ExpressionAttributeValues={":one": {"S": "a"}})),
    ("ADD with a set", counter(), counter(ExpressionAttributeValues={":one": {"NS": ["2", "1"]}})),
    ("ADD with a duplicate set", counter(),
     counter(ExpressionAttributeValues={":one": {"NS": ["1", "1.0"]}})),
    ("an empty key string", counter(), counter(Key={"PK": {"S": ""}, "SK": {"S": "a"}})),
    ("a key of the wrong type", counter(), counter(Key={"PK": {"N": "1"}, "SK": {"S": "a"}})),
    ("a key without its range", counter(), counter(Key={"PK": {"S": "a"}})),
    ("a key with one more", counter(),
     counter(Key={**KEY, "x": {"S": "a"}})),
    ("a key with a bad value", counter(), counter(Key={"PK": {"S": "a"}, "SK": {"N": "x"}})),
    ("a key too long", counter(), counter(Key={"PK": {"S": "a" * 2049}, "SK": {"S": "a"}})),
    ("a range key too long", counter(),
     counter(Key={"PK": {"S": "a"}, "SK": {"S": "ü" * 600}})),
    ("a key that is not a map", counter(), counter(Key=["PK"])),
    ("a list_append of a string",
     counter(UpdateExpression="SET l = list_append(l, :v)",
             ExpressionAttributeValues={":v": {"L": [{"S": "b"}]}}),
     counter(UpdateExpression="SET l = list_append(l, :v)",
             ExpressionAttributeValues={":v": {"S": "b"}})),
    ("arithmetic on a string",
     counter(UpdateExpression="SET v = v + :v", ExpressionAttributeValues={":v": {"N": "2"}}),
     counter(UpdateExpression="SET v = v + :v", ExpressionAttributeValues={":v": {"S": "2"}})),
    ("a condition that holds or not",
     counter(ConditionExpression="v = :cur", UpdateExpression="SET v = :next",
             ExpressionAttributeValues={":cur": {"N": "3"}, ":next": {"N": "4"}}),
     counter(ConditionExpression="v = :cur", UpdateExpression="SET v = :next",
             ExpressionAttributeValues={":cur": {"N": "7"}, ":next": {"N": "8"}})),
    ("BETWEEN out of order",
     counter(ConditionExpression="v BETWEEN :a AND :b",
             ExpressionAttributeValues={":one": {"N": "1"}, ":a": {"N": "1"}, ":b": {"N": "9"}}),
     counter(ConditionExpression="v BETWEEN :a AND :b",
             ExpressionAttributeValues={":one": {"N": "1"}, ":a": {"N": "9"}, ":b": {"N": "1"}})),
    ("begins_with on a number",
     counter(ConditionExpression="begins_with(s, :p)",
             ExpressionAttributeValues={":one": {"N": "1"}, ":p": {"S": "a"}}),
     counter(ConditionExpression="begins_with(s, :p)",
             ExpressionAttributeValues={":one": {"N": "1"}, ":p": {"N": "1"}})),
    ("names",
     counter(UpdateExpression="ADD #n :one", ExpressionAttributeNames={"#n": "play_count"}),
     counter(UpdateExpression="ADD #n :one", ExpressionAttributeNames={"#n": "play_count"},
             Key={"PK": {"S": "b"}, "SK": {"S": "c"}})),
    ("ALL_OLD", counter(ReturnValues="ALL_OLD"), counter(ReturnValues="ALL_OLD")),
]


@pytest.mark.parametrize(("good", "request_"), [(g, r) for _, g, r in SAME_SHAPE],
                         ids=[name for name, _, _ in SAME_SHAPE])
def test_a_request_of_a_remembered_shape_comes_out_as_with_every_check(
    engine: Engine, good: dict[str, Any], request_: dict[str, Any]
) -> None:
    both_ways(engine, good, request_)


# Requests of other shapes than the good one: each decided by the full checks.
OTHER_SHAPES: list[tuple[str, dict[str, Any]]] = [
    ("an unused value", counter(ExpressionAttributeValues={":one": {"N": "1"},
                                                           ":two": {"N": "2"}})),
    ("an undefined value", counter(ExpressionAttributeValues={":two": {"N": "2"}})),
    ("an unused name", counter(ExpressionAttributeNames={"#n": "x"})),
    ("the key updated", counter(UpdateExpression="SET PK = :one")),
    ("legacy and expressions mixed", counter(AttributeUpdates={"a": {"Action": "DELETE"}})),
    ("legacy", counter(UpdateExpression=None, ExpressionAttributeValues=None,
                       AttributeUpdates={"a": {"Value": {"N": "1"}, "Action": "ADD"}})),
    ("no update", counter(UpdateExpression=None, ExpressionAttributeValues=None)),
    ("another table", counter(TableName=GSI_TABLE, Key={"id": {"N": "1"}})),
    ("a table that does not exist", counter(TableName="nothing")),
    ("ReturnValues for PutItem only", counter(ReturnValues="UPDATED_OLD")),
    ("a syntax error", counter(UpdateExpression="ADD ADD")),
]


@pytest.mark.parametrize("request_", [r for _, r in OTHER_SHAPES],
                         ids=[name for name, _ in OTHER_SHAPES])
def test_requests_of_other_shapes_are_decided_in_full(
    engine: Engine, request_: dict[str, Any]
) -> None:
    both_ways(engine, counter(), request_)
    # And once remembered themselves (those that passed), again the same.
    _params._update_shapes.clear()
    first = outcome(engine, request_)
    assert outcome(engine, request_) == first


def test_an_index_key_given_a_value_of_the_wrong_type(engine: Engine) -> None:
    good = {"TableName": GSI_TABLE, "Key": {"id": {"N": "1"}},
            "UpdateExpression": "SET score = :s", "ExpressionAttributeValues": {":s": {"N": "5"}}}
    bad = {**good, "ExpressionAttributeValues": {":s": {"S": "5"}}}
    assert both_ways(engine, good, bad) == (
        "refused", "ValidationException",
        "One or more parameter values were invalid: Type mismatch for Index Key score "
        "Expected: N Actual: S IndexName: top")
    canonical = {**good, "Key": {"id": {"N": "007"}}}
    assert both_ways(engine, good, canonical)[2] == {"id": {"N": "7"}}


def test_a_table_made_again_is_not_decided_from_the_old_one(engine: Engine) -> None:
    _params._update_shapes.clear()
    request = counter()
    first = outcome(engine, request)
    engine.call("DeleteTable", {"TableName": TABLE})
    assert outcome(engine, request) == (
        "refused", "ResourceNotFoundException", "Requested resource not found")
    engine.call("CreateTable", {
        "TableName": TABLE, "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
    })
    assert outcome(engine, request) == (
        "refused", "ValidationException", "The provided key element does not match the schema")
    assert outcome(engine, counter(Key={"PK": {"S": "a"}}))[3] != first[3]


def test_a_remembered_shape_decides_the_next_request_without_the_full_checks(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    _params._update_shapes.clear()
    outcome(engine, counter())
    full: list[Any] = []
    monkeypatch.setattr(_params, "_update_request",
                        lambda txn, request: full.append(request))
    decided = outcome(engine, counter(Key={"PK": {"S": "b"}, "SK": {"S": "c"}}))
    assert not full and decided[2] == {"PK": {"S": "b"}, "SK": {"S": "c"}}
    assert decided[5][1] == {"PK": {"S": "b"}, "SK": {"S": "c"}, "play_count": {"N": "42"}}


def test_the_same_request_again_gets_the_same_decision_and_nothing_equal_but_different(
    engine: Engine
) -> None:
    _params._update_shapes.clear()
    with engine.store.transaction() as txn:
        update_request(txn, counter())  # a new shape: every check
        update_request(txn, counter())  # decided the quick way, remembered
        first = update_request(txn, counter())
        again = update_request(txn, counter())
        assert again is first  # equal dicts of strings: the same request
        other = update_request(txn, counter(Key={"PK": {"S": "b"}, "SK": {"S": "c"}}))
        assert other is not first and other.key == {"PK": {"S": "b"}, "SK": {"S": "c"}}
    # A value that compares equal to a remembered one but is not a string
    # (True == 1 in Python) is still checked in full.
    for good, bad in [
        (counter(UpdateExpression="SET f = :f", ExpressionAttributeValues={":f": {"N": "1"}}),
         counter(UpdateExpression="SET f = :f", ExpressionAttributeValues={":f": {"N": 1}})),
        (counter(UpdateExpression="SET f = :f", ExpressionAttributeValues={":f": {"BOOL": True}}),
         counter(UpdateExpression="SET f = :f", ExpressionAttributeValues={":f": {"BOOL": 1}})),
    ]:
        _params._update_shapes.clear()
        outcome(engine, good)
        outcome(engine, good)
        assert outcome(engine, bad)[0] == "refused"


def test_a_caller_changing_its_dicts_afterwards_changes_nothing_remembered(
    engine: Engine
) -> None:
    _params._update_shapes.clear()
    request = counter(UpdateExpression="ADD #n :one", ExpressionAttributeNames={"#n": "n"})
    with engine.store.transaction() as txn:
        update_request(txn, request)
        update_request(txn, request)  # remembered: this very key and value
        request["Key"]["PK"]["S"] = "changed"
        request["ExpressionAttributeValues"][":one"]["N"] = "5"
        request["ExpressionAttributeNames"]["#n"] = "m"
        fresh = counter(UpdateExpression="ADD #n :one", ExpressionAttributeNames={"#n": "n"})
        decided = update_request(txn, fresh)
        assert decided.key == KEY
        assert decided.update is not None
        assert decided.update.apply(dict(KEY)) == {**KEY, "n": {"N": "1"}}
        again = update_request(txn, request)
        assert again.key["PK"] == {"S": "changed"}
        assert again.update is not None
        assert again.update.apply({}) == {"m": {"N": "5"}}


# The model's check (``check_request``) is skipped for a remembered shape:
# a request that differs from a good one only in a member the model checks
# gets the model's answer, exactly as with nothing remembered.
ENUM = "failed to satisfy constraint: Member must satisfy enum value set"
MODEL_CHECKED: list[tuple[str, dict[str, Any], str, str]] = [
    ("ReturnConsumedCapacity", counter(ReturnConsumedCapacity="ALL"), "ValidationException",
     f"1 validation error detected: Value 'ALL' at 'returnConsumedCapacity' {ENUM}: "
     "[INDEXES, TOTAL, NONE]"),
    ("ReturnItemCollectionMetrics", counter(ReturnItemCollectionMetrics="ALL"),
     "ValidationException",
     f"1 validation error detected: Value 'ALL' at 'returnItemCollectionMetrics' {ENUM}: "
     "[SIZE, NONE]"),
    ("ReturnValuesOnConditionCheckFailure",
     counter(ReturnValuesOnConditionCheckFailure="UPDATED_NEW"), "ValidationException",
     "1 validation error detected: Value 'UPDATED_NEW' at "
     f"'returnValuesOnConditionCheckFailure' {ENUM}: [ALL_OLD, NONE]"),
    ("ConditionalOperator", counter(ConditionalOperator="XOR"), "ValidationException",
     f"1 validation error detected: Value 'XOR' at 'conditionalOperator' {ENUM}: [OR, AND]"),
    ("ReturnValues", counter(ReturnValues="SOME"), "ValidationException",
     f"1 validation error detected: Value 'SOME' at 'returnValues' {ENUM}: "
     "[ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]"),
    ("a table name's pattern", counter(TableName="a b"), "ValidationException",
     "1 validation error detected: Value 'a b' at 'tableName' failed to satisfy constraint: "
     "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"),
    ("a table name's type", counter(TableName=5), "SerializationException",
     "NUMBER_VALUE cannot be converted to String"),
    ("an expression's type", counter(UpdateExpression=1), "SerializationException",
     "NUMBER_VALUE cannot be converted to String"),
    ("a value that is a list", counter(ExpressionAttributeValues={":one": [1]}),
     "SerializationException",
     "Unrecognized collection type class com.amazonaws.dynamodb.v20120810.AttributeValue"),
    ("values that are a list", counter(ExpressionAttributeValues=[":one"]),
     "SerializationException", "Unrecognized collection type java.util.Map<java.lang.String, "
     "com.amazonaws.dynamodb.v20120810.AttributeValue>"),
    ("a key value that is a list", counter(Key={"PK": ["x"], "SK": {"S": "a"}}),
     "SerializationException",
     "Unrecognized collection type class com.amazonaws.dynamodb.v20120810.AttributeValue"),
    ("a key value that is a string", counter(Key={"PK": "x", "SK": {"S": "a"}}),
     "SerializationException", "Unexpected value type in payload"),
    ("no key", counter(Key=None), "ValidationException",
     "1 validation error detected: Value null at 'key' failed to satisfy constraint: "
     "Member must not be null"),
]


@pytest.mark.parametrize(("request_", "kind", "message"),
                         [(r, k, m) for _, r, k, m in MODEL_CHECKED],
                         ids=[name for name, _, _, _ in MODEL_CHECKED])
def test_a_remembered_shape_still_gets_the_models_answer(
    engine: Engine, request_: dict[str, Any], kind: str, message: str
) -> None:
    assert both_ways(engine, counter(), request_) == ("refused", kind, message)
    # The same through the engine, which leaves UpdateItem's model check to it.
    _params._update_shapes.clear()
    engine.call("UpdateItem", counter())
    engine.call("UpdateItem", counter())
    with pytest.raises(DynamoDBError) as raised:
        engine.call("UpdateItem", copy.deepcopy(request_))
    assert (type(raised.value).__name__, raised.value.message) == (kind, message)


def test_names_the_model_refuses_are_refused_after_a_remembered_shape(engine: Engine) -> None:
    good = counter(UpdateExpression="ADD #n :one", ExpressionAttributeNames={"#n": "n"})
    for names, message in [
        ({"#n": ["n"]}, "Unrecognized collection type class java.lang.String"),
        (["#n"], "Unrecognized collection type java.util.Map<java.lang.String, "
                 "java.lang.String>"),
    ]:
        bad = {**good, "ExpressionAttributeNames": names}
        assert both_ways(engine, good, bad) == ("refused", "SerializationException", message)


def test_unknown_members_are_ignored_as_the_model_ignores_them(engine: Engine) -> None:
    assert both_ways(engine, counter(), counter(Unknown={"x": [1]}))[0] == "UPDATED_NEW"


def test_the_shape_key_sees_every_member_of_the_model() -> None:
    # A member botocore's model gains must join the shape key (or the
    # members left to the per-request checks), else no shape is remembered.
    assert _params._covers_the_model()


def test_every_shape_member_is_in_the_shape_key() -> None:
    request = counter()
    key = _params._update_shape_key(request)
    for member in _params._SHAPE_MEMBERS:
        assert _params._update_shape_key({**request, member: "other"}) != key, member
