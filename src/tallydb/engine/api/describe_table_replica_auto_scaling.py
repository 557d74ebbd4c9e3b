"""DescribeTableReplicaAutoScaling: a global table's replicas' auto scaling
(``_replica_auto_scaling``: none, locally)."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._access import on_table
from tallydb.engine.api._replica_auto_scaling import description, global_table
from tallydb.engine.api.describe_table import table_named
from tallydb.engine.storage import Transaction

#: What a request touches (``_access``): reads the table its TableName names.
ACCESS = on_table("DescribeTableReplicaAutoScaling", write=False, read=table_named)


def describe_table_replica_auto_scaling(txn: Transaction, request: dict[str, Any]
                                        ) -> dict[str, Any]:
    record, group = global_table(txn, request["TableName"])
    return {"TableAutoScalingDescription": description(record, group)}
