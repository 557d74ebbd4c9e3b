"""``Engine.call`` never changes a request, and keeps nothing of it that its
caller could change later.

The embedded transport relies on it: ``EngineTransport.call_wire`` hands the
engine the very dicts a counter keeps for its adds and sends again and again
(from any number of threads at once), with no copy. So every item operation
is run here, in representative shapes (expressions, legacy parameters, every
ReturnValues, indexes, paging, transactions, and requests refused or failed),
three times over (an operation may decide a repeated request by a quicker
path: UpdateItem's remembered request shapes), and:

* each request is equal, after the call, to a deep copy taken before it;
* a caller that changes its request's dicts after each call changes nothing
  the engine does next: the same steps on a second engine, handed fresh
  copies, answer the same and leave the same items.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest

from tallydb.engine.api import Engine
from tallydb.engine.errors import DynamoDBError
from tallydb.engine.storage import Store

TABLE = {
    "TableName": "tally",
    "KeySchema": [
        {"AttributeName": "PK", "KeyType": "HASH"},
        {"AttributeName": "SK", "KeyType": "RANGE"},
    ],
    "AttributeDefinitions": [
        {"AttributeName": "PK", "AttributeType": "S"},
        {"AttributeName": "SK", "AttributeType": "S"},
        {"AttributeName": "g", "AttributeType": "S"},
    ],
    "GlobalSecondaryIndexes": [
        {
            "IndexName": "by_g",
            "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"},
        }
    ],
    "BillingMode": "PAY_PER_REQUEST",
}


def _key(sk: str) -> dict[str, Any]:
    return {"PK": {"S": "p"}, "SK": {"S": sk}}


def _add(sk: str, n: str = "1", **extra: Any) -> dict[str, Any]:
    """A counter's add, as ``Counter.add`` sends it."""
    return {
        "TableName": "tally",
        "Key": _key(sk),
        "UpdateExpression": "ADD #n :v0",
        "ExpressionAttributeNames": {"#n": "n"},
        "ExpressionAttributeValues": {":v0": {"N": n}},
        "ReturnValues": "UPDATED_NEW",
        **extra,
    }


