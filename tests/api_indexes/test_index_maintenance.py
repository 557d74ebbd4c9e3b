"""Indexes follow every write: PutItem, UpdateItem, DeleteItem,
BatchWriteItem and TransactWriteItems; items without the index key are not in
the index (sparse); projections keep what they declare; paging an index visits
every entry exactly once, in both directions.

DynamoDB's behaviour as ScyllaDB's alternator tests record it against
DynamoDB (test_gsi.py: sparse items, KEYS_ONLY/INCLUDE keep the table's and the
index's keys, an update to the same value keeps the entry) and the DynamoDB
Developer Guide (an index's range key orders as a table's).
"""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError
from index_tables import gsi, lsi, make_indexed, query_all, scan_all  # noqa: F401

KEYS = {"PK": "S", "SK": "S", "status": "S", "score": "N", "rank": "N"}


def _table(make_indexed: Any) -> str:  # noqa: F811
    return make_indexed(
        "maint", [("PK", "HASH"), ("SK", "RANGE")], KEYS,
        gsis=[gsi("by_status", "status", "score"),
              gsi("keys_only", "status", projection="KEYS_ONLY"),
              gsi("include", "score", projection="INCLUDE", include=["title"])],
        lsis=[lsi("by_rank", "PK", "rank", projection="KEYS_ONLY")],
    )


def _by_status(ddb: Any, table: str, status: str) -> list[tuple[str, str]]:
    items = query_all(ddb, TableName=table, IndexName="by_status",
                      KeyConditionExpression="#s = :s",
                      ExpressionAttributeNames={"#s": "status"},
                      ExpressionAttributeValues={":s": {"S": status}})
    return [(i["SK"]["S"], i["score"]["N"]) for i in items]


def _item(sk: str, status: str | None = None, score: int | None = None,
          **extra: Any) -> dict[str, Any]:
    item: dict[str, Any] = {"PK": {"S": "p"}, "SK": {"S": sk}}
    if status is not None:
        item["status"] = {"S": status}
    if score is not None:
        item["score"] = {"N": str(score)}
    item.update({k: {"S": v} for k, v in extra.items()})
    return item


def test_every_write_path_keeps_the_index(ddb: Any, make_indexed: Any) -> None:  # noqa: F811
    table = _table(make_indexed)
    # PutItem, and a second put that moves the item to another entry.
    ddb.put_item(TableName=table, Item=_item("a", "open", 5))
    ddb.put_item(TableName=table, Item=_item("b", "open", 3))
    ddb.put_item(TableName=table, Item=_item("b", "open", 9))
    assert _by_status(ddb, table, "open") == [("a", "5"), ("b", "9")]
    # UpdateItem: change the range key, then the hash key, then remove it.
    ddb.update_item(TableName=table, Key={"PK": {"S": "p"}, "SK": {"S": "a"}},
                    UpdateExpression="ADD score :n", ExpressionAttributeValues={":n": {"N": "10"}})
    assert _by_status(ddb, table, "open") == [("b", "9"), ("a", "15")]
    ddb.update_item(TableName=table, Key={"PK": {"S": "p"}, "SK": {"S": "a"}},
                    UpdateExpression="SET #s = :c", ExpressionAttributeNames={"#s": "status"},
                    ExpressionAttributeValues={":c": {"S": "closed"}})
    assert _by_status(ddb, table, "open") == [("b", "9")]
    assert _by_status(ddb, table, "closed") == [("a", "15")]
    ddb.update_item(TableName=table, Key={"PK": {"S": "p"}, "SK": {"S": "a"}},
                    UpdateExpression="REMOVE score")
    assert _by_status(ddb, table, "closed") == []
    # DeleteItem.
    ddb.delete_item(TableName=table, Key={"PK": {"S": "p"}, "SK": {"S": "b"}})
    assert _by_status(ddb, table, "open") == []
    # BatchWriteItem: puts and a delete.
    ddb.batch_write_item(RequestItems={table: [
        {"PutRequest": {"Item": _item("c", "open", 1)}},
        {"PutRequest": {"Item": _item("d", "open", 2)}},
        {"DeleteRequest": {"Key": {"PK": {"S": "p"}, "SK": {"S": "a"}}}},
    ]})
    assert _by_status(ddb, table, "open") == [("c", "1"), ("d", "2")]
    # TransactWriteItems: Put, Update, Delete together.
    ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": table, "Item": _item("e", "open", 7)}},
        {"Update": {"TableName": table, "Key": {"PK": {"S": "p"}, "SK": {"S": "c"}},
                    "UpdateExpression": "SET score = :n",
                    "ExpressionAttributeValues": {":n": {"N": "8"}}}},
        {"Delete": {"TableName": table, "Key": {"PK": {"S": "p"}, "SK": {"S": "d"}}}},
    ])
    assert _by_status(ddb, table, "open") == [("e", "7"), ("c", "8")]
    # A cancelled transaction changes no index either.
    with pytest.raises(ddb.exceptions.TransactionCanceledException):
        ddb.transact_write_items(TransactItems=[
            {"Put": {"TableName": table, "Item": _item("f", "open", 0)}},
            {"ConditionCheck": {"TableName": table, "Key": {"PK": {"S": "p"}, "SK": {"S": "x"}},
                                "ConditionExpression": "attribute_exists(PK)"}},
        ])
    assert _by_status(ddb, table, "open") == [("e", "7"), ("c", "8")]


