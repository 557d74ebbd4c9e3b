"""DescribeBackup: a backup's description (its table as it was, its size and status)."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._backups import description, find_backup, on_backup
from tallydb.engine.storage import Transaction

#: What a request touches (``_access``): reads the backup its BackupArn names.
ACCESS = on_backup("DescribeBackup", write=False)


def describe_backup(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    return {"BackupDescription": description(find_backup(txn, request["BackupArn"]))}
