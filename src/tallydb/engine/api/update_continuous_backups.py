"""UpdateContinuousBackups: switch point-in-time recovery on or off, or
change its recovery period.

Switching it on starts the table's history (``_history``); switching it off
deletes the history, as DynamoDB does.
"""

from __future__ import annotations

from typing import Any

from tallydb.engine.api import _history as history
from tallydb.engine.api._access import on_table
from tallydb.engine.api._continuous_backups import (
    DEFAULT_RECOVERY_DAYS,
    backed_up_table,
    description,
)
from tallydb.engine.api.describe_table import table_named
from tallydb.engine.storage import Transaction

#: What a request touches (``_access``): writes the table its TableName names.
ACCESS = on_table("UpdateContinuousBackups", write=True, read=table_named)


def update_continuous_backups(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    record = backed_up_table(txn, request["TableName"])
    spec = request["PointInTimeRecoverySpecification"]
    on = history.PITR in record.description
    if spec["PointInTimeRecoveryEnabled"]:
        days = spec.get("RecoveryPeriodInDays") or DEFAULT_RECOVERY_DAYS
        change = history.set_period if on else history.enable
        record = change(txn, record, days)
    elif on:
        record = history.disable(txn, record)
    return {"ContinuousBackupsDescription": description(record)}
