"""On-demand backups: CreateBackup, DescribeBackup, ListBackups,
DeleteBackup and RestoreTableFromBackup, through boto3 against
``tallydb serve`` and in-process.

Error codes and messages as moto answers them (its tests are recorded
against DynamoDB): TableNotFoundException "Table not found: NAME",
BackupNotFoundException "Backup not found: ARN", TableAlreadyExistsException
"Table already exists: NAME". A restored table has its own ARN, the
backup's key schema and indexes, and no stream (DynamoDB's restore does not
carry streams, TTL or tags over).
"""

from __future__ import annotations

import threading
from collections import defaultdict
from typing import Any

import pytest
from botocore.exceptions import ClientError
from tallytest import error_of, unique_name


def _indexed_table(ddb: Any, make_table: Any) -> str:
    table = make_table("bk")
    ddb.update_table(
        TableName=table,
        AttributeDefinitions=[{"AttributeName": "owner", "AttributeType": "S"}],
        GlobalSecondaryIndexUpdates=[{"Create": {
            "IndexName": "byOwner", "KeySchema": [{"AttributeName": "owner", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"}}}])
    return table


def _scan(ddb: Any, table: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    kwargs: dict[str, Any] = {"TableName": table, "ConsistentRead": True}
    while True:
        page = ddb.scan(**kwargs)
        items += page["Items"]
        if "LastEvaluatedKey" not in page:
            return sorted(items, key=lambda item: item["PK"]["S"])
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def test_backup_and_restore_under_a_new_name_with_indexes(ddb: Any, make_table: Any) -> None:
    table = _indexed_table(ddb, make_table)
    for n in range(30):
        ddb.put_item(TableName=table, Item={"PK": {"S": f"k{n:02d}"}, "owner": {"S": f"o{n % 3}"},
                                            "n": {"N": str(n)}})
    before = _scan(ddb, table)
    details = ddb.create_backup(TableName=table, BackupName="nightly")["BackupDetails"]
    assert details["BackupStatus"] == "AVAILABLE" and details["BackupType"] == "USER"
    assert details["BackupArn"].startswith(
        f"arn:aws:dynamodb:us-east-1:000000000000:table/{table}/backup/")
    ddb.put_item(TableName=table, Item={"PK": {"S": "later"}, "owner": {"S": "o1"}})
    ddb.delete_item(TableName=table, Key={"PK": {"S": "k00"}})

    target = unique_name("restored")
    restored = ddb.restore_table_from_backup(
        TargetTableName=target, BackupArn=details["BackupArn"])["TableDescription"]
    try:
        assert restored["TableName"] == target
        assert restored["TableArn"].endswith(f":table/{target}")
        assert restored["RestoreSummary"]["SourceBackupArn"] == details["BackupArn"]
        assert [i["IndexName"] for i in restored["GlobalSecondaryIndexes"]] == ["byOwner"]
        assert _scan(ddb, target) == before
        by_owner = ddb.query(TableName=target, IndexName="byOwner",
                             KeyConditionExpression="#o = :o", ExpressionAttributeNames={
                                 "#o": "owner"}, ExpressionAttributeValues={":o": {"S": "o1"}})
        assert by_owner["Count"] == 10
        assert ddb.describe_table(TableName=target)["Table"]["ItemCount"] == 30
    finally:
        ddb.delete_table(TableName=target)


def test_describe_list_and_delete(ddb: Any, make_table: Any) -> None:
    table = _indexed_table(ddb, make_table)
    ddb.put_item(TableName=table, Item={"PK": {"S": "a"}})
    arns = [ddb.create_backup(TableName=table, BackupName=f"b{n}x")["BackupDetails"]["BackupArn"]
            for n in range(3)]
    described = ddb.describe_backup(BackupArn=arns[0])["BackupDescription"]
    assert described["SourceTableDetails"]["TableName"] == table
    assert described["SourceTableDetails"]["ItemCount"] == 1
    assert described["SourceTableFeatureDetails"]["GlobalSecondaryIndexes"][0][
        "IndexName"] == "byOwner"
    listed = ddb.list_backups(TableName=table)["BackupSummaries"]
    assert [b["BackupArn"] for b in listed] == arns
    first = ddb.list_backups(TableName=table, Limit=2)
    assert [b["BackupArn"] for b in first["BackupSummaries"]] == arns[:2]
    rest = ddb.list_backups(TableName=table, ExclusiveStartBackupArn=first[
        "LastEvaluatedBackupArn"])
    assert [b["BackupArn"] for b in rest["BackupSummaries"]] == arns[2:]
    deleted = ddb.delete_backup(BackupArn=arns[1])["BackupDescription"]
    assert deleted["BackupDetails"]["BackupStatus"] == "DELETED"
    assert [b["BackupArn"] for b in ddb.list_backups(TableName=table)["BackupSummaries"]] == [
        arns[0], arns[2]]
    for arn in (arns[0], arns[2]):
        ddb.delete_backup(BackupArn=arn)


def test_errors(ddb: Any, make_table: Any) -> None:
    table = make_table("bk")
    with pytest.raises(ClientError) as excinfo:
        ddb.create_backup(TableName="no-such-table", BackupName="bk1")
    assert error_of(excinfo) == ("TableNotFoundException", "Table not found: no-such-table", 400)
    missing = f"arn:aws:dynamodb:us-east-1:000000000000:table/{table}/backup/01-00000000"
    with pytest.raises(ClientError) as excinfo:
        ddb.describe_backup(BackupArn=missing)
    assert error_of(excinfo) == ("BackupNotFoundException", f"Backup not found: {missing}", 400)
    arn = ddb.create_backup(TableName=table, BackupName="bk1")["BackupDetails"]["BackupArn"]
    with pytest.raises(ClientError) as excinfo:
        ddb.restore_table_from_backup(TargetTableName=table, BackupArn=arn)
    assert error_of(excinfo) == ("TableAlreadyExistsException", f"Table already exists: {table}",
                                 400)
    ddb.delete_backup(BackupArn=arn)


@pytest.mark.timeout(120)
def test_backup_is_one_moment_while_writers_write(backend: Any, make_table: Any) -> None:
    """Four writers each commit (counter + 1, log entry i) transactions in
    turn; the backup, taken meanwhile, holds each writer's entries 0..k-1
    for some k and a counter equal to their total: one moment of the table."""
    ddb = backend.client()
    table = make_table("bk")
    ddb.put_item(TableName=table, Item={"PK": {"S": "counter"}, "n": {"N": "0"}})
    stop = threading.Event()

    def write(writer: int) -> None:
        i = 0
        while not stop.is_set() and i < 2000:
            ddb.transact_write_items(TransactItems=[
                {"Update": {"TableName": table, "Key": {"PK": {"S": "counter"}},
                            "UpdateExpression": "ADD n :one",
                            "ExpressionAttributeValues": {":one": {"N": "1"}}}},
                {"Put": {"TableName": table,
                         "Item": {"PK": {"S": f"log#{writer}#{i:05d}"}}}}])
            i += 1

    writers = [threading.Thread(target=write, args=(w,)) for w in range(4)]
    for thread in writers:
        thread.start()

    def counter() -> int:
        item = ddb.get_item(TableName=table, Key={"PK": {"S": "counter"}})["Item"]
        return int(item["n"]["N"])

    try:
        while counter() == 0:
            pass
        arn = ddb.create_backup(TableName=table, BackupName="mid")["BackupDetails"]["BackupArn"]
        after = counter()
        while counter() == after:  # the writers go on after the backup
            pass
    finally:
        stop.set()
        for thread in writers:
            thread.join(60)
    target = unique_name("moment")
    ddb.restore_table_from_backup(TargetTableName=target, BackupArn=arn)
    try:
        items = _scan(ddb, target)
        entries: dict[str, list[int]] = defaultdict(list)
        backed_up = None
        for item in items:
            key = item["PK"]["S"]
            if key == "counter":
                backed_up = int(item["n"]["N"])
            else:
                _, writer, i = key.split("#")
                entries[writer].append(int(i))
        total = sum(len(v) for v in entries.values())
        assert backed_up == total > 0
        for seen in entries.values():
            assert seen == list(range(len(seen)))
        assert counter() > total
    finally:
        ddb.delete_table(TableName=target)
        ddb.delete_backup(BackupArn=arn)
