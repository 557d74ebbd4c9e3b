"""Indexes as the table operations show and change them: DescribeTable
(IndexStatus, ItemCount, IndexSizeBytes, IndexArn, Projection, a GSI's
ProvisionedThroughput), UpdateTable's GlobalSecondaryIndexUpdates (Create with
backfill, Delete, Update) and ReturnConsumedCapacity INDEXES.

Messages: architect/dynalite's validations/updateTable.js and the
ack-api-quirks catalogue of DynamoDB's UpdateTable behaviour (2026); the
ConsumedCapacity shapes: DynamoDB's API reference and responses quoted by its
users (a GSI Query reports ``Table: {CapacityUnits: 0.0}``).
"""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError
from index_tables import gsi, lsi, make_indexed, query_all, scan_all  # noqa: F401
from tallytest import error_of

INVALID = "One or more parameter values were invalid: "


def test_describe_shows_indexes_with_counts(ddb: Any, make_indexed: Any) -> None:  # noqa: F811
    table = make_indexed("desc", [("PK", "HASH"), ("SK", "RANGE")],
                         {"PK": "S", "SK": "S", "g": "S", "r": "N"},
                         gsis=[gsi("by_g", "g", projection="KEYS_ONLY")],
                         lsis=[lsi("by_r", "PK", "r", projection="INCLUDE", include=["t"])])
    for n in range(3):
        ddb.put_item(TableName=table, Item={"PK": {"S": "p"}, "SK": {"S": str(n)},
                                            "g": {"S": "x"}, "t": {"S": "t"}})
    ddb.put_item(TableName=table, Item={"PK": {"S": "p"}, "SK": {"S": "r"}, "r": {"N": "1"}})
    described = ddb.describe_table(TableName=table)["Table"]
    (global_index,) = described["GlobalSecondaryIndexes"]
    assert global_index["IndexName"] == "by_g"
    assert global_index["IndexStatus"] == "ACTIVE"
    assert global_index["Projection"] == {"ProjectionType": "KEYS_ONLY"}
    assert global_index["ItemCount"] == 3 and global_index["IndexSizeBytes"] > 0
    assert global_index["IndexArn"].endswith(f":table/{table}/index/by_g")
    assert global_index["ProvisionedThroughput"] == {
        "NumberOfDecreasesToday": 0, "ReadCapacityUnits": 0, "WriteCapacityUnits": 0}
    (local_index,) = described["LocalSecondaryIndexes"]
    assert local_index["ItemCount"] == 1
    assert local_index["Projection"] == {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["t"]}
    assert "IndexStatus" not in local_index


def _create_x(table: str, name: str = "by_x", kind: str = "S") -> dict[str, Any]:
    return {"TableName": table,
            "AttributeDefinitions": [{"AttributeName": "x", "AttributeType": kind}],
            "GlobalSecondaryIndexUpdates": [{"Create": gsi(name, "x")}]}


