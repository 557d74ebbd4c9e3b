"""DescribeTableReplicaAutoScaling: a global table's replicas' auto scaling
(``_replica_auto_scaling``: none, locally)."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._replica_auto_scaling import description, global_table
from tallydb.engine.storage import Transaction


def describe_table_replica_auto_scaling(txn: Transaction, request: dict[str, Any]
                                        ) -> dict[str, Any]:
    record, group = global_table(txn, request["TableName"])
    return {"TableAutoScalingDescription": description(record, group)}
