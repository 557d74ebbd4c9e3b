"""DescribeContinuousBackups: whether point-in-time recovery is on."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._access import on_table
from tallydb.engine.api._continuous_backups import backed_up_table, description
from tallydb.engine.api.describe_table import table_named
from tallydb.engine.storage import Transaction

#: What a request touches (``_access``): reads the table its TableName names.
ACCESS = on_table("DescribeContinuousBackups", write=False, read=table_named)


def describe_continuous_backups(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    record = backed_up_table(txn, request["TableName"])
    return {"ContinuousBackupsDescription": description(record)}
