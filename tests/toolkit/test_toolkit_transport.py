"""The embedded transport gives what a boto3 client on the same engine gives.

``tallydb.connect()`` hands the item operations straight to ``engine.call``
(:class:`tallydb.toolkit.transport.EngineTransport`), without botocore. Each case
here sends one request both ways, through the direct transport and through
the in-process boto3 client (botocore serializing, parsing, raising
``ClientError``), on the same engine, and asserts the same response or the
same exception: class, code, message, extras.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

import tallydb
from tallydb.engine import errors
from tallydb.toolkit import inprocess
from tallydb.toolkit.embedded import EngineTransport
from tallydb.toolkit.exceptions import ConditionRefused
from tallydb.toolkit.transport import ClientTransport, Transport

KEY = {"PK": {"S": "a"}, "SK": {"S": "b"}}
ITEM = {
    **KEY,
    "n": {"N": "5"},
    "blob": {"B": b"\x00\x01\xff"},
    "blobs": {"BS": [b"\x00", b"x"]},  # in the order the store keeps a set
    "B": {"M": {"B": {"B": b"nested"}, "s": {"S": "text"}}},
    "l": {"L": [{"N": "1"}, {"B": b"in a list"}]},
}


@pytest.fixture
def both() -> Iterator[tuple[EngineTransport, ClientTransport]]:
    db = tallydb.connect(in_memory=True)
    db.create_table("tbl", hash_key=("PK", "S"), range_key=("SK", "S"))
    direct = db.transport
    assert isinstance(direct, EngineTransport)
    boto = ClientTransport(inprocess.client(direct.engine))
    direct.call("PutItem", {"TableName": "tbl", "Item": copy.deepcopy(ITEM)})
    yield direct, boto
    db.close()


def outcome(transport: Transport, operation: str, request: dict[str, Any]) -> Any:
    """The response, or what the exception carries."""
    try:
        return ("ok", transport.call(operation, copy.deepcopy(request)))
    except tallydb.DynamoDBError as e:
        response = dict(getattr(e, "response", None) or {})
        response.pop("ResponseMetadata", None)
        return (
            "error",
            type(e),
            e.code(),
            e.message,
            str(e),
            getattr(e, "item", None),
            getattr(e, "reasons", None),
            response,
        )


def same(both: tuple[Transport, Transport], operation: str, request: dict[str, Any]) -> Any:
    """Send it both ways (a write that succeeds must be one that can be repeated)."""
    direct, boto = both
    got = outcome(direct, operation, request)
    assert got == outcome(boto, operation, request)
    return got


def test_success_with_binaries(both: tuple[Transport, Transport]) -> None:
    got = same(both, "GetItem", {"TableName": "tbl", "Key": KEY, "ConsistentRead": True})
    assert got == ("ok", {"Item": ITEM})
    got = same(
        both,
        "UpdateItem",
        {
            "TableName": "tbl",
            "Key": KEY,
            "UpdateExpression": "SET n = :six, #blob = :b, #B.#B = :b",
            "ExpressionAttributeNames": {"#B": "B", "#blob": "blob"},
            "ExpressionAttributeValues": {":six": {"N": "6"}, ":b": {"B": b"\xfe"}},
            "ReturnValues": "UPDATED_NEW",
        },
    )
    assert got[1]["Attributes"]["blob"] == {"B": b"\xfe"}
    got = same(
        both,
        "Query",
        {
            "TableName": "tbl",
            "KeyConditionExpression": "PK = :pk",
            "ExpressionAttributeValues": {":pk": {"S": "a"}},
            "ReturnConsumedCapacity": "TOTAL",
        },
    )
    assert got[1]["Count"] == 1
    # botocore sends a str given as a Binary as its UTF-8 bytes; so does the engine's transport
    other = {"PK": {"S": "text"}, "SK": {"S": "b"}}
    same(both, "PutItem", {"TableName": "tbl", "Item": {**other, "b": {"B": "tëxt"}}})
    got = same(both, "GetItem", {"TableName": "tbl", "Key": other, "ConsistentRead": True})
    assert got[1]["Item"]["b"] == {"B": "tëxt".encode()}
    same(
        both,
        "TransactGetItems",
        {"TransactItems": [{"Get": {"TableName": "tbl", "Key": KEY}}]},
    )


def test_conditional_check_failed(both: tuple[Transport, Transport]) -> None:
    got = same(
        both,
        "PutItem",
        {
            "TableName": "tbl",
            "Item": KEY,
            "ConditionExpression": "attribute_not_exists(PK)",
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        },
    )
    assert got[1] is errors.ConditionalCheckFailedException
    assert got[3] == "The conditional request failed"
    assert got[5] == ITEM  # the item as it stood, Binary values as bytes


def test_validation_exception(both: tuple[Transport, Transport]) -> None:
    # one the engine decides (DynamoDB's message)
    got = same(both, "UpdateItem", {"TableName": "tbl", "Key": KEY, "UpdateExpression": "ADD"})
    assert got[1] is errors.ValidationException
    assert "Syntax error" in got[3]
    # one botocore refuses before sending (its own message), and one it lets through
    got = same(
        both,
        "Query",
        {
            "TableName": "tbl",
            "KeyConditionExpression": "PK = :pk",
            "ExpressionAttributeValues": {":pk": {"S": "a"}},
            "Limit": "ten",
        },
    )
    assert got[1] is errors.ValidationException and "Limit" in got[3]
    got = same(both, "GetItem", {"TableName": "nope", "Key": KEY})
    assert got[1] is errors.ResourceNotFoundException


def test_transaction_canceled(both: tuple[Transport, Transport]) -> None:
    got = same(
        both,
        "TransactWriteItems",
        {
            "TransactItems": [
                {
                    "Update": {
                        "TableName": "tbl",
                        "Key": {"PK": {"S": "other"}, "SK": {"S": "b"}},
                        "UpdateExpression": "ADD n :one",
                        "ExpressionAttributeValues": {":one": {"N": "1"}},
                    }
                },
                {
                    "ConditionCheck": {
                        "TableName": "tbl",
                        "Key": KEY,
                        "ConditionExpression": "n = :zero",
                        "ExpressionAttributeValues": {":zero": {"N": "0"}},
                        "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                    }
                },
            ]
        },
    )
    assert got[1] is errors.TransactionCanceledException
    assert [r["Code"] for r in got[6]] == ["None", "ConditionalCheckFailed"]
    assert got[6][1]["Item"] == ITEM


def test_toolkit_errors_alike() -> None:
    """A bounded counter at its limit raises the same either way."""
    raised: list[tuple[Any, ...]] = []
    for direct in (True, False):
        with tallydb.connect(in_memory=True) as db:
            if not direct:
                engine = db.transport.engine  # type: ignore[attr-defined]
                db = tallydb.connect(client=inprocess.client(engine))
            table = db.create_table("stock", hash_key=("sku", "S"), exist_ok=not direct)
            stock = tallydb.Counter(table, {"sku": "A1"}, "n", minimum=0)
            with pytest.raises(tallydb.CounterLimitError) as caught:
                stock.add(-1)
            e = caught.value
            assert isinstance(e, ConditionRefused)
            raised.append((type(e), e.code(), e.message, str(e)))
    assert raised[0] == raised[1]


def test_engine_keeps_no_reference_to_requests_or_responses() -> None:
    with tallydb.connect(in_memory=True) as db:
        db.create_table("tbl", hash_key=("PK", "S"))
        transport = db.transport
        value = {"M": {"inner": {"L": [{"S": "x"}]}}}
        request = {
            "TableName": "tbl",
            "Key": {"PK": {"S": "k"}},
            "UpdateExpression": "SET v = :v",
            "ExpressionAttributeValues": {":v": value},
            "ReturnValues": "ALL_NEW",
        }
        before = copy.deepcopy(request)
        response = transport.call("UpdateItem", request)
        assert request == before  # not changed
        assert response["Attributes"]["v"] is not value  # not the caller's
        value["M"]["inner"]["L"].append({"S": "changed later"})
        response["Attributes"]["v"]["M"]["inner"]["L"].append({"S": "changed too"})
        stored = transport.call("GetItem", {"TableName": "tbl", "Key": {"PK": {"S": "k"}}})
        assert stored["Item"]["v"] == {"M": {"inner": {"L": [{"S": "x"}]}}}
        again = transport.call("GetItem", {"TableName": "tbl", "Key": {"PK": {"S": "k"}}})
        assert again == stored and again["Item"] is not stored["Item"]


def test_counter_requests_are_not_shared_with_the_caller() -> None:
    with tallydb.connect(in_memory=True) as db:
        table = db.create_table("tbl", hash_key=("PK", "S"))
        plays = tallydb.Counter(table, {"PK": "k"}, "n")
        assert [plays.add() for _ in range(3)] == [1, 2, 3]
        assert plays.add(2) == 5 and plays.add(2.5) == 7.5 and plays.add(-0.5) == 7
        plays.minimum = 0  # the configuration changed: the next add is bounded
        with pytest.raises(tallydb.CounterLimitError):
            plays.add(-8)
        assert plays.value() == 7


def test_database_client_and_repr() -> None:
    with tallydb.connect(in_memory=True) as db:
        db.create_table("tbl", hash_key=("PK", "S"))
        assert "embedded" in repr(db)
        assert db.client.describe_table(TableName="tbl")["Table"]["TableName"] == "tbl"
        assert db.client is db.client
    with pytest.raises(ValueError, match="sync"):
        tallydb.connect("http://127.0.0.1:9", sync="full")


def test_counter_add_hands_the_engine_its_kept_request() -> None:
    """``Counter.add`` sends the UpdateItem it keeps per delta, already in the
    engine's JSON shape (Binary as base64 text), with no copy; nothing
    changes it, so every add sends the same, and a boto3 client on the same
    engine sees the counter the embedded transport wrote."""
    with tallydb.connect(in_memory=True) as db:
        table = db.create_table("tbl", hash_key=("PK", "B"), range_key=("SK", "S"))
        transport = db.transport
        assert isinstance(transport, EngineTransport)
        sent: list[dict[str, Any]] = []
        engine_call = transport._engine_call

        def spy(operation: str, request: dict[str, Any]) -> dict[str, Any]:
            sent.append(request)
            return engine_call(operation, request)

        transport._engine_call = spy
        plays = tallydb.Counter(table, {"PK": b"\x00\xff", "SK": "s"}, "n")
        assert plays.add() == 1
        kept = copy.deepcopy(sent[0])
        assert kept["Key"] == {"PK": {"B": "AP8="}, "SK": {"S": "s"}}
        assert [plays.add() for _ in range(3)] == [2, 3, 4]
        assert plays.add(2) == 6 and plays.add() == 7
        ones = [sent[i] for i in (0, 1, 2, 3, 5)]
        assert all(r is ones[0] for r in ones)  # one dict, handed over as it is
        assert sent[4] is not ones[0]
        assert ones[0] == kept  # and never changed
        boto = tallydb.connect(client=inprocess.client(transport.engine))
        same = tallydb.Counter(boto.table("tbl"), {"PK": b"\x00\xff", "SK": "s"}, "n")
        assert same.add() == 8 and plays.add() == 9


def test_counter_add_refused_as_botocore_refuses_it() -> None:
    """A counter's request that botocore would not send (a key attribute name
    that is not a string) is refused with botocore's message by the embedded
    transport too; and one that botocore sends but DynamoDB refuses (too
    short a name) with DynamoDB's, either way."""
    raised: list[tuple[Any, ...]] = []
    with tallydb.connect(in_memory=True) as db:
        engine = db.transport.engine  # type: ignore[attr-defined]
        boto = tallydb.connect(client=inprocess.client(engine))
        db.create_table("tbl", hash_key=("PK", "S"))
        for name, key in (("tbl", {1: "k"}), ("ab", {"PK": "k"})):
            for database in (db, boto):
                counter = tallydb.Counter(database.table(name), key, "n")
                with pytest.raises(tallydb.DynamoDBError) as caught:
                    counter.add()
                e = caught.value
                raised.append((type(e), e.code(), e.message, str(e)))
    assert raised[0] == raised[1] and raised[2] == raised[3]
    assert "Invalid type for parameter Key" in raised[0][2]
    assert "Member must have length greater than or equal to 3" in raised[2][2]
