"""ListBackups: oldest first, filtered by table, creation time and type
(and to the tables the caller may see), paged by ExclusiveStartBackupArn /
LastEvaluatedBackupArn."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._access import Touch, caller_sees
from tallydb.engine.api._backups import summary
from tallydb.engine.api.describe_table import table_name_of, table_named
from tallydb.engine.storage import Transaction


def access(txn: Transaction, request: dict[str, Any]) -> tuple[Touch, ...]:
    """What a request touches (``_access``): the backups of the table its
    TableName names, or of every table the caller may see (the list shows
    no other)."""
    return (Touch("ListBackups", table_named(request.get("TableName"))),)


ACCESS = access


def list_backups(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    table = request.get("TableName")
    table = None if table is None else table_name_of(table)
    low = request.get("TimeRangeLowerBound")
    high = request.get("TimeRangeUpperBound")
    kind = request.get("BackupType", "ALL")
    start = request.get("ExclusiveStartBackupArn")
    limit = request.get("Limit")
    found: list[dict[str, Any]] = []
    started = start is None
    for name, meta in txn.snapshots():
        if not started:
            started = name == start
            continue
        details = meta["details"]
        created = details["BackupCreationDateTime"]
        source = meta["table"]["TableName"]
        if (table is not None and source != table) or not caller_sees(source):
            continue
        if low is not None and created < float(low):
            continue
        if high is not None and created > float(high):
            continue
        if kind not in ("ALL", details["BackupType"]):
            continue
        if limit is not None and len(found) == limit:
            return {"BackupSummaries": found,
                    "LastEvaluatedBackupArn": found[-1]["BackupArn"]}
        found.append(summary(meta))
    return {"BackupSummaries": found}
