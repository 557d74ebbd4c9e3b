"""Scan through boto3 (real server and in-process): filters, Select and
projection, Limit and paging, parallel scan, and DynamoDB's messages.

Messages: architect/dynalite's validations/scan.js and tests (recorded against
DynamoDB), moto's aws_verified tests, paritysuite/dynamodb-conformance.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from tallytest import error_of


@pytest.fixture
def filled(ddb: Any, hash_table: str) -> str:
    ddb.batch_write_item(RequestItems={hash_table: [
        {"PutRequest": {"Item": {"id": {"S": f"k{i}"}, "n": {"N": str(i)}}}} for i in range(10)]})
    return hash_table


def _ids(items: list[dict[str, Any]]) -> list[str]:
    return sorted(item["id"]["S"] for item in items)


def test_scan_everything(ddb: Any, filled: str) -> None:
    response = ddb.scan(TableName=filled)
    assert _ids(response["Items"]) == [f"k{i}" for i in range(10)]
    assert response["Count"] == response["ScannedCount"] == 10
    assert "LastEvaluatedKey" not in response


def test_filters_count_after_reading(ddb: Any, filled: str) -> None:
    response = ddb.scan(TableName=filled, FilterExpression="n >= :five",
                        ExpressionAttributeValues={":five": {"N": "5"}})
    assert _ids(response["Items"]) == ["k5", "k6", "k7", "k8", "k9"]
    assert (response["Count"], response["ScannedCount"]) == (5, 10)
    # A Scan may filter on key attributes (a Query may not).
    keyed = ddb.scan(TableName=filled, FilterExpression="id = :k",
                     ExpressionAttributeValues={":k": {"S": "k3"}})
    assert _ids(keyed["Items"]) == ["k3"]
    legacy = ddb.scan(TableName=filled,
                      ScanFilter={"n": {"ComparisonOperator": "LT",
                                        "AttributeValueList": [{"N": "2"}]}})
    assert _ids(legacy["Items"]) == ["k0", "k1"]


def test_paging_with_limit(ddb: Any, filled: str) -> None:
    seen: list[str] = []
    start: dict[str, Any] | None = None
    pages = 0
    while True:
        kwargs: dict[str, Any] = {"ExclusiveStartKey": start} if start else {}
        page = ddb.scan(TableName=filled, Limit=3, **kwargs)
        pages += 1
        seen += [item["id"]["S"] for item in page["Items"]]
        start = page.get("LastEvaluatedKey")
        if start is None:
            break
    assert sorted(seen) == [f"k{i}" for i in range(10)]
    assert len(seen) == 10
    assert pages == 4


def test_count_keeps_paging(ddb: Any, filled: str) -> None:
    # moto aws_verified: Select=COUNT omits Items and keeps LastEvaluatedKey.
    response = ddb.scan(TableName=filled, Select="COUNT", Limit=1, ConsistentRead=True)
    assert (response["Count"], response["ScannedCount"]) == (1, 1)
    assert "Items" not in response
    assert "LastEvaluatedKey" in response


def test_projection(ddb: Any, filled: str) -> None:
    response = ddb.scan(TableName=filled, ProjectionExpression="n", Limit=1)
    assert list(response["Items"][0]) == ["n"]
    legacy = ddb.scan(TableName=filled, AttributesToGet=["id"], Limit=1)
    assert list(legacy["Items"][0]) == ["id"]


def test_parallel_scan_covers_each_item_once(ddb: Any, filled: str) -> None:
    for total in (1, 2, 3, 4, 7):
        seen: list[str] = []
        for segment in range(total):
            start: dict[str, Any] | None = None
            while True:
                kwargs: dict[str, Any] = {"ExclusiveStartKey": start} if start else {}
                page = ddb.scan(TableName=filled, Segment=segment, TotalSegments=total, Limit=2,
                                **kwargs)
                seen += [item["id"]["S"] for item in page["Items"]]
                start = page.get("LastEvaluatedKey")
                if start is None:
                    break
        assert sorted(seen) == [f"k{i}" for i in range(10)], total


def test_capacity(ddb: Any, filled: str) -> None:
    response = ddb.scan(TableName=filled, ReturnConsumedCapacity="TOTAL")
    assert response["ConsumedCapacity"] == {"TableName": filled, "CapacityUnits": 0.5}
    empty_page = ddb.scan(TableName=filled, ReturnConsumedCapacity="TOTAL", ConsistentRead=True,
                          FilterExpression="n > :big",
                          ExpressionAttributeValues={":big": {"N": "100"}})
    assert empty_page["ConsumedCapacity"]["CapacityUnits"] == 1.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"Segment": 1}, "The TotalSegments parameter is required but was not present in the "
                         "request when Segment parameter is present"),
        ({"TotalSegments": 2}, "The Segment parameter is required but was not present in the "
                               "request when parameter TotalSegments is present"),
        ({"Segment": 2, "TotalSegments": 2},
         "The Segment parameter is zero-based and must be less than parameter TotalSegments: "
         "Segment: 2 is not less than TotalSegments: 2"),
        ({"ExclusiveStartKey": {"other": {"S": "x"}}},
         "The provided starting key is invalid: The provided key element does not match the "
         "schema"),
        ({"ExclusiveStartKey": {"id": {"N": "1"}}},
         "The provided starting key is invalid: The provided key element does not match the "
         "schema"),
        ({"FilterExpression": "id[1] = :v", "ExpressionAttributeValues": {":v": {"S": "x"}}},
         "Key attributes must be scalars; list random access '[]' and map lookup '.' are not "
         "allowed: Key: id"),
        ({"Select": "SPECIFIC_ATTRIBUTES"},
         "Must specify the AttributesToGet or ProjectionExpression when choosing to get "
         "SPECIFIC_ATTRIBUTES"),
        ({"Select": "COUNT", "ProjectionExpression": "a"},
         "Cannot specify the ProjectionExpression when choosing to get only the Count"),
        ({"Select": "ALL_ATTRIBUTES", "AttributesToGet": ["a"]},
         "Cannot specify the AttributesToGet when choosing to get ALL_ATTRIBUTES"),
        ({"Select": "ALL_PROJECTED_ATTRIBUTES"},
         "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName"),
    ],
)
def test_bad_scans(ddb: Any, hash_table: str, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ClientError) as excinfo:
        ddb.scan(TableName=hash_table, **kwargs)
    assert error_of(excinfo) == ("ValidationException", message, 400)


def test_start_key_from_another_segment(ddb: Any, filled: str) -> None:
    first = ddb.scan(TableName=filled, Segment=0, TotalSegments=2, Limit=1)
    key = first["LastEvaluatedKey"]
    with pytest.raises(ClientError) as excinfo:
        ddb.scan(TableName=filled, Segment=1, TotalSegments=2, ExclusiveStartKey=key)
    assert error_of(excinfo) == (
        "ValidationException",
        "The provided starting key is invalid: Invalid ExclusiveStartKey. Please use "
        "ExclusiveStartKey with correct Segment. TotalSegments: 2 Segment: 1",
        400,
    )


def test_missing_table(ddb: Any, make_table: Callable[..., str]) -> None:
    with pytest.raises(ClientError) as excinfo:
        ddb.scan(TableName="no-such-table-s")
    assert error_of(excinfo) == ("ResourceNotFoundException", "Requested resource not found", 400)
