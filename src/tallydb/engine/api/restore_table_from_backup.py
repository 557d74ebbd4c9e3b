"""RestoreTableFromBackup: a new table, under TargetTableName, with the
backup's key schema, indexes and items.

As DynamoDB restores, the new table has its own ARN and id and no stream,
TTL or tags (those are set up again after a restore). The copy is one
SQLite copy per items table, so a restore takes milliseconds even for a
large table, and the table is ACTIVE when the answer arrives.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from tallydb.engine.api import _lifecycle as lifecycle
from tallydb.engine.api._access import Touch, named
from tallydb.engine.api._backups import TABLE_EXISTS, backup_touch, find_backup
from tallydb.engine.api._streams import retire
from tallydb.engine.api.describe_table import public_description, table_arn
from tallydb.engine.errors import TableAlreadyExistsException
from tallydb.engine.storage import Transaction

#: What a restore does not carry over (DynamoDB: streams, TTL and tags are
#: set up again on the restored table).
_NOT_RESTORED = ("StreamSpecification", "LatestStreamArn", "LatestStreamLabel")


def access(txn: Transaction, request: dict[str, Any]) -> tuple[Touch, ...]:
    """What a request touches (``_access``): reads the backup its BackupArn
    names (so the table it was taken of) and creates the table its
    TargetTableName names."""
    target = named(request.get("TargetTableName"))
    return (backup_touch(txn, "RestoreTableFromBackup", request.get("BackupArn"), False),
            Touch("RestoreTableFromBackup", target or "*", write=True))


ACCESS = access


def restore_table_from_backup(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    arn = request["BackupArn"]
    meta = find_backup(txn, arn)
    name = request["TargetTableName"]
    existing = txn.table(name)
    if existing is not None:
        if not lifecycle.gone(existing.description):
            raise TableAlreadyExistsException(TABLE_EXISTS.format(name))
        retire(txn, existing)  # DELETING, and its time is up: gone for good now
    source = meta["table"]
    now = time.time()
    description = {key: value for key, value in source.items()
                   if not key.startswith("_") and key not in _NOT_RESTORED}
    description.update(TableName=name, TableArn=table_arn(name), TableId=str(uuid.uuid4()),
                       CreationDateTime=now, TableStatus="ACTIVE")
    description["RestoreSummary"] = {
        "SourceBackupArn": arn, "SourceTableArn": source["TableArn"],
        "RestoreDateTime": now, "RestoreInProgress": False}
    if "BillingModeOverride" in request:
        description["BillingModeSummary"] = {"BillingMode": request["BillingModeOverride"],
                                             "LastUpdateToPayPerRequestDateTime": now}
    for member in ("LocalSecondaryIndexes", "GlobalSecondaryIndexes"):
        for index in description.get(member, ()):
            index["IndexArn"] = f"{table_arn(name)}/index/{index['IndexName']}"
    lifecycle.begin(txn, description, lifecycle.CREATING, now)
    record = txn.create_table(name, description)
    for member in ("LocalSecondaryIndexes", "GlobalSecondaryIndexes"):
        for index in description.get(member, ()):
            record = txn.create_index(record, index["IndexName"])
    txn.restore_snapshot(arn, record)
    return {"TableDescription": public_description(
        description, counts=(meta.get("count", 0), meta.get("size", 0)),
        status=lifecycle.status_of(description, now))}
