"""ReturnConsumedCapacity for the counter's writes, by DynamoDB's unit rules.

DynamoDB: a write costs one unit per started KB of the larger of the item's
size before and after the write (never a flat 1); a transactional write costs
twice that. Read units are per 4 KB, half for eventually consistent reads.
"""

from __future__ import annotations

from typing import Any

KEY = {"PK": {"S": "VID#9f3a"}, "SK": {"S": "STATS#TOTAL"}}
PAYLOAD = "x" * 5000  # with its names and keys, the item is just under 5 KB


def _seed(ddb: Any, table: str) -> None:
    ddb.put_item(TableName=table, Item={**KEY, "blob": {"S": PAYLOAD}, "n": {"N": "0"}})


def test_updating_a_5_kb_item_costs_5_write_units(ddb: Any, videos: str) -> None:
    _seed(ddb, videos)
    response = ddb.update_item(
        TableName=videos, Key=KEY, UpdateExpression="ADD n :one",
        ExpressionAttributeValues={":one": {"N": "1"}}, ReturnConsumedCapacity="TOTAL")
    assert response["ConsumedCapacity"] == {"TableName": videos, "CapacityUnits": 5.0}


def test_a_small_counter_costs_one_unit(ddb: Any, videos: str) -> None:
    response = ddb.update_item(
        TableName=videos, Key=KEY, UpdateExpression="ADD n :one",
        ExpressionAttributeValues={":one": {"N": "1"}}, ReturnConsumedCapacity="TOTAL")
    assert response["ConsumedCapacity"]["CapacityUnits"] == 1.0


def test_a_transaction_costs_double(ddb: Any, videos: str) -> None:
    _seed(ddb, videos)
    response = ddb.transact_write_items(
        TransactItems=[{"Update": {
            "TableName": videos, "Key": KEY, "UpdateExpression": "ADD n :one",
            "ExpressionAttributeValues": {":one": {"N": "1"}}}}],
        ReturnConsumedCapacity="TOTAL")
    (capacity,) = response["ConsumedCapacity"]
    assert capacity["TableName"] == videos
    assert capacity["CapacityUnits"] == 10.0


def test_reading_it_back(ddb: Any, videos: str) -> None:
    _seed(ddb, videos)
    eventual = ddb.get_item(TableName=videos, Key=KEY, ReturnConsumedCapacity="TOTAL")
    strong = ddb.get_item(TableName=videos, Key=KEY, ConsistentRead=True,
                          ReturnConsumedCapacity="TOTAL")
    assert eventual["ConsumedCapacity"]["CapacityUnits"] == 1.0  # 2 x 4 KB blocks, halved
    assert strong["ConsumedCapacity"]["CapacityUnits"] == 2.0
