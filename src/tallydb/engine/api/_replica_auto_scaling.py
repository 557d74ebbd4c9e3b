"""Replica auto scaling of a global table (version 2019.11.21), as far as
it means anything locally: tallydb scales nothing, and its global tables
are PAY_PER_REQUEST (a PROVISIONED table cannot get a replica without
Application Auto Scaling, which tallydb does not serve, as DynamoDB refuses
it). DescribeTableReplicaAutoScaling describes each replica with no
scaling settings; UpdateTableReplicaAutoScaling refuses every setting but
AutoScalingDisabled, with DynamoDB's text for a PAY_PER_REQUEST group. A
regional table is no global table: ResourceNotFoundException. The texts
are DynamoDB's as a 2026 survey of it records them.
"""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._global import GLOBAL
from tallydb.engine.api.describe_table import find_table
from tallydb.engine.errors import ResourceNotFoundException, ValidationException
from tallydb.engine.storage import TableRecord, Transaction

NOT_GLOBAL = "Global table with name: {} does not exist."
PAY_PER_REQUEST = ("Failed to update global table with name \u2018{}\u2018. Replicas {} "
                   "BillingMode is PayPerRequest. You must convert table's BillingMode to "
                   "PROVISIONED to set parameters: {}.")


def global_table(txn: Transaction, name: str) -> tuple[TableRecord, dict[str, Any]]:
    record = find_table(txn, name)
    group = record.description.get(GLOBAL)
    if group is None or group.get("Version", "2019.11.21") != "2019.11.21":
        raise ResourceNotFoundException(NOT_GLOBAL.format(record.name))
    return record, group


def description(record: TableRecord, group: dict[str, Any]) -> dict[str, Any]:
    """A TableAutoScalingDescription: every replica, without scaling settings."""
    indexes = [{"IndexName": index["IndexName"], "IndexStatus": "ACTIVE"}
               for index in record.description.get("GlobalSecondaryIndexes", ())]
    replicas = []
    for replica in group["Replicas"]:
        entry: dict[str, Any] = {"RegionName": replica["RegionName"],
                                 "ReplicaStatus": replica["ReplicaStatus"]}
        if indexes:
            entry["GlobalSecondaryIndexes"] = [dict(index) for index in indexes]
        replicas.append(entry)
    return {"TableName": record.name,
            "TableStatus": record.description.get("TableStatus", "ACTIVE"),
            "Replicas": replicas}


def refuse_settings(record: TableRecord, group: dict[str, Any], request: dict[str, Any]
                    ) -> None:
    """Every setting but AutoScalingDisabled needs a PROVISIONED group."""
    given: list[str] = []

    def settings(update: dict[str, Any] | None) -> None:
        for name, value in (update or {}).items():
            if name != "AutoScalingDisabled" and value is not None and name not in given:
                given.append(name)

    settings(request.get("ProvisionedWriteCapacityAutoScalingUpdate"))
    for index in request.get("GlobalSecondaryIndexUpdates") or ():
        settings(index.get("ProvisionedWriteCapacityAutoScalingUpdate"))
    for replica in request.get("ReplicaUpdates") or ():
        settings(replica.get("ReplicaProvisionedReadCapacityAutoScalingUpdate"))
        for index in replica.get("ReplicaGlobalSecondaryIndexUpdates") or ():
            settings(index.get("ProvisionedReadCapacityAutoScalingUpdate"))
    if given:
        regions = ", ".join(f"'{r['RegionName']}'" for r in group["Replicas"])
        raise ValidationException(PAY_PER_REQUEST.format(
            record.name, regions, ", ".join(f"'{name}'" for name in given)))