def test_sparse_and_projections(ddb: Any, make_indexed: Any) -> None:  # noqa: F811
    table = _table(make_indexed)
    ddb.put_item(TableName=table, Item=_item("full", "open", 4, title="T", body="B"))
    ddb.put_item(TableName=table, Item=_item("no-score", "open", title="T"))
    ddb.put_item(TableName=table, Item=_item("nothing", body="B"))
    # by_status needs status AND score: only "full" is in it.
    assert _by_status(ddb, table, "open") == [("full", "4")]
    # ALL: the whole item.
    (entry,) = scan_all(ddb, TableName=table, IndexName="by_status")
    assert entry == _item("full", "open", 4, title="T", body="B")
    # KEYS_ONLY: the table's key and the index's, nothing else.
    entries = scan_all(ddb, TableName=table, IndexName="keys_only")
    assert sorted(e["SK"]["S"] for e in entries) == ["full", "no-score"]
    assert all(set(e) == {"PK", "SK", "status"} for e in entries)
    # INCLUDE: keys plus the NonKeyAttributes (when the item has them).
    (entry,) = scan_all(ddb, TableName=table, IndexName="include")
    assert entry == {"PK": {"S": "p"}, "SK": {"S": "full"}, "score": {"N": "4"},
                     "title": {"S": "T"}}
    # Select=ALL_PROJECTED_ATTRIBUTES is what a Query of an index returns anyway.
    projected = ddb.query(TableName=table, IndexName="include", Select="ALL_PROJECTED_ATTRIBUTES",
                          KeyConditionExpression="score = :n",
                          ExpressionAttributeValues={":n": {"N": "4"}})
    assert projected["Items"] == [entry]
    # A GSI asked for an attribute it does not project refuses the request
    # (test_index_exact has the message); the projected ones it answers.
    with pytest.raises(ClientError):
        ddb.query(TableName=table, IndexName="include", ProjectionExpression="body, title",
                  KeyConditionExpression="score = :n",
                  ExpressionAttributeValues={":n": {"N": "4"}})
    picked = ddb.query(TableName=table, IndexName="include", ProjectionExpression="title",
                       KeyConditionExpression="score = :n",
                       ExpressionAttributeValues={":n": {"N": "4"}})
    assert picked["Items"] == [{"title": {"S": "T"}}]


def test_same_value_update_keeps_the_entry(ddb: Any, make_indexed: Any) -> None:  # noqa: F811
    # alternator's test_11801, verified against DynamoDB.
    table = _table(make_indexed)
    ddb.put_item(TableName=table, Item=_item("a", "open", 5, title="x"))
    ddb.update_item(TableName=table, Key={"PK": {"S": "p"}, "SK": {"S": "a"}},
                    UpdateExpression="SET score = :n, title = :t",
                    ExpressionAttributeValues={":n": {"N": "5"}, ":t": {"S": "y"}})
    (entry,) = query_all(ddb, TableName=table, IndexName="by_status",
                         KeyConditionExpression="#s = :s AND score = :n",
                         ExpressionAttributeNames={"#s": "status"},
                         ExpressionAttributeValues={":s": {"S": "open"}, ":n": {"N": "5"}})
    assert entry["title"] == {"S": "y"}