def test_create_backfills_and_delete_drops(ddb: Any, make_indexed: Any) -> None:  # noqa: F811
    table = make_indexed("gsiup", [("PK", "HASH")], {"PK": "S"})
    good = [{"PK": {"S": f"g{n}"}, "x": {"S": "a" if n % 2 else "b"}} for n in range(6)]
    skipped = [{"PK": {"S": "num"}, "x": {"N": "1"}}, {"PK": {"S": "empty"}, "x": {"S": ""}},
               {"PK": {"S": "none"}}]
    for item in good + skipped:
        ddb.put_item(TableName=table, Item=item)

    answer = ddb.update_table(**_create_x(table))["TableDescription"]
    assert answer["TableStatus"] == "UPDATING"
    (created,) = answer["GlobalSecondaryIndexes"]
    assert (created["IndexStatus"], created["Backfilling"]) == ("CREATING", False)
    assert {"AttributeName": "x", "AttributeType": "S"} in answer["AttributeDefinitions"]

    described = ddb.describe_table(TableName=table)["Table"]
    assert described["TableStatus"] == "ACTIVE"
    assert described["GlobalSecondaryIndexes"][0]["IndexStatus"] == "ACTIVE"
    assert described["GlobalSecondaryIndexes"][0]["ItemCount"] == 6
    assert sorted(i["PK"]["S"] for i in scan_all(ddb, TableName=table, IndexName="by_x")) == (
        sorted(i["PK"]["S"] for i in good))
    found = query_all(ddb, TableName=table, IndexName="by_x", KeyConditionExpression="x = :a",
                      ExpressionAttributeValues={":a": {"S": "a"}})
    assert [i["PK"]["S"] for i in found] == ["g1", "g3", "g5"]
    # Now x is an index key: a wrong type is refused (alternator's test_gsi_backfill).
    with pytest.raises(ClientError) as excinfo:
        ddb.put_item(TableName=table, Item={"PK": {"S": "late"}, "x": {"N": "2"}})
    assert error_of(excinfo)[1] == (
        f"{INVALID}Type mismatch for Index Key x Expected: S Actual: N IndexName: by_x")

    answer = ddb.update_table(TableName=table, GlobalSecondaryIndexUpdates=[
        {"Delete": {"IndexName": "by_x"}}])["TableDescription"]
    assert answer["TableStatus"] == "UPDATING"
    assert answer["GlobalSecondaryIndexes"][0]["IndexStatus"] == "DELETING"
    described = ddb.describe_table(TableName=table)["Table"]
    assert "GlobalSecondaryIndexes" not in described
    assert described["AttributeDefinitions"] == [{"AttributeName": "PK", "AttributeType": "S"}]
    with pytest.raises(ClientError) as excinfo:
        ddb.query(TableName=table, IndexName="by_x", KeyConditionExpression="x = :a",
                  ExpressionAttributeValues={":a": {"S": "a"}})
    assert error_of(excinfo)[1] == "The table does not have the specified index: by_x"
    ddb.put_item(TableName=table, Item={"PK": {"S": "late"}, "x": {"N": "2"}})  # allowed again
    # Created again under the same name, it backfills again (numbers skipped).
    ddb.update_table(**_create_x(table))
    assert len(scan_all(ddb, TableName=table, IndexName="by_x")) == 6


def test_gsi_updates_refused(ddb: Any, make_indexed: Any) -> None:  # noqa: F811
    table = make_indexed("gsibad", [("PK", "HASH"), ("SK", "RANGE")],
                         {"PK": "S", "SK": "S", "g": "S", "r": "N"},
                         gsis=[gsi("by_g", "g")], lsis=[lsi("by_r", "PK", "r")])

    def refused(**kwargs: Any) -> tuple[str, str]:
        with pytest.raises(ClientError) as excinfo:
            ddb.update_table(TableName=table, **kwargs)
        code, message, _ = error_of(excinfo)
        return code, message

    create = {"Create": gsi("new", "x")}
    x_defined = [{"AttributeName": "x", "AttributeType": "S"}]
    assert refused(GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "ghost"}}]) == (
        "ResourceNotFoundException", f"Requested resource not found: Index ghost for table {table}")
    assert refused(GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "by_r"}}]) == (
        "ValidationException", "Cannot delete an index that is not a GlobalSecondaryIndex: by_r")
    assert refused(AttributeDefinitions=x_defined,
                   GlobalSecondaryIndexUpdates=[{"Create": gsi("by_r", "x")}]) == (
        "ValidationException", "Attempting to create an index which already exists")
    assert refused(GlobalSecondaryIndexUpdates=[create]) == (
        "ValidationException", "AttributeDefinitions is not specified for index: new")
    assert refused(AttributeDefinitions=[{"AttributeName": "y", "AttributeType": "S"}],
                   GlobalSecondaryIndexUpdates=[create]) == (
        "ValidationException", f"{INVALID}Some index key attributes are not defined in "
                               "AttributeDefinitions. Keys: [x], AttributeDefinitions: [y]")
    assert refused(AttributeDefinitions=x_defined, GlobalSecondaryIndexUpdates=[
        create, {"Delete": {"IndexName": "by_g"}}]) == (
        "LimitExceededException", "Subscriber limit exceeded: Only 1 online index can be "
                                  "created or deleted simultaneously per table")
    assert refused(AttributeDefinitions=x_defined, GlobalSecondaryIndexUpdates=[
        create, {"Create": gsi("new", "x")}]) == (
        "ValidationException", f"{INVALID}Only one global secondary index update per index is "
                               "allowed simultaneously. Index: new")
    assert refused(AttributeDefinitions=[{"AttributeName": "g", "AttributeType": "N"}],
                   GlobalSecondaryIndexUpdates=[{"Create": gsi("g_as_number", "g")}]) == (
        "ValidationException", f"{INVALID}Attributes cannot be redefined. Please check that "
        "your attribute has the same type as previously defined. Existing schema: "
        "Schema:[SchemaElement: key{g:S:HASH}] New schema: Schema:[SchemaElement: key{g:N:HASH}]")
    # Nothing above changed the table.
    described = ddb.describe_table(TableName=table)["Table"]
    assert [i["IndexName"] for i in described["GlobalSecondaryIndexes"]] == ["by_g"]


