"""UpdateContinuousBackups: switch point-in-time recovery on or off."""

from __future__ import annotations

import time
from typing import Any

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
    stored = dict(record.description)
    if spec["PointInTimeRecoveryEnabled"]:
        current = stored.get("_PointInTimeRecovery") or {"Enabled": time.time()}
        stored["_PointInTimeRecovery"] = {
            "Enabled": current["Enabled"],
            "RecoveryPeriodInDays": spec.get("RecoveryPeriodInDays") or DEFAULT_RECOVERY_DAYS,
        }
    else:
        stored.pop("_PointInTimeRecovery", None)
    record = record.with_description(stored)
    txn.update_table(record)
    return {"ContinuousBackupsDescription": description(record)}
