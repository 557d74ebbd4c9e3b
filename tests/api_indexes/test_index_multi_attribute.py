"""Query on a GSI with a multi-attribute key, as DynamoDB documents it:
every partition-key attribute with =, sort-key attributes left to right
without a gap, = on all but the last one given, which takes any key
operator; entries in the order of the sort attributes, paged by
LastEvaluatedKey."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError
from tallytest import assert_error, unique_name

VALIDATION = "ValidationException"


@pytest.fixture
def games(ddb: Any) -> Any:
    """Scores keyed by (tournament, area) -> (round, score, player)."""
    name = unique_name("multi")
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[
            {"AttributeName": "id", "AttributeType": "S"},
            {"AttributeName": "tournament", "AttributeType": "S"},
            {"AttributeName": "area", "AttributeType": "S"},
            {"AttributeName": "round", "AttributeType": "N"},
            {"AttributeName": "score", "AttributeType": "N"},
        ],
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        GlobalSecondaryIndexes=[{
            "IndexName": "by_round",
            "KeySchema": [
                {"AttributeName": "tournament", "KeyType": "HASH"},
                {"AttributeName": "area", "KeyType": "HASH"},
                {"AttributeName": "round", "KeyType": "RANGE"},
                {"AttributeName": "score", "KeyType": "RANGE"},
            ],
            "Projection": {"ProjectionType": "ALL"}}])
    rows = [("a", "T1", "EU", 1, 50), ("b", "T1", "EU", 1, 70), ("c", "T1", "EU", 2, 10),
            ("d", "T1", "EU", 3, 90), ("e", "T1", "US", 1, 60), ("f", "T2", "EU", 1, 80)]
    for ident, tournament, area, rnd, score in rows:
        ddb.put_item(TableName=name, Item={
            "id": {"S": ident}, "tournament": {"S": tournament}, "area": {"S": area},
            "round": {"N": str(rnd)}, "score": {"N": str(score)}})
    ddb.put_item(TableName=name, Item={"id": {"S": "sparse"}, "tournament": {"S": "T1"},
                                       "area": {"S": "EU"}, "round": {"N": "1"}})
    yield name
    ddb.delete_table(TableName=name)


def ids(ddb: Any, table: str, condition: str, values: dict[str, Any]) -> list[str]:
    answer = ddb.query(TableName=table, IndexName="by_round", KeyConditionExpression=condition,
                       ExpressionAttributeValues=values)
    return [item["id"]["S"] for item in answer["Items"]]


PARTITION = "tournament = :t AND area = :g"
T1_EU = {":t": {"S": "T1"}, ":g": {"S": "EU"}}


@pytest.mark.parametrize(("sort", "values", "expected"), [
    ("", {}, ["a", "b", "c", "d"]),
    (" AND round = :r", {":r": {"N": "1"}}, ["a", "b"]),
    (" AND round > :r", {":r": {"N": "1"}}, ["c", "d"]),
    (" AND round <= :r", {":r": {"N": "2"}}, ["a", "b", "c"]),
    (" AND round BETWEEN :r AND :s", {":r": {"N": "2"}, ":s": {"N": "3"}}, ["c", "d"]),
    (" AND round = :r AND score >= :s", {":r": {"N": "1"}, ":s": {"N": "60"}}, ["b"]),
    (" AND round = :r AND score < :s", {":r": {"N": "1"}, ":s": {"N": "60"}}, ["a"]),
])
def test_query_by_a_multi_attribute_key(
        ddb: Any, games: str, sort: str, values: dict[str, Any], expected: list[str]) -> None:
    got = ids(ddb, games, PARTITION + sort, {**T1_EU, **values})
    assert got == expected
    assert "sparse" not in got  # an item without every key attribute is not indexed


def test_query_backwards_and_paged(ddb: Any, games: str) -> None:
    pages: list[str] = []
    start = None
    while True:
        extra: dict[str, Any] = {"Limit": 3, "ScanIndexForward": False}
        if start is not None:
            extra["ExclusiveStartKey"] = start
        answer = ddb.query(TableName=games, IndexName="by_round",
                           KeyConditionExpression=PARTITION, ExpressionAttributeValues=T1_EU,
                           **extra)
        pages += [item["id"]["S"] for item in answer["Items"]]
        start = answer.get("LastEvaluatedKey")
        if start is None:
            break
        assert set(start) == {"id", "tournament", "area", "round", "score"}
    assert pages == ["d", "c", "b", "a"]


# The RANGE refusals: paritysuite/dynamodb-conformance, verified against
# DynamoDB (October 2026). The HASH one: the start of its sentence is a
# user's quote of DynamoDB ("HASH key attributes createdAt must have
# equality conditions"), the rest is not on record.
@pytest.mark.parametrize(("condition", "values", "message"), [
    ("tournament = :t", {":t": {"S": "T1"}},
     "Query condition missed key schema element: area"),
    (PARTITION + " AND score = :s", {**T1_EU, ":s": {"N": "1"}},
     "RANGE key attributes round must have equality conditions specified in the query "
     "because a condition is present on key attribute score"),
    (PARTITION + " AND round > :r AND score = :s",
     {**T1_EU, ":r": {"N": "1"}, ":s": {"N": "1"}},
     "RANGE key attributes round must have equality conditions specified in the query "
     "because a condition is present on key attribute score"),
    ("tournament = :t AND area > :g", T1_EU,
     "HASH key attributes area must have equality conditions specified in the query"),
])
def test_query_that_breaks_the_key_rules_is_invalid(
        ddb: Any, games: str, condition: str, values: dict[str, Any], message: str) -> None:
    # DynamoDB's wording for these is not on record: the single-attribute
    # key condition's messages.
    with pytest.raises(ClientError) as excinfo:
        ddb.query(TableName=games, IndexName="by_round", KeyConditionExpression=condition,
                  ExpressionAttributeValues=values)
    assert_error(excinfo, VALIDATION, message)


def _start(tournament: str, area: str, rnd: int, score: int) -> dict[str, Any]:
    return {"id": {"S": "x"}, "tournament": {"S": tournament}, "area": {"S": area},
            "round": {"N": str(rnd)}, "score": {"N": str(score)}}


@pytest.mark.parametrize(("sort", "values", "start", "message"), [
    ("", {}, _start("T1", "US", 1, 50),
     "The provided starting key is outside query boundaries based on provided conditions"),
    (" AND round = :r", {":r": {"N": "1"}}, _start("T1", "EU", 2, 10),
     "The provided starting key does not match the range key predicate"),
    (" AND round = :r AND score > :s", {":r": {"N": "1"}, ":s": {"N": "60"}},
     _start("T1", "EU", 1, 50),
     "The provided starting key does not match the range key predicate"),
    (" AND round = :r", {":r": {"N": "1"}}, _start("T2", "EU", 1, 50),
     "The query can return at most one row and cannot be restarted"),
])
def test_a_start_key_outside_the_query_is_invalid(
        ddb: Any, games: str, sort: str, values: dict[str, Any], start: dict[str, Any],
        message: str) -> None:
    # As DynamoDB checks a single-attribute key's start key (dynalite's
    # actions/query.js, recorded against DynamoDB): the partition first when
    # there is no sort condition, else the sort conditions, then the partition.
    with pytest.raises(ClientError) as excinfo:
        ddb.query(TableName=games, IndexName="by_round", KeyConditionExpression=PARTITION + sort,
                  ExpressionAttributeValues={**T1_EU, **values}, ExclusiveStartKey=start)
    assert_error(excinfo, VALIDATION, message)


def test_a_start_key_inside_the_query_resumes_after_it(ddb: Any, games: str) -> None:
    answer = ddb.query(TableName=games, IndexName="by_round",
                       KeyConditionExpression=PARTITION + " AND round = :r",
                       ExpressionAttributeValues={**T1_EU, ":r": {"N": "1"}},
                       ExclusiveStartKey={**_start("T1", "EU", 1, 50), "id": {"S": "a"}})
    assert [item["id"]["S"] for item in answer["Items"]] == ["b"]
