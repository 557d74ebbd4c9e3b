"""Query through boto3 (real server and in-process): key conditions, order,
filters, Select and projection, Limit and paging, capacity, and DynamoDB's
messages for a bad request.

Messages are DynamoDB's: architect/dynalite's test/query.js (recorded against
DynamoDB), paritysuite/dynamodb-conformance (captures of 2026) and moto's
aws_verified tests.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from tallytest import Backend, error_of


@pytest.fixture
def sorted_table(ddb: Any, make_table: Callable[..., str]) -> str:
    """PK (S) / SK (S) with five items in one partition and one in another."""
    name = make_table("q", hash=("PK", "S"), range=("SK", "S"))
    items = [{"PK": {"S": "p"}, "SK": {"S": sk}, "v": {"S": sk}}
             for sk in ["a", "aa", "ab", "b", "c"]]
    items.append({"PK": {"S": "other"}, "SK": {"S": "a"}})
    ddb.batch_write_item(RequestItems={name: [{"PutRequest": {"Item": i}} for i in items]})
    return name


def _sks(response: dict[str, Any]) -> list[str]:
    return [item["SK"]["S"] for item in response["Items"]]


@pytest.mark.parametrize(
    ("condition", "values", "expected"),
    [
        ("PK = :p", {}, ["a", "aa", "ab", "b", "c"]),
        ("PK = :p AND SK = :s", {":s": {"S": "ab"}}, ["ab"]),
        ("PK = :p AND SK < :s", {":s": {"S": "ab"}}, ["a", "aa"]),
        ("PK = :p AND SK <= :s", {":s": {"S": "ab"}}, ["a", "aa", "ab"]),
        ("PK = :p AND SK > :s", {":s": {"S": "ab"}}, ["b", "c"]),
        ("PK = :p AND SK >= :s", {":s": {"S": "ab"}}, ["ab", "b", "c"]),
        ("PK = :p AND :s < SK", {":s": {"S": "ab"}}, ["b", "c"]),
        ("PK = :p AND SK BETWEEN :s AND :t", {":s": {"S": "aa"}, ":t": {"S": "b"}},
         ["aa", "ab", "b"]),
        ("PK = :p AND begins_with(SK, :s)", {":s": {"S": "a"}}, ["a", "aa", "ab"]),
        ("SK > :s AND PK = :p", {":s": {"S": "b"}}, ["c"]),
    ],
)
def test_key_conditions(
    ddb: Any, sorted_table: str, condition: str, values: dict[str, Any], expected: list[str]
) -> None:
    values = {":p": {"S": "p"}, **values}
    forward = ddb.query(TableName=sorted_table, KeyConditionExpression=condition,
                        ExpressionAttributeValues=values)
    assert _sks(forward) == expected
    assert forward["Count"] == forward["ScannedCount"] == len(expected)
    backward = ddb.query(TableName=sorted_table, KeyConditionExpression=condition,
                         ExpressionAttributeValues=values, ScanIndexForward=False)
    assert _sks(backward) == expected[::-1]


@pytest.mark.parametrize(
    ("conditions", "expected"),
    [
        ({"SK": {"ComparisonOperator": "GT", "AttributeValueList": [{"S": "ab"}]}}, ["b", "c"]),
        ({"SK": {"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": [{"S": "a"}]}},
         ["a", "aa", "ab"]),
        ({"SK": {"ComparisonOperator": "BETWEEN",
                 "AttributeValueList": [{"S": "a"}, {"S": "ab"}]}}, ["a", "aa", "ab"]),
        ({}, ["a", "aa", "ab", "b", "c"]),
    ],
)
def test_legacy_key_conditions(
    ddb: Any, sorted_table: str, conditions: dict[str, Any], expected: list[str]
) -> None:
    key_conditions = {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p"}]},
                      **conditions}
    response = ddb.query(TableName=sorted_table, KeyConditions=key_conditions)
    assert _sks(response) == expected


def test_number_sort_keys_sort_by_value(ddb: Any, make_table: Callable[..., str]) -> None:
    name = make_table("qn", hash=("PK", "S"), range=("SK", "N"))
    # dynalite's "should return items in order for numbers", recorded against DynamoDB.
    numbers = ["0", "99.1", "10.9", "10.1", "9.1", "9", "1.9", "1.1", "1", "0.9", "0.1", "0.09",
               "0.01", "-0.01", "-0.09", "-0.1", "-0.9", "-1", "-1.01", "-9", "-9.9", "-10.1",
               "-99.1"]
    for n in numbers:
        ddb.put_item(TableName=name, Item={"PK": {"S": "p"}, "SK": {"N": n}})
    got = [item["SK"]["N"] for item in ddb.query(
        TableName=name, KeyConditionExpression="PK = :p",
        ExpressionAttributeValues={":p": {"S": "p"}})["Items"]]
    assert got == sorted(numbers, key=float)


def test_string_and_binary_sort_keys_sort_by_bytes(
    ddb: Any, make_table: Callable[..., str]
) -> None:
    strings = make_table("qs", hash=("PK", "S"), range=("SK", "S"))
    values = ["1", "2", "10", "a", "b", "aa", "ab", "A", "B", "é", "z", "\u00ff", "\U0001f600"]
    for s in values:
        ddb.put_item(TableName=strings, Item={"PK": {"S": "p"}, "SK": {"S": s}})
    got = [item["SK"]["S"] for item in ddb.query(
        TableName=strings, KeyConditionExpression="PK = :p",
        ExpressionAttributeValues={":p": {"S": "p"}})["Items"]]
    assert got == sorted(values, key=lambda s: s.encode("utf-8"))

    binaries = make_table("qb", hash=("PK", "S"), range=("SK", "B"))
    blobs = [b"\x01", b"\x00", b"\x00\x00", b"\xff", b"\x7f\x80", b"a", b"ab"]
    for b in blobs:
        ddb.put_item(TableName=binaries, Item={"PK": {"S": "p"}, "SK": {"B": b}})
    got_blobs = [item["SK"]["B"] for item in ddb.query(
        TableName=binaries, KeyConditionExpression="PK = :p",
        ExpressionAttributeValues={":p": {"S": "p"}})["Items"]]
    assert got_blobs == sorted(blobs)


def test_filter_limit_and_counts(ddb: Any, sorted_table: str) -> None:
    # Limit counts the items read, before the filter (DynamoDB developer guide).
    response = ddb.query(
        TableName=sorted_table, KeyConditionExpression="PK = :p",
        FilterExpression="v <> :a", ExpressionAttributeValues={":p": {"S": "p"}, ":a": {"S": "a"}},
        Limit=2)
    assert _sks(response) == ["aa"]
    assert (response["Count"], response["ScannedCount"]) == (1, 2)
    assert response["LastEvaluatedKey"] == {"PK": {"S": "p"}, "SK": {"S": "aa"}}

    legacy = ddb.query(
        TableName=sorted_table,
        KeyConditions={"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p"}]}},
        QueryFilter={"v": {"ComparisonOperator": "BEGINS_WITH",
                           "AttributeValueList": [{"S": "a"}]}})
    assert _sks(legacy) == ["a", "aa", "ab"]
    assert (legacy["Count"], legacy["ScannedCount"]) == (3, 5)


def test_last_evaluated_key_when_the_filter_drops_the_last_item(
    ddb: Any, sorted_table: str
) -> None:
    response = ddb.query(
        TableName=sorted_table, KeyConditionExpression="PK = :p", FilterExpression="v = :z",
        ExpressionAttributeValues={":p": {"S": "p"}, ":z": {"S": "zzz"}}, Limit=3)
    assert response["Items"] == []
    assert (response["Count"], response["ScannedCount"]) == (0, 3)
    assert response["LastEvaluatedKey"] == {"PK": {"S": "p"}, "SK": {"S": "ab"}}


def test_limit_equal_to_the_rest_still_pages(ddb: Any, sorted_table: str) -> None:
    # dynalite "should not return LastEvaluatedKey if Limit is at least size of
    # response": a Limit equal to what is left still gives a LastEvaluatedKey.
    first = ddb.query(TableName=sorted_table, KeyConditionExpression="PK = :p",
                      ExpressionAttributeValues={":p": {"S": "p"}}, Limit=5)
    assert first["Count"] == 5
    assert first["LastEvaluatedKey"] == {"PK": {"S": "p"}, "SK": {"S": "c"}}
    rest = ddb.query(TableName=sorted_table, KeyConditionExpression="PK = :p",
                     ExpressionAttributeValues={":p": {"S": "p"}}, Limit=5,
                     ExclusiveStartKey=first["LastEvaluatedKey"])
    assert (rest["Count"], rest["Items"]) == (0, [])
    assert "LastEvaluatedKey" not in rest
    whole = ddb.query(TableName=sorted_table, KeyConditionExpression="PK = :p",
                      ExpressionAttributeValues={":p": {"S": "p"}}, Limit=6)
    assert "LastEvaluatedKey" not in whole


def test_paging_in_both_directions(ddb: Any, sorted_table: str) -> None:
    for forward in (True, False):
        seen: list[str] = []
        start: dict[str, Any] | None = None
        while True:
            kwargs: dict[str, Any] = {"ExclusiveStartKey": start} if start else {}
            page = ddb.query(TableName=sorted_table, KeyConditionExpression="PK = :p",
                             ExpressionAttributeValues={":p": {"S": "p"}}, Limit=2,
                             ScanIndexForward=forward, **kwargs)
            seen += _sks(page)
            start = page.get("LastEvaluatedKey")
            if start is None:
                break
        expected = ["a", "aa", "ab", "b", "c"]
        assert seen == (expected if forward else expected[::-1])


def test_select_and_projection(ddb: Any, sorted_table: str) -> None:
    values = {":p": {"S": "p"}}
    count = ddb.query(TableName=sorted_table, KeyConditionExpression="PK = :p",
                      ExpressionAttributeValues=values, Select="COUNT")
    assert "Items" not in count
    assert (count["Count"], count["ScannedCount"]) == (5, 5)
    projected = ddb.query(TableName=sorted_table, KeyConditionExpression="PK = :p",
                          ExpressionAttributeValues=values, ProjectionExpression="#v",
                          ExpressionAttributeNames={"#v": "v"}, Limit=1)
    assert projected["Items"] == [{"v": {"S": "a"}}]
    # LastEvaluatedKey is the key, whatever was projected.
    assert projected["LastEvaluatedKey"] == {"PK": {"S": "p"}, "SK": {"S": "a"}}
    legacy = ddb.query(
        TableName=sorted_table,
        KeyConditions={"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p"}]}},
        AttributesToGet=["SK"], Select="SPECIFIC_ATTRIBUTES", Limit=1)
    assert legacy["Items"] == [{"SK": {"S": "a"}}]


def test_consumed_capacity(ddb: Any, sorted_table: str) -> None:
    values = {":p": {"S": "p"}}
    eventual = ddb.query(TableName=sorted_table, KeyConditionExpression="PK = :p",
                         ExpressionAttributeValues=values, ReturnConsumedCapacity="TOTAL")
    # Five small items: the sum rounds up to one 4 KB unit, halved.
    assert eventual["ConsumedCapacity"] == {"TableName": sorted_table, "CapacityUnits": 0.5}
    strong = ddb.query(TableName=sorted_table, KeyConditionExpression="PK = :p",
                       ExpressionAttributeValues=values, ConsistentRead=True,
                       ReturnConsumedCapacity="INDEXES")
    assert strong["ConsumedCapacity"] == {
        "TableName": sorted_table, "CapacityUnits": 1.0, "Table": {"CapacityUnits": 1.0}}


def test_capacity_sums_the_items_read(ddb: Any, make_table: Callable[..., str]) -> None:
    name = make_table("qc", hash=("PK", "S"), range=("SK", "N"))
    for i in range(5):  # five items of about 3 KB: 15 KB read in all
        ddb.put_item(TableName=name, Item={"PK": {"S": "p"}, "SK": {"N": str(i)},
                                           "data": {"S": "x" * 3000}})
    response = ddb.query(TableName=name, KeyConditionExpression="PK = :p",
                         ExpressionAttributeValues={":p": {"S": "p"}}, ConsistentRead=True,
                         ReturnConsumedCapacity="TOTAL")
    assert response["ConsumedCapacity"]["CapacityUnits"] == 4.0  # ceil(15 KB / 4 KB)


def test_one_megabyte_pages(ddb: Any, make_table: Callable[..., str]) -> None:
    name = make_table("qm", hash=("PK", "S"), range=("SK", "N"))
    blob = "x" * 100_000
    with ddb_batch(ddb, name) as put:
        for i in range(25):  # 2.5 MB in one partition
            put({"PK": {"S": "p"}, "SK": {"N": str(i)}, "data": {"S": blob}})
    pages = []
    start: dict[str, Any] | None = None
    while True:
        kwargs: dict[str, Any] = {"ExclusiveStartKey": start} if start else {}
        page = ddb.query(TableName=name, KeyConditionExpression="PK = :p",
                         ExpressionAttributeValues={":p": {"S": "p"}}, Select="COUNT", **kwargs)
        pages.append(page["ScannedCount"])
        start = page.get("LastEvaluatedKey")
        if start is None:
            break
    # The item that crosses 1 MB ends the page (11 items of ~100 KB each).
    assert pages == [11, 11, 3]


class ddb_batch:
    """Put items 25 at a time with BatchWriteItem."""

    def __init__(self, ddb: Any, table: str) -> None:
        self.ddb, self.table, self.pending = ddb, table, []  # type: ignore[var-annotated]

    def __enter__(self) -> Callable[[dict[str, Any]], None]:
        return self.put

    def put(self, item: dict[str, Any]) -> None:
        self.pending.append({"PutRequest": {"Item": item}})
        if len(self.pending) == 25:
            self.flush()

    def flush(self) -> None:
        if self.pending:
            self.ddb.batch_write_item(RequestItems={self.table: self.pending})
            self.pending = []

    def __exit__(self, *exc: object) -> None:
        self.flush()


# --- DynamoDB's messages ------------------------------------------------------------

SCHEMA_MISMATCH = (
    "One or more parameter values were invalid: Condition parameter type does not match schema "
    "type"
)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"KeyConditionExpression": "SK = :v", "ExpressionAttributeValues": {":v": {"S": "x"}}},
         "Query condition missed key schema element: PK"),
        ({"KeyConditionExpression": "attr1 = :v", "ExpressionAttributeValues": {":v": {"S": "x"}}},
         "Query condition missed key schema element: PK"),
        ({"KeyConditionExpression": "PK = :v AND attr1 = :v",
          "ExpressionAttributeValues": {":v": {"S": "x"}}},
         "Query condition missed key schema element: SK"),
        ({"KeyConditionExpression": "PK > :v", "ExpressionAttributeValues": {":v": {"S": "x"}}},
         "Query key condition not supported"),
        ({"KeyConditionExpression": "begins_with(PK, :v)",
          "ExpressionAttributeValues": {":v": {"S": "x"}}},
         "Query key condition not supported"),
        ({"KeyConditionExpression": "PK = :v", "ExpressionAttributeValues": {":v": {"N": "1"}}},
         SCHEMA_MISMATCH),
        ({"KeyConditionExpression": "PK = :p AND SK > :a AND extra = :b",
          "ExpressionAttributeValues": {":p": {"S": "q"}, ":a": {"S": "1"}, ":b": {"S": "5"}}},
         "The number of query conditions (3) exceeds the number of key attributes defined in "
         "the schema (2)"),
        ({"KeyConditions": {"PK": {"ComparisonOperator": "NE",
                                   "AttributeValueList": [{"S": "x"}]}}},
         "Attempted conditional constraint is not an indexable operation"),
        ({"KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "x"}]},
                            "SK": {"ComparisonOperator": "NOT_NULL"}}},
         "Attempted conditional constraint is not an indexable operation"),
        ({}, "Either the KeyConditions or KeyConditionExpression parameter must be specified in "
             "the request."),
        ({"KeyConditionExpression": "PK = :v", "FilterExpression": "SK = :v",
          "ExpressionAttributeValues": {":v": {"S": "x"}}},
         "Filter Expression can only contain non-primary key attributes: Primary key "
         "attribute: SK"),
        ({"KeyConditionExpression": "PK = :v", "ProjectionExpression": "SK.part",
          "ExpressionAttributeValues": {":v": {"S": "x"}}},
         "Key attributes must be scalars; list random access '[]' and map lookup '.' are not "
         "allowed: Key: SK"),
        ({"KeyConditionExpression": "PK = :v", "FilterExpression": "attribute_exists(PK.b)",
          "ExpressionAttributeValues": {":v": {"S": "x"}}},
         "Filter Expression can only contain non-primary key attributes: Primary key "
         "attribute: PK"),
        ({"KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "x"}]}},
          "QueryFilter": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "x"}]}}},
         "QueryFilter can only contain non-primary key attributes: Primary key attribute: PK"),
        ({"KeyConditionExpression": "PK = :v", "ExpressionAttributeValues": {":v": {"S": "x"}},
          "Select": "SPECIFIC_ATTRIBUTES"},
         "1 validation error detected: Must specify the AttributesToGet or ProjectionExpression "
         "when choosing to get SPECIFIC_ATTRIBUTES"),
        ({"KeyConditionExpression": "PK = :v", "ExpressionAttributeValues": {":v": {"S": "x"}},
          "Select": "COUNT", "ProjectionExpression": "a"},
         "1 validation error detected: Cannot specify the ProjectionExpression when choosing to "
         "get only the Count"),
        ({"KeyConditionExpression": "PK = :v", "ExpressionAttributeValues": {":v": {"S": "x"}},
          "Select": "ALL_PROJECTED_ATTRIBUTES"},
         "1 validation error detected: ALL_PROJECTED_ATTRIBUTES can be used only when Querying "
         "using an IndexName"),
        ({"KeyConditionExpression": "PK = :v", "ExpressionAttributeValues": {":v": {"S": "x"}},
          "IndexName": "nope"},
         "The table does not have the specified index: nope"),
    ],
)
def test_bad_queries(ddb: Any, videos: str, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ClientError) as excinfo:
        ddb.query(TableName=videos, **kwargs)
    assert error_of(excinfo) == ("ValidationException", message, 400)


def test_two_conditions_on_a_hash_only_table(ddb: Any, hash_table: str) -> None:
    with pytest.raises(ClientError) as excinfo:
        ddb.query(TableName=hash_table, KeyConditionExpression="id = :v AND b = :v",
                  ExpressionAttributeValues={":v": {"S": "x"}})
    assert error_of(excinfo) == ("ValidationException", "Query key condition not supported", 400)


START = {"PK": {"S": "p"}, "SK": {"S": "a"}}
SIZE = "Exclusive Start Key must have same size as table's key schema"


@pytest.mark.parametrize(
    ("condition", "values", "start", "message"),
    [
        # a start key of another size: DynamoDB's newer wording (Dynamoid's
        # documentation; DynamoDB Local 1.25), dynalite's older one was
        # "The provided starting key is invalid"
        ("PK = :p", {}, {"bad": {"S": "p"}}, SIZE),
        ("PK = :p", {}, {"PK": {"S": "p"}}, SIZE),
        ("PK = :p", {}, {"PK": {"S": "p"}, "x": {"S": "p"}},
         "The provided starting key is invalid"),
        ("PK = :p", {}, {"PK": {"S": "p"}, "SK": {"N": "1"}},
         "The provided key element does not match the schema"),
        ("PK = :q", {":q": {"S": "q"}}, START,
         "The provided starting key is outside query boundaries based on provided conditions"),
        ("PK = :p AND SK > :s", {":s": {"S": "b"}}, START,
         "The provided starting key does not match the range key predicate"),
        ("PK = :q AND SK < :s", {":q": {"S": "q"}, ":s": {"S": "b"}}, START,
         "The query can return at most one row and cannot be restarted"),
    ],
)
def test_bad_start_keys(
    ddb: Any, videos: str, condition: str, values: dict[str, Any], start: dict[str, Any],
    message: str,
) -> None:
    with pytest.raises(ClientError) as excinfo:
        ddb.query(TableName=videos, KeyConditionExpression=condition,
                  ExpressionAttributeValues={":p": {"S": "p"}, **values}
                  if ":p" in condition else values,
                  ExclusiveStartKey=start)
    assert error_of(excinfo) == ("ValidationException", message, 400)


def test_missing_table(ddb: Any) -> None:
    with pytest.raises(ClientError) as excinfo:
        ddb.query(TableName="no-such-table-q", KeyConditionExpression="PK = :v",
                  ExpressionAttributeValues={":v": {"S": "x"}})
    assert error_of(excinfo) == ("ResourceNotFoundException", "Requested resource not found", 400)


def test_raw_limit_zero(backend: Backend, videos: str) -> None:
    response = backend.raw("Query", {"TableName": videos, "KeyConditionExpression": "PK = :v",
                                     "ExpressionAttributeValues": {":v": {"S": "x"}}, "Limit": 0})
    assert (response.status, response.error_code) == (400, "ValidationException")
