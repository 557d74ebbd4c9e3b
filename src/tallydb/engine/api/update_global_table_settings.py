"""UpdateGlobalTableSettings (global tables version 2017.11.29): the
group's billing mode and provisioned write capacity, applied to every
replica, and a replica's read capacity (ReplicaSettingsUpdate); its answer
is DescribeGlobalTableSettings'. A region not in the group is
ReplicaNotFoundException (text not on record: ours).
"""

from __future__ import annotations

import time
from typing import Any

from tallydb.engine.api._access import on_table
from tallydb.engine.api._legacy_global import SETTINGS_NOT_FOUND, find_group, settings
from tallydb.engine.errors import ReplicaNotFoundException
from tallydb.engine.storage import TableRecord, Transaction

MISSING = "Replica not found in region {} for global table {}"


def _region(record: TableRecord) -> str:
    return record.catalog or "us-east-1"


#: What a request touches (``_access``): writes the group (its tables' name) its GlobalTableName
#: names.
ACCESS = on_table("UpdateGlobalTableSettings", write=True, member="GlobalTableName")


def update_global_table_settings(txn: Transaction, request: dict[str, Any]
                                 ) -> dict[str, Any]:
    name = request["GlobalTableName"]
    _, tables = find_group(txn, name, SETTINGS_NOT_FOUND)
    by_region = {_region(t): t for t in tables}
    reads: dict[str, int] = {}
    for update in request.get("ReplicaSettingsUpdate") or ():
        if update["RegionName"] not in by_region:
            raise ReplicaNotFoundException(MISSING.format(update["RegionName"], name))
        if update.get("ReplicaProvisionedReadCapacityUnits") is not None:
            reads[update["RegionName"]] = update["ReplicaProvisionedReadCapacityUnits"]
    mode = request.get("GlobalTableBillingMode")
    writes = request.get("GlobalTableProvisionedWriteCapacityUnits")
    updated = []
    for region, record in by_region.items():
        description = dict(record.description)
        throughput = dict(description["ProvisionedThroughput"])
        if mode == "PAY_PER_REQUEST":
            description["BillingModeSummary"] = {
                "BillingMode": mode, "LastUpdateToPayPerRequestDateTime": time.time()}
            throughput.update(ReadCapacityUnits=0, WriteCapacityUnits=0)
        elif mode == "PROVISIONED":
            description.pop("BillingModeSummary", None)
        if writes is not None:
            throughput["WriteCapacityUnits"] = writes
        if region in reads:
            throughput["ReadCapacityUnits"] = reads[region]
        description["ProvisionedThroughput"] = throughput
        record = record.with_description(description)
        txn.update_table(record)
        updated.append(record)
    return settings(name, updated)
