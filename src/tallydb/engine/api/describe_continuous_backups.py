"""DescribeContinuousBackups: whether point-in-time recovery is on."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._continuous_backups import backed_up_table, description
from tallydb.engine.storage import Transaction


def describe_continuous_backups(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    record = backed_up_table(txn, request["TableName"])
    return {"ContinuousBackupsDescription": description(record)}
