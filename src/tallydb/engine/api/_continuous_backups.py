"""Point-in-time recovery status, kept in a table's description as
``_PointInTimeRecovery`` (``{"Enabled": since, "RecoveryPeriodInDays": n}``
while enabled). Continuous backups are always ENABLED on DynamoDB; only
point-in-time recovery is switched. tallydb records the switch (so tools
and infrastructure code see what they set); it keeps no restorable history.
"""

from __future__ import annotations

import time
from typing import Any

from tallydb.engine.errors import TableNotFoundException
from tallydb.engine.storage import TableRecord, Transaction

#: DynamoDB's answer for a table that does not exist (its backup operations'
#: wording: "Table not found: NAME").
TABLE_NOT_FOUND = "Table not found: {name}"
DEFAULT_RECOVERY_DAYS = 35


def backed_up_table(txn: Transaction, name: str) -> TableRecord:
    if name.startswith("arn:"):
        name = name.partition(":table/")[2]
    record = txn.table(name)
    if record is None:
        raise TableNotFoundException(TABLE_NOT_FOUND.format(name=name))
    return record


def description(record: TableRecord, now: float | None = None) -> dict[str, Any]:
    """The ContinuousBackupsDescription of a table."""
    recovery = record.description.get("_PointInTimeRecovery")
    pitr: dict[str, Any] = {"PointInTimeRecoveryStatus": "DISABLED"}
    if recovery is not None:
        latest = time.time() if now is None else now
        days = recovery["RecoveryPeriodInDays"]
        pitr = {
            "PointInTimeRecoveryStatus": "ENABLED",
            "RecoveryPeriodInDays": days,
            "EarliestRestorableDateTime": max(recovery["Enabled"], latest - days * 86400),
            "LatestRestorableDateTime": latest,
        }
    return {"ContinuousBackupsStatus": "ENABLED", "PointInTimeRecoveryDescription": pitr}
