"""BatchGetItem through boto3 (real server and in-process).

Messages: paritysuite/dynamodb-conformance's captures (2026) and
architect/dynalite's validations/batchGetItem.js (recorded against DynamoDB).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from tallytest import error_of


@pytest.fixture
def two_tables(ddb: Any, make_table: Callable[..., str]) -> tuple[str, str]:
    one = make_table("bg", hash=("id", "S"))
    two = make_table("bg", hash=("PK", "S"), range=("SK", "N"))
    ddb.batch_write_item(RequestItems={
        one: [{"PutRequest": {"Item": {"id": {"S": f"k{i}"}, "n": {"N": str(i)},
                                       "x": {"S": "y"}}}} for i in range(5)],
        two: [{"PutRequest": {"Item": {"PK": {"S": "p"}, "SK": {"N": str(i)}}}}
              for i in range(3)],
    })
    return one, two


def test_gets_from_two_tables(ddb: Any, two_tables: tuple[str, str]) -> None:
    one, two = two_tables
    response = ddb.batch_get_item(
        RequestItems={
            one: {"Keys": [{"id": {"S": "k3"}}, {"id": {"S": "missing"}}, {"id": {"S": "k1"}}],
                  "ProjectionExpression": "#n", "ExpressionAttributeNames": {"#n": "n"},
                  "ConsistentRead": True},
            two: {"Keys": [{"PK": {"S": "p"}, "SK": {"N": "2.0"}}]},
        },
        ReturnConsumedCapacity="TOTAL",
    )
    assert response["UnprocessedKeys"] == {}
    assert response["Responses"][one] == [{"n": {"N": "3"}}, {"n": {"N": "1"}}]
    assert response["Responses"][two] == [{"PK": {"S": "p"}, "SK": {"N": "2"}}]
    # Each key is its own read: 3 strongly consistent units, 1 eventually consistent half.
    assert sorted(response["ConsumedCapacity"], key=lambda c: c["CapacityUnits"]) == [
        {"TableName": two, "CapacityUnits": 0.5}, {"TableName": one, "CapacityUnits": 3.0}]


def test_hundred_keys(ddb: Any, two_tables: tuple[str, str]) -> None:
    one, _ = two_tables
    keys = [{"id": {"S": f"k{i}"}} for i in range(100)]
    response = ddb.batch_get_item(RequestItems={one: {"Keys": keys}})
    assert len(response["Responses"][one]) == 5
    with pytest.raises(ClientError) as excinfo:
        ddb.batch_get_item(RequestItems={one: {"Keys": [*keys, {"id": {"S": "k100"}}]}})
    code, message, _ = error_of(excinfo)
    assert code == "ValidationException"
    assert message.endswith("Member must have length less than or equal to 100")


def test_hundred_keys_across_tables(ddb: Any, two_tables: tuple[str, str]) -> None:
    one, two = two_tables
    with pytest.raises(ClientError) as excinfo:
        ddb.batch_get_item(RequestItems={
            one: {"Keys": [{"id": {"S": f"k{i}"}} for i in range(60)]},
            two: {"Keys": [{"PK": {"S": "p"}, "SK": {"N": str(i)}} for i in range(41)]},
        })
    assert error_of(excinfo) == (
        "ValidationException", "Too many items requested for the BatchGetItem call", 400)


@pytest.mark.parametrize(
    ("keys", "message"),
    [
        ([{"id": {"S": "a"}}, {"id": {"S": "a"}}],
         "Provided list of item keys contains duplicates"),
        ([{"id": {"N": "1"}}], "The provided key element does not match the schema"),
        ([{"id": {"S": ""}}], "One or more parameter values are not valid. The AttributeValue "
                              "for a key attribute cannot contain an empty string value. Key: id"),
    ],
)
def test_bad_keys(ddb: Any, two_tables: tuple[str, str], keys: list[Any], message: str) -> None:
    one, _ = two_tables
    with pytest.raises(ClientError) as excinfo:
        ddb.batch_get_item(RequestItems={one: {"Keys": keys}})
    assert error_of(excinfo) == ("ValidationException", message, 400)


def test_projection_problems(ddb: Any, two_tables: tuple[str, str]) -> None:
    one, two = two_tables
    with pytest.raises(ClientError) as excinfo:
        ddb.batch_get_item(RequestItems={one: {"Keys": [{"id": {"S": "a"}}],
                                               "ProjectionExpression": "a, a"}})
    assert error_of(excinfo)[1] == (
        "Invalid ProjectionExpression: Two document paths overlap with each other; must remove "
        "or rewrite one of these paths; path one: [a], path two: [a]")
    with pytest.raises(ClientError) as excinfo:
        ddb.batch_get_item(RequestItems={
            one: {"Keys": [{"id": {"S": "a"}}], "ProjectionExpression": "id"},
            two: {"Keys": [{"PK": {"S": "p"}, "SK": {"N": "1"}}], "AttributesToGet": ["PK"]},
        })
    assert error_of(excinfo)[0] == "ValidationException"


def test_missing_table(ddb: Any) -> None:
    with pytest.raises(ClientError) as excinfo:
        ddb.batch_get_item(RequestItems={"no-such-table-bg": {"Keys": [{"id": {"S": "a"}}]}})
    assert error_of(excinfo) == ("ResourceNotFoundException", "Requested resource not found", 400)


def test_sixteen_megabytes_then_unprocessed_keys(
    ddb: Any, make_table: Callable[..., str]
) -> None:
    table = make_table("bgbig", hash=("id", "S"))
    blob = "x" * 390_000
    for start in range(0, 50, 25):
        ddb.batch_write_item(RequestItems={table: [
            {"PutRequest": {"Item": {"id": {"S": f"k{i:02}"}, "blob": {"S": blob}}}}
            for i in range(start, start + 25)]})
    keys = [{"id": {"S": f"k{i:02}"}} for i in range(50)]
    response = ddb.batch_get_item(RequestItems={table: {"Keys": keys, "ConsistentRead": True}})
    got = [item["id"]["S"] for item in response["Responses"][table]]
    left = response["UnprocessedKeys"][table]
    assert 0 < len(got) < 50
    assert left["ConsistentRead"] is True
    assert sorted(got + [k["id"]["S"] for k in left["Keys"]]) == [f"k{i:02}" for i in range(50)]
    again = ddb.batch_get_item(RequestItems={table: left})
    assert again["UnprocessedKeys"] == {}
    assert len(again["Responses"][table]) == len(left["Keys"])
