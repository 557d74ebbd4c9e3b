"""DeleteBackup: the answer describes the backup as DELETED."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._backups import description, find_backup, on_backup
from tallydb.engine.storage import Transaction

#: What a request touches (``_access``): deletes the backup its BackupArn names.
ACCESS = on_backup("DeleteBackup", write=True)


def delete_backup(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    meta = find_backup(txn, request["BackupArn"])
    txn.delete_snapshot(request["BackupArn"])
    answer = description(meta)
    answer["BackupDetails"] = {**answer["BackupDetails"], "BackupStatus": "DELETED"}
    return {"BackupDescription": answer}
