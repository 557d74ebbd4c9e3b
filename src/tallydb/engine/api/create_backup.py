"""CreateBackup: a consistent snapshot of a table (``_backups``)."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._access import on_table
from tallydb.engine.api._backups import TABLE_NOT_FOUND, new_backup
from tallydb.engine.api.describe_table import table_name_of, table_named
from tallydb.engine.errors import TableNotFoundException
from tallydb.engine.storage import Transaction

#: What a request touches (``_access``): writes the table its TableName names.
ACCESS = on_table("CreateBackup", write=True, read=table_named)


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