def steps() -> list[tuple[str, dict[str, Any]]]:
    """Representative requests of every item operation, in an order whose
    answers depend on what came before (fresh dicts on every call, none
    shared by two steps)."""
    item = {
        **_key("a"),
        "g": {"S": "G1"},
        "n": {"N": "5"},
        "m": {"M": {"x": {"L": [{"S": "y"}, {"N": "1"}, {"B": "AAE="}]}}},
        "ss": {"SS": ["a", "b"]},
        "ns": {"NS": ["1", "2"]},
        "bs": {"BS": ["AAE=", "AAI="]},
        "flag": {"BOOL": True},
        "nothing": {"NULL": True},
    }
    listed: list[tuple[str, dict[str, Any]]] = [
        ("PutItem", {"TableName": "tally", "Item": item}),
        (
            "PutItem",
            {"TableName": "tally", "Item": {**item, **_key("b")}, "ReturnValues": "ALL_OLD"},
        ),
        (
            "PutItem",
            {
                "TableName": "tally",
                "Item": {**_key("b"), "g": {"S": "G2"}, "n": {"N": "1"}},
                "ConditionExpression": "attribute_exists(#pk) AND #n < :big",
                "ExpressionAttributeNames": {"#pk": "PK", "#n": "n"},
                "ExpressionAttributeValues": {":big": {"N": "100"}},
                "ReturnValues": "ALL_OLD",
            },
        ),
        (  # fails its condition: the old item comes back in the error
            "PutItem",
            {
                "TableName": "tally",
                "Item": {**_key("a")},
                "ConditionExpression": "attribute_not_exists(PK)",
                "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
            },
        ),
        (
            "PutItem",
            {"TableName": "tally", "Item": {**_key("c")}, "Expected": {"PK": {"Exists": False}}},
        ),
        ("UpdateItem", _add("a")),
        ("UpdateItem", _add("a", "2")),
        ("UpdateItem", _add("new")),  # a new item
        ("UpdateItem", _add("a", "-1.5")),
        ("UpdateItem", _add("a", "1e2")),  # not canonical as sent
        ("UpdateItem", _add("a", "x")),  # refused
        ("UpdateItem", {**_add("a"), "ExpressionAttributeValues": {":v0": {"S": "x"}}}),
        (
            "UpdateItem",
            _add(
                "a",
                ConditionExpression="#n BETWEEN :lo AND :hi",
                ExpressionAttributeValues={
                    ":v0": {"N": "1"},
                    ":lo": {"N": "0"},
                    ":hi": {"N": "1000"},
                },
            ),
        ),
        (  # fails the bound
            "UpdateItem",
            _add(
                "a",
                ConditionExpression="#n <= :hi",
                ExpressionAttributeValues={":v0": {"N": "1"}, ":hi": {"N": "0"}},
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            ),
        ),
        (
            "UpdateItem",
            {
                "TableName": "tally",
                "Key": _key("a"),
                "UpdateExpression": (
                    "SET #m.#x[0] = :s, #l = list_append(if_not_exists(#l, :empty), :more), "
                    "#o = :map, #g = :g, #c = if_not_exists(#c, :zero) + :one "
                    "REMOVE #flag ADD #ss :ss DELETE #ns :ns"
                ),
                "ExpressionAttributeNames": {
                    "#m": "m",
                    "#x": "x",
                    "#l": "l",
                    "#o": "o",
                    "#g": "g",
                    "#c": "c",
                    "#flag": "flag",
                    "#ss": "ss",
                    "#ns": "ns",
                },
                "ExpressionAttributeValues": {
                    ":s": {"S": "z"},
                    ":empty": {"L": []},
                    ":more": {"L": [{"M": {"k": {"S": "v"}}}, {"B": "AAM="}]},
                    ":map": {"M": {"inner": {"M": {"deep": {"SS": ["q"]}}}}},
                    ":g": {"S": "G3"},
                    ":zero": {"N": "0"},
                    ":one": {"N": "1"},
                    ":ss": {"SS": ["c"]},
                    ":ns": {"NS": ["1"]},
                },
                "ReturnValues": "ALL_NEW",
            },
        ),
        (
            "UpdateItem",
            {
                "TableName": "tally",
                "Key": _key("b"),
                "UpdateExpression": "SET #o = :map",
                "ExpressionAttributeNames": {"#o": "o"},
                "ExpressionAttributeValues": {":map": {"M": {"k": {"L": [{"N": "1"}]}}}},
                "ReturnValues": "UPDATED_OLD",
            },
        ),
        (
            "UpdateItem",
            {
                "TableName": "tally",
                "Key": _key("c"),
                "AttributeUpdates": {
                    "n": {"Action": "ADD", "Value": {"N": "3"}},
                    "s": {"Action": "PUT", "Value": {"M": {"a": {"S": "b"}}}},
                },
                "Expected": {"PK": {"Value": {"S": "p"}}},
                "ReturnValues": "ALL_OLD",
            },
        ),
        (
            "UpdateItem",
            {"TableName": "tally", "Key": {"PK": {"S": "p"}}, "UpdateExpression": "ADD n :v"},
        ),
        ("UpdateItem", {"TableName": "missing", "Key": _key("a")}),
        ("GetItem", {"TableName": "tally", "Key": _key("a")}),
        (
            "GetItem",
            {
                "TableName": "tally",
                "Key": _key("a"),
                "ProjectionExpression": "#m.#x[0], n, o.#i",
                "ExpressionAttributeNames": {"#m": "m", "#x": "x", "#i": "inner"},
                "ConsistentRead": True,
                "ReturnConsumedCapacity": "TOTAL",
            },
        ),
        ("GetItem", {"TableName": "tally", "Key": _key("b"), "AttributesToGet": ["n", "g"]}),
        (
            "Query",
            {
                "TableName": "tally",
                "KeyConditionExpression": "PK = :p AND begins_with(SK, :s)",
                "FilterExpression": "attribute_exists(n) AND size(#g) > :one",
                "ExpressionAttributeNames": {"#g": "g"},
                "ExpressionAttributeValues": {
                    ":p": {"S": "p"},
                    ":s": {"S": ""},
                    ":one": {"N": "1"},
                },
                "ScanIndexForward": False,
                "Limit": 2,
                "ExclusiveStartKey": _key("zz"),
                "ReturnConsumedCapacity": "INDEXES",
            },
        ),
        (
            "Query",
            {
                "TableName": "tally",
                "IndexName": "by_g",
                "KeyConditions": {
                    "g": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "G3"}]}
                },
                "Select": "COUNT",
            },
        ),
        (
            "Scan",
            {
                "TableName": "tally",
                "FilterExpression": "contains(#ss, :c) OR #n IN (:a, :b)",
                "ExpressionAttributeNames": {"#ss": "ss", "#n": "n"},
                "ExpressionAttributeValues": {":c": {"S": "a"}, ":a": {"N": "1"}, ":b": {"N": "4"}},
                "ProjectionExpression": "PK, SK, n",
                "Limit": 3,
            },
        ),
        ("Scan", {"TableName": "tally", "Segment": 0, "TotalSegments": 2, "ScanFilter": {}}),
        (
            "BatchGetItem",
            {
                "RequestItems": {
                    "tally": {
                        "Keys": [_key("a"), _key("b"), _key("none")],
                        "ProjectionExpression": "#k, n",
                        "ExpressionAttributeNames": {"#k": "SK"},
                        "ConsistentRead": True,
                    }
                }
            },
        ),
        (
            "BatchWriteItem",
            {
                "RequestItems": {
                    "tally": [
                        {"PutRequest": {"Item": {**_key("d"), "g": {"S": "G1"}, "n": {"N": "9"}}}},
                        {"DeleteRequest": {"Key": _key("c")}},
                    ]
                },
                "ReturnConsumedCapacity": "TOTAL",
                "ReturnItemCollectionMetrics": "SIZE",
            },
        ),
        (
            "TransactGetItems",
            {
                "TransactItems": [
                    {"Get": {"TableName": "tally", "Key": _key("a"), "ProjectionExpression": "n"}},
                    {"Get": {"TableName": "tally", "Key": _key("d")}},
                ]
            },
        ),
        (
            "TransactWriteItems",
            {
                "TransactItems": [
                    {
                        "Put": {
                            "TableName": "tally",
                            "Item": {**_key("e"), "n": {"N": "1"}, "g": {"S": "G2"}},
                            "ConditionExpression": "attribute_not_exists(PK) OR #n < :n",
                            "ExpressionAttributeNames": {"#n": "n"},
                            "ExpressionAttributeValues": {":n": {"N": "1000"}},
                        }
                    },
                    {
                        "Update": {
                            "TableName": "tally",
                            "Key": _key("a"),
                            "UpdateExpression": "ADD #n :v0",
                            "ExpressionAttributeNames": {"#n": "n"},
                            "ExpressionAttributeValues": {":v0": {"N": "10"}},
                        }
                    },
                    {
                        "ConditionCheck": {
                            "TableName": "tally",
                            "Key": _key("b"),
                            "ConditionExpression": "attribute_exists(PK)",
                        }
                    },
                    {"Delete": {"TableName": "tally", "Key": _key("d")}},
                ],
                "ClientRequestToken": "token-1",
            },
        ),
        (  # cancelled: its reasons carry the item
            "TransactWriteItems",
            {
                "TransactItems": [
                    {
                        "ConditionCheck": {
                            "TableName": "tally",
                            "Key": _key("a"),
                            "ConditionExpression": "attribute_not_exists(PK)",
                            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                        }
                    },
                    {"Delete": {"TableName": "tally", "Key": _key("b")}},
                ]
            },
        ),
        ("DeleteItem", {"TableName": "tally", "Key": _key("e"), "ReturnValues": "ALL_OLD"}),
        (  # fails its condition
            "DeleteItem",
            {
                "TableName": "tally",
                "Key": _key("new"),
                "ConditionExpression": "#n = :two",
                "ExpressionAttributeNames": {"#n": "n"},
                "ExpressionAttributeValues": {":two": {"N": "2"}},
            },
        ),
        ("DeleteItem", {"TableName": "tally", "Key": _key("new"), "ReturnValues": "ALL_OLD"}),
        ("DeleteItem", {"TableName": "tally", "Key": {"PK": {"N": "1"}, "SK": {"S": "x"}}}),
    ]
    return [(operation, json.loads(json.dumps(request))) for operation, request in listed]


