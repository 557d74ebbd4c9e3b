"""On-demand backups: a snapshot of a table's items and index entries in
the store (``Transaction.create_snapshot``), named by its BackupArn, with
what DescribeBackup tells about it kept beside it.

A backup is taken inside the writer's transaction, so it holds exactly the
writes committed before it and none after, while writers queue for the
copy's few milliseconds (SQLite copies rows table to table). It is
AVAILABLE at once. Messages as moto answers them (recorded against
DynamoDB in its tests).
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from tallydb.engine.api._access import Touch
from tallydb.engine.api.describe_table import table_arn
from tallydb.engine.errors import BackupNotFoundException
from tallydb.engine.storage import Transaction

BACKUP_NOT_FOUND = "Backup not found: {}"
TABLE_NOT_FOUND = "Table not found: {}"
TABLE_EXISTS = "Table already exists: {}"


def backup_arn(table: str, created: float) -> str:
    """``.../table/NAME/backup/<13-digit epoch ms>-<8 hex>``, as DynamoDB's."""
    return f"{table_arn(table)}/backup/{int(created * 1000):014d}-{uuid.uuid4().hex[:8]}"


def new_backup(description: dict[str, Any], name: str) -> dict[str, Any]:
    """The meta a backup keeps: its details and its source table's description."""
    created = time.time()
    details = {
        "BackupArn": backup_arn(description["TableName"], created),
        "BackupName": name,
        "BackupSizeBytes": 0,
        "BackupStatus": "AVAILABLE",
        "BackupType": "USER",
        "BackupCreationDateTime": created,
    }
    return {"details": details, "table": description}


def find_backup(txn: Transaction, arn: Any) -> dict[str, Any]:
    meta = txn.snapshot(arn) if isinstance(arn, str) else None
    if meta is None:
        raise BackupNotFoundException(BACKUP_NOT_FOUND.format(arn))
    return meta


def summary(meta: dict[str, Any]) -> dict[str, Any]:
    """ListBackups' BackupSummary."""
    table = meta["table"]
    details = meta["details"]
    return {
        "TableName": table["TableName"], "TableId": table["TableId"],
        "TableArn": table["TableArn"], **details,
    }


def description(meta: dict[str, Any]) -> dict[str, Any]:
    """DescribeBackup's BackupDescription."""
    table = meta["table"]
    source: dict[str, Any] = {
        "TableName": table["TableName"], "TableId": table["TableId"],
        "TableArn": table["TableArn"], "TableSizeBytes": meta.get("size", 0),
        "KeySchema": table["KeySchema"], "TableCreationDateTime": table["CreationDateTime"],
        "ProvisionedThroughput": {
            name: table["ProvisionedThroughput"][name]
            for name in ("ReadCapacityUnits", "WriteCapacityUnits")},
        "ItemCount": meta.get("count", 0),
        "BillingMode": table.get("BillingModeSummary", {}).get("BillingMode", "PROVISIONED"),
    }
    features: dict[str, Any] = {}
    for member in ("LocalSecondaryIndexes", "GlobalSecondaryIndexes"):
        if table.get(member):
            features[member] = [
                {name: index[name] for name in
                 ("IndexName", "KeySchema", "Projection", "ProvisionedThroughput")
                 if name in index}
                for index in table[member]]
    if table.get("StreamSpecification"):
        features["StreamDescription"] = table["StreamSpecification"]
    if table.get("SSEDescription"):
        features["SSEDescription"] = table["SSEDescription"]
    answer = {"BackupDetails": meta["details"], "SourceTableDetails": source}
    if features:
        answer["SourceTableFeatureDetails"] = features
    return answer


def backup_touch(txn: Transaction, action: str, arn: Any, write: bool) -> Touch:
    """What a request on the backup ``arn`` names touches (``_access``): the
    backup of the table its stored record was taken of (an ARN of no
    backup: of the table the ARN names)."""
    meta = txn.snapshot(arn) if isinstance(arn, str) else None
    text = arn if isinstance(arn, str) else ""
    named, _, backup = text.partition(":table/")[2].partition("/backup/")
    table = meta["table"]["TableName"] if meta is not None else (named if backup else "*")
    return Touch(action, table, write, f"/backup/{backup}")


def on_backup(action: str, *, write: bool) -> Any:
    """``ACCESS`` of an operation on the backup its BackupArn names."""
    def resolve(txn: Transaction, request: dict[str, Any]) -> tuple[Touch, ...]:
        return (backup_touch(txn, action, request.get("BackupArn"), write),)
    return resolve
