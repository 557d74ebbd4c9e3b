"""DescribeBackup: a backup's description (its table as it was, its size and status)."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._backups import description, find_backup
from tallydb.engine.storage import Transaction


def describe_backup(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    return {"BackupDescription": description(find_backup(txn, request["BackupArn"]))}
