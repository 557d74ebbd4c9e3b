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


def _sized(size: int) -> dict[str, Any]:
    """KEY's item of exactly ``size`` bytes by DynamoDB's count: names and
    values (PK 2 + 8, SK 2 + 11, blob 4 + the rest)."""
    return {**KEY, "blob": {"S": "y" * (size - 27)}}


def test_units_at_the_block_edges(ddb: Any, videos: str) -> None:
    # An item whose JSON is longer than a block but whose size is not costs
    # one block; one byte more, two. Each write charges the larger image.
    def units(**call: Any) -> float:
        name = next(iter(call))
        answer = getattr(ddb, name)(TableName=videos, ReturnConsumedCapacity="TOTAL",
                                    **call[name])
        return float(answer["ConsumedCapacity"]["CapacityUnits"])

    assert units(put_item={"Item": _sized(1024)}) == 1.0
    assert units(put_item={"Item": _sized(1025)}) == 2.0  # the new image
    assert units(put_item={"Item": _sized(10)}) == 2.0  # the old one
    assert units(put_item={"Item": _sized(3000)}) == 3.0
    names = {"ExpressionAttributeNames": {"#b": "blob"}}
    assert units(update_item={"Key": KEY, "UpdateExpression": "REMOVE #b", **names}) == 3.0
    assert units(update_item={"Key": KEY, "UpdateExpression": "SET #b = :b", **names,
                              "ExpressionAttributeValues": {":b": {"S": "y" * 997}}}) == 1.0
    assert units(delete_item={"Key": KEY}) == 1.0  # its 1,024 bytes
    assert units(delete_item={"Key": KEY}) == 1.0  # nothing there
    ddb.put_item(TableName=videos, Item=_sized(4096))
    assert units(get_item={"Key": KEY, "ConsistentRead": True}) == 1.0
    ddb.put_item(TableName=videos, Item=_sized(4097))
    assert units(get_item={"Key": KEY, "ConsistentRead": True}) == 2.0
    assert units(get_item={"Key": KEY}) == 1.0
    ddb.delete_item(TableName=videos, Key=KEY)
    assert units(get_item={"Key": KEY}) == 0.5


def test_the_units_report_gives_each_item_write_its_own_table_and_units() -> None:
    """While an engine keeps a units report, each PutItem, UpdateItem and
    DeleteItem leaves what ConsumedCapacity TOTAL would say, asked or not
    (``(table, units)``, or the table's name alone for one unit): a write of
    other units, or on another table, never reads as the write before it."""
    from tallydb.engine.api import Engine
    from tallydb.engine.storage import Store

    engine = Engine(Store(None))
    try:
        for name in ("aaa", "bbb"):
            engine.call("CreateTable", {
                "TableName": name, "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]})
        report = engine.report_units(True)
        assert report is not None

        def add(table: str) -> dict[str, Any]:
            return {"TableName": table, "Key": {"pk": {"S": "hot"}},
                    "UpdateExpression": "ADD n :one", "ExpressionAttributeValues": {
                        ":one": {"N": "1"}}}

        big = {"pk": {"S": "big"}, "v": {"S": "x" * 1500}}  # 2 KB: two units
        calls = [
            ("UpdateItem", add("aaa"), ("aaa", 1.0)),
            ("UpdateItem", add("aaa"), ("aaa", 1.0)),
            ("UpdateItem", add("bbb"), ("bbb", 1.0)),
            ("PutItem", {"TableName": "bbb", "Item": big}, ("bbb", 2.0)),
            ("UpdateItem", {**add("bbb"), "Key": {"pk": {"S": "big"}}}, ("bbb", 2.0)),
            ("UpdateItem", add("aaa"), ("aaa", 1.0)),
            ("DeleteItem", {"TableName": "bbb", "Key": {"pk": {"S": "big"}},
                            "ReturnConsumedCapacity": "TOTAL"}, ("bbb", 2.0)),
            ("UpdateItem", add("bbb"), ("bbb", 1.0)),
        ]
        seen = []
        with engine.batch() as call:
            for operation, request, expected in calls:
                report.last = None
                answer = call(operation, request)
                last = report.last
                assert ((last, 1.0) if isinstance(last, str) else last) == expected, (
                    operation, request)
                if "ReturnConsumedCapacity" in request:
                    assert answer["ConsumedCapacity"] == {
                        "TableName": expected[0], "CapacityUnits": expected[1]}
                else:
                    assert "ConsumedCapacity" not in answer
                seen.append(last)
        assert engine.report_units(False) is None
        engine.call("UpdateItem", add("aaa"))
        assert report.last == seen[-1]  # no longer reported
    finally:
        engine.close()