@pytest.fixture
def engine() -> Iterator[Engine]:
    yield from _engine()


def _engine() -> Iterator[Engine]:
    engine = Engine(Store())
    engine.call("CreateTable", copy.deepcopy(TABLE))
    try:
        yield engine
    finally:
        engine.close()


def _answer(engine: Engine, operation: str, request: dict[str, Any]) -> Any:
    """The response, or the error as its wire form (both plain data)."""
    try:
        return engine.call(operation, request)
    except DynamoDBError as e:
        return ("error", type(e).__name__, e.to_wire())


def _items(engine: Engine) -> list[dict[str, Any]]:
    return sorted(
        engine.call("Scan", {"TableName": "tally", "ConsistentRead": True})["Items"],
        key=lambda item: item["SK"]["S"],
    )


def _vandalize(value: Any) -> None:
    """Change every dict and list in ``value`` in place, into other valid
    values where it can (as a caller reusing its dicts would)."""
    if isinstance(value, dict):
        for k, v in list(value.items()):
            if isinstance(v, dict | list):
                _vandalize(v)
            elif k == "S" and isinstance(v, str):
                value[k] = v + "~"
            elif k == "N" and isinstance(v, str):
                value[k] = "7"
            elif k == "B" and isinstance(v, str):
                value[k] = "AAAA"
    elif isinstance(value, list):
        for i, v in enumerate(value):
            if isinstance(v, str):
                value[i] = v + "~"
            else:
                _vandalize(v)
        value.append("extra")


