"""Query as DynamoDB answers it where tallydb used to differ."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from tallytest import assert_error


def test_a_hash_only_query_pages_with_the_key_it_hands_out(
        ddb: Any, make_table: Callable[..., str]) -> None:
    # DynamoDB answers a LastEvaluatedKey whenever Limit stops a Query (API
    # reference, Query: "LastEvaluatedKey ... if you used Limit"); a key
    # handed out is accepted back, so boto3's paginator with a page size
    # of 1 walks a table without a sort key (the next page is empty).
    name = make_table("hashonly", hash=("pk", "S"))
    ddb.put_item(TableName=name, Item={"pk": {"S": "a"}})
    query = {"TableName": name, "KeyConditionExpression": "pk = :a",
             "ExpressionAttributeValues": {":a": {"S": "a"}}}
    first = ddb.query(Limit=1, **query)
    assert first["Items"] == [{"pk": {"S": "a"}}]
    assert first["LastEvaluatedKey"] == {"pk": {"S": "a"}}
    second = ddb.query(ExclusiveStartKey=first["LastEvaluatedKey"], **query)
    assert (second["Items"], second.get("LastEvaluatedKey")) == ([], None)
    pages = ddb.get_paginator("query").paginate(PaginationConfig={"PageSize": 1}, **query)
    assert [item for page in pages for item in page["Items"]] == [{"pk": {"S": "a"}}]


def test_a_hash_only_query_refuses_a_start_key_of_another_size(
        ddb: Any, make_table: Callable[..., str]) -> None:
    # DynamoDB's wording, naming the start key (Dynamoid's documentation
    # quotes it from DynamoDB; DynamoDB Local 1.25 answers the same).
    name = make_table("hashonly", hash=("pk", "S"))
    with pytest.raises(ClientError) as excinfo:
        ddb.query(TableName=name, KeyConditionExpression="pk = :a",
                  ExpressionAttributeValues={":a": {"S": "a"}},
                  ExclusiveStartKey={"pk": {"S": "a"}, "sk": {"S": "a"}})
    assert_error(excinfo, "ValidationException",
                 "Exclusive Start Key must have same size as table's key schema")
    # another partition's key: outside the query (architect/dynalite's
    # actions/query.js, recorded against DynamoDB)
    with pytest.raises(ClientError) as excinfo:
        ddb.query(TableName=name, KeyConditionExpression="pk = :a",
                  ExpressionAttributeValues={":a": {"S": "a"}},
                  ExclusiveStartKey={"pk": {"S": "b"}})
    assert_error(excinfo, "ValidationException",
                 "The provided starting key is outside query boundaries based on provided "
                 "conditions")


def test_exclusive_start_key_on_a_table_with_a_sort_key_still_pages(
        ddb: Any, make_table: Callable[..., str]) -> None:
    name = make_table("ranged", hash=("pk", "S"), range=("sk", "S"))
    for sk in "abc":
        ddb.put_item(TableName=name, Item={"pk": {"S": "p"}, "sk": {"S": sk}})
    answer = ddb.query(TableName=name, KeyConditionExpression="pk = :p",
                       ExpressionAttributeValues={":p": {"S": "p"}},
                       ExclusiveStartKey={"pk": {"S": "p"}, "sk": {"S": "a"}})
    assert [item["sk"]["S"] for item in answer["Items"]] == ["b", "c"]
