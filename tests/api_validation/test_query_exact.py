"""Query as DynamoDB answers it where tallydb used to differ."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from tallytest import assert_error


def test_exclusive_start_key_on_a_hash_only_table_is_invalid(
        ddb: Any, make_table: Callable[..., str]) -> None:
    # DynamoDB: a table without a sort key has one item per partition, so
    # its query cannot be restarted.
    name = make_table("hashonly", hash=("pk", "S"))
    ddb.put_item(TableName=name, Item={"pk": {"S": "a"}})
    with pytest.raises(ClientError) as excinfo:
        ddb.query(TableName=name, KeyConditionExpression="pk = :a",
                  ExpressionAttributeValues={":a": {"S": "a"}},
                  ExclusiveStartKey={"pk": {"S": "a"}})
    assert_error(excinfo, "ValidationException",
                 "The query can return at most one row and cannot be restarted")


def test_exclusive_start_key_on_a_table_with_a_sort_key_still_pages(
        ddb: Any, make_table: Callable[..., str]) -> None:
    name = make_table("ranged", hash=("pk", "S"), range=("sk", "S"))
    for sk in "abc":
        ddb.put_item(TableName=name, Item={"pk": {"S": "p"}, "sk": {"S": sk}})
    answer = ddb.query(TableName=name, KeyConditionExpression="pk = :p",
                       ExpressionAttributeValues={":p": {"S": "p"}},
                       ExclusiveStartKey={"pk": {"S": "p"}, "sk": {"S": "a"}})
    assert [item["sk"]["S"] for item in answer["Items"]] == ["b", "c"]