def test_every_step_is_answered_as_expected(engine: Engine) -> None:
    """The steps do what they are there for (a typo in one would test less)."""
    answers = [_answer(engine, op, request) for op, request in steps()]
    errors = [a[1] for a in answers if isinstance(a, tuple)]
    assert errors.count("ConditionalCheckFailedException") == 3
    assert "TransactionCanceledException" in errors
    assert "ResourceNotFoundException" in errors
    assert "ValidationException" in errors
    assert len(errors) < len(answers) // 2


def test_engine_call_never_changes_a_request(engine: Engine) -> None:
    for _ in range(3):  # again: repeated requests may take quicker paths
        for operation, request in steps():
            before = copy.deepcopy(request)
            _answer(engine, operation, request)
            assert request == before, operation


def test_the_same_request_object_sent_again_and_again() -> None:
    """As a counter sends its kept add: one dict, many calls."""
    for engine in _engine():
        request = _add("hot")
        before = copy.deepcopy(request)
        values = [engine.call("UpdateItem", request)["Attributes"]["n"]["N"] for _ in range(50)]
        assert values == [str(i) for i in range(1, 51)]
        assert request == before


def test_a_request_changed_after_its_call_changes_nothing_the_engine_does() -> None:
    """Each request is changed in place once answered; a second engine given
    fresh copies answers every step alike and ends with the same items."""
    for mine in _engine():
        for theirs in _engine():
            for _ in range(3):
                for (operation, request), (_, fresh) in zip(steps(), steps(), strict=True):
                    answer = _answer(mine, operation, request)
                    assert answer == _answer(theirs, operation, fresh), operation
                    _vandalize(request)
                    assert _items(mine) == _items(theirs), operation


def test_a_hot_request_changed_in_place_is_read_anew() -> None:
    """UpdateItem remembers the last request of a shape to skip its checks
    when the next one is equal: it must compare against its own copies, or
    a caller reusing one dict for another key or value would be answered
    for the old one."""
    for engine in _engine():
        request = _add("k1")
        assert engine.call("UpdateItem", request)["Attributes"]["n"] == {"N": "1"}
        assert engine.call("UpdateItem", request)["Attributes"]["n"] == {"N": "2"}
        request["Key"]["SK"]["S"] = "k2"
        assert engine.call("UpdateItem", request)["Attributes"]["n"] == {"N": "1"}
        request["ExpressionAttributeValues"][":v0"]["N"] = "5"
        assert engine.call("UpdateItem", request)["Attributes"]["n"] == {"N": "6"}
        request["Key"]["SK"] = {"S": "k1"}
        assert engine.call("UpdateItem", request)["Attributes"]["n"] == {"N": "7"}
        names = {k["SK"]["S"]: k["n"]["N"] for k in _items(engine)}
        assert names == {"k1": "7", "k2": "6"}