def test_consumed_capacity_counts_indexes(ddb: Any, make_indexed: Any) -> None:  # noqa: F811
    table = make_indexed("cap", [("PK", "HASH")], {"PK": "S", "g": "S", "n": "N"},
                         gsis=[gsi("by_g", "g", projection="KEYS_ONLY"), gsi("by_n", "n")])
    item = {"PK": {"S": "v"}, "g": {"S": "x"}, "n": {"N": "1"}}
    put = ddb.put_item(TableName=table, Item=item, ReturnConsumedCapacity="INDEXES")
    assert put["ConsumedCapacity"] == {
        "TableName": table, "CapacityUnits": 3.0, "Table": {"CapacityUnits": 1.0},
        "GlobalSecondaryIndexes": {"by_g": {"CapacityUnits": 1.0},
                                   "by_n": {"CapacityUnits": 1.0}}}
    # Moving n's entry costs two writes (delete + put); by_g's entry is unchanged.
    update = ddb.update_item(TableName=table, Key={"PK": {"S": "v"}},
                             UpdateExpression="ADD n :one",
                             ExpressionAttributeValues={":one": {"N": "1"}},
                             ReturnConsumedCapacity="INDEXES")
    assert update["ConsumedCapacity"]["GlobalSecondaryIndexes"] == {
        "by_n": {"CapacityUnits": 2.0}}
    assert update["ConsumedCapacity"]["CapacityUnits"] == 3.0
    total = ddb.update_item(TableName=table, Key={"PK": {"S": "v"}},
                            UpdateExpression="ADD n :one",
                            ExpressionAttributeValues={":one": {"N": "1"}},
                            ReturnConsumedCapacity="TOTAL")
    assert total["ConsumedCapacity"] == {"TableName": table, "CapacityUnits": 3.0}
    read = ddb.query(TableName=table, IndexName="by_g", KeyConditionExpression="g = :g",
                     ExpressionAttributeValues={":g": {"S": "x"}}, ReturnConsumedCapacity="INDEXES")
    assert read["ConsumedCapacity"] == {
        "TableName": table, "CapacityUnits": 0.5, "Table": {"CapacityUnits": 0.0},
        "GlobalSecondaryIndexes": {"by_g": {"CapacityUnits": 0.5}}}
    deleted = ddb.delete_item(TableName=table, Key={"PK": {"S": "v"}},
                              ReturnConsumedCapacity="INDEXES")
    assert deleted["ConsumedCapacity"]["CapacityUnits"] == 3.0
    transacted = ddb.transact_write_items(
        TransactItems=[{"Put": {"TableName": table, "Item": item}}],
        ReturnConsumedCapacity="INDEXES")
    (entry,) = transacted["ConsumedCapacity"]
    assert entry["CapacityUnits"] == entry["WriteCapacityUnits"] == 6.0
    assert entry["GlobalSecondaryIndexes"]["by_n"] == {
        "CapacityUnits": 2.0, "WriteCapacityUnits": 2.0}
