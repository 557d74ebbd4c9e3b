"""UpdateTableReplicaAutoScaling: refused for any setting but
AutoScalingDisabled on tallydb's PAY_PER_REQUEST global tables, with
DynamoDB's text (``_replica_auto_scaling``); otherwise the description."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._access import on_table
from tallydb.engine.api._replica_auto_scaling import (
    description,
    global_table,
    refuse_settings,
)
from tallydb.engine.api.describe_table import table_named
from tallydb.engine.storage import Transaction

#: What a request touches (``_access``): writes the table its TableName names.
ACCESS = on_table("UpdateTableReplicaAutoScaling", write=True, read=table_named)


def update_table_replica_auto_scaling(txn: Transaction, request: dict[str, Any]
                                      ) -> dict[str, Any]:
    record, group = global_table(txn, request["TableName"])
    refuse_settings(record, group, request)
    return {"TableAutoScalingDescription": description(record, group)}
