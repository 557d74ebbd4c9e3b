"""Continuous backups: the point-in-time recovery switch and what
DescribeContinuousBackups tells of it.

Continuous backups are always ENABLED on DynamoDB; only point-in-time
recovery is switched. While it is on, tallydb keeps the history that
rebuilds the table at any second of its recovery period (``_history``), so
EarliestRestorableDateTime and LatestRestorableDateTime are what a restore
can reach: the later of the first whole second after recovery was switched
on (or the history was last cut short) and the start of the period; and now.
"""

from __future__ import annotations

from typing import Any

from tallydb.engine.api import _history as history
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


def window(pitr: dict[str, Any], now: float | None = None) -> tuple[int, float]:
    """(EarliestRestorableDateTime, LatestRestorableDateTime) of a table
    whose point-in-time recovery is on."""
    latest = history.latest() if now is None else now
    return history.earliest(pitr, latest), latest


def description(record: TableRecord, now: float | None = None) -> dict[str, Any]:
    """The ContinuousBackupsDescription of a table."""
    recovery = record.description.get(history.PITR)
    pitr: dict[str, Any] = {"PointInTimeRecoveryStatus": "DISABLED"}
    if recovery is not None:
        earliest, latest = window(recovery, now)
        pitr = {
            "PointInTimeRecoveryStatus": "ENABLED",
            "RecoveryPeriodInDays": recovery["RecoveryPeriodInDays"],
            "EarliestRestorableDateTime": min(earliest, latest),
            "LatestRestorableDateTime": latest,
        }
    return {"ContinuousBackupsStatus": "ENABLED", "PointInTimeRecoveryDescription": pitr}