def test_lsi_query_and_fetch(ddb: Any, make_indexed: Any) -> None:  # noqa: F811
    table = _table(make_indexed)
    for sk, rank in [("a", 3), ("b", 1), ("c", 2)]:
        ddb.put_item(TableName=table, Item={**_item(sk, title=sk.upper()),
                                            "rank": {"N": str(rank)}})
    ddb.put_item(TableName=table, Item=_item("unranked"))
    ranked = query_all(ddb, TableName=table, IndexName="by_rank",
                       KeyConditionExpression="PK = :p AND #r >= :r",
                       ExpressionAttributeNames={"#r": "rank"},
                       ExpressionAttributeValues={":p": {"S": "p"}, ":r": {"N": "2"}})
    assert [(i["SK"]["S"], set(i)) for i in ranked] == [
        ("c", {"PK", "SK", "rank"}), ("a", {"PK", "SK", "rank"})]
    # An LSI fetches what it does not project from the table (DynamoDB does,
    # charging the table for it).
    fetched = ddb.query(TableName=table, IndexName="by_rank", Select="ALL_ATTRIBUTES",
                        KeyConditionExpression="PK = :p",
                        ExpressionAttributeValues={":p": {"S": "p"}},
                        ReturnConsumedCapacity="INDEXES", ConsistentRead=True)
    assert [i["title"]["S"] for i in fetched["Items"]] == ["B", "C", "A"]
    capacity = fetched["ConsumedCapacity"]
    assert capacity["Table"]["CapacityUnits"] == 3.0  # three items fetched, 1 unit each
    assert capacity["LocalSecondaryIndexes"] == {"by_rank": {"CapacityUnits": 1.0}}
    assert capacity["CapacityUnits"] == 4.0


def _entries(ddb: Any, table: str, *, limit: int, forward: bool) -> list[str]:
    seen: list[str] = []
    kwargs: dict[str, Any] = {
        "TableName": table, "IndexName": "by_status", "Limit": limit,
        "KeyConditionExpression": "#s = :s", "ExpressionAttributeNames": {"#s": "status"},
        "ExpressionAttributeValues": {":s": {"S": "open"}}, "ScanIndexForward": forward,
    }
    while True:
        page = ddb.query(**kwargs)
        seen += [i["SK"]["S"] for i in page["Items"]]
        if "LastEvaluatedKey" not in page:
            return seen
        assert set(page["LastEvaluatedKey"]) == {"PK", "SK", "status", "score"}
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def test_paging_an_index_visits_each_entry_once(ddb: Any, make_indexed: Any) -> None:  # noqa: F811
    table = _table(make_indexed)
    # 53 items over 7 scores: many entries share an index key, told apart by
    # the table key that follows it.
    items = [_item(f"{n:03d}", "open", n % 7) for n in range(53)]
    for start in range(0, len(items), 25):
        ddb.batch_write_item(RequestItems={table: [
            {"PutRequest": {"Item": item}} for item in items[start:start + 25]]})
    expected = [i["SK"]["S"] for i in sorted(items, key=lambda i: (int(i["score"]["N"]),
                                                                   i["SK"]["S"]))]
    for limit in (1, 7, 100):
        assert _entries(ddb, table, limit=limit, forward=True) == expected
        assert _entries(ddb, table, limit=limit, forward=False) == expected[::-1]
    scanned = scan_all(ddb, TableName=table, IndexName="by_status", Limit=6)
    assert sorted(i["SK"]["S"] for i in scanned) == sorted(expected)
    segments = [scan_all(ddb, TableName=table, IndexName="include", Segment=s,
                         TotalSegments=3, Limit=4) for s in range(3)]
    seen = sorted(i["SK"]["S"] for segment in segments for i in segment)
    assert seen == sorted(expected)


def test_key_conditions_on_an_index_range(ddb: Any, make_indexed: Any) -> None:  # noqa: F811
    table = _table(make_indexed)
    for n in [-5, -1, 0, 1, 2, 10, 11, 100]:
        ddb.put_item(TableName=table, Item=_item(f"s{n}", "open", n))
        ddb.put_item(TableName=table, Item=_item(f"t{n}", "open", n))

    def scores(condition: str, **values: int) -> list[int]:
        items = query_all(
            ddb, TableName=table, IndexName="by_status",
            KeyConditionExpression=f"#s = :s AND {condition}",
            ExpressionAttributeNames={"#s": "status"},
            ExpressionAttributeValues={":s": {"S": "open"},
                                       **{f":{k}": {"N": str(v)} for k, v in values.items()}})
        return [int(i["score"]["N"]) for i in items]

    assert scores("score = :a", a=1) == [1, 1]
    assert scores("score < :a", a=1) == [-5, -5, -1, -1, 0, 0]
    assert scores("score <= :a", a=-1) == [-5, -5, -1, -1]
    assert scores("score > :a", a=10) == [11, 11, 100, 100]
    assert scores("score >= :a", a=10) == [10, 10, 11, 11, 100, 100]
    assert scores("score BETWEEN :a AND :b", a=-1, b=2) == [-1, -1, 0, 0, 1, 1, 2, 2]
