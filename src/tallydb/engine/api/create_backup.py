"""CreateBackup: a consistent snapshot of a table (``_backups``)."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._backups import TABLE_NOT_FOUND, new_backup
from tallydb.engine.api.describe_table import table_name_of
from tallydb.engine.errors import TableNotFoundException
from tallydb.engine.storage import Transaction


def create_backup(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    record = txn.table(table_name_of(request["TableName"]))
    if record is None:
        raise TableNotFoundException(TABLE_NOT_FOUND.format(request["TableName"]))
    meta = new_backup(record.description, request["BackupName"])
    meta["count"], meta["size"] = txn.count_items(record)
    details = meta["details"]
    details["BackupSizeBytes"] = meta["size"]
    txn.create_snapshot(details["BackupArn"], record, meta)
    return {"BackupDetails": details}
