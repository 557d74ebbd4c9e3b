"""DescribeTable, and the table description the table operations share.

The catalog keeps each table's DescribeTable body (``Table``) as it was
last written; members whose names start with ``_`` are tallydb's own
bookkeeping (tags, the day NumberOfDecreasesToday counts) and never leave
the server. A table is ACTIVE as soon as CreateTable returns: DynamoDB's
CREATING/UPDATING/DELETING states appear only in the responses of the
operations that cause them, so a client's waiters find the table ready on
their first look.
"""

from __future__ import annotations

import copy
import time
from typing import Any

from tallydb.engine.api._access import on_table
from tallydb.engine.api._lifecycle import CREATING, PENDING, gone, status_of
from tallydb.engine.api._regions import STORED_REGION, is_stored
from tallydb.engine.errors import ResourceNotFoundException
from tallydb.engine.storage import TableRecord, Transaction

__all__ = [
    "ACCOUNT",
    "GLOBAL",
    "REGION",
    "describe_table",
    "find_table",
    "global_members",
    "index_counts",
    "public_description",
    "table_arn",
    "table_name_of",
    "table_named",
    "table_not_found",
    "utc_day",
]

#: The region of the ARNs the catalog keeps; a response names the request's
#: own (``_regions``).
REGION = STORED_REGION
ACCOUNT = "000000000000"

#: In a global table's replica's description: its group ({"Consistency",
#: "Replicas": [{"RegionName", "ReplicaStatus", overrides}], "Witness", "Region":
#: the replica's own}), kept by ``_global`` and ``_replica_updates``.
GLOBAL = "_Global"
GLOBAL_TABLE_VERSION = "2019.11.21"
#: The members of a replica's entry DescribeTable shows (the rest is tallydb's).
_REPLICA_SHOWN = ("RegionName", "ReplicaStatus", "KMSMasterKeyId",
                  "ProvisionedThroughputOverride", "OnDemandThroughputOverride",
                  "GlobalSecondaryIndexes", "ReplicaTableClassSummary")

#: DescribeTable/DeleteTable/UpdateTable of a missing table (dynalite,
#: recorded against DynamoDB; conformance catalogue 2026).
TABLE_NOT_FOUND = "Requested resource not found: Table: {name} not found"


def table_arn(name: str) -> str:
    return f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/{name}"


def utc_day(when: float | None = None) -> str:
    """The UTC calendar day DynamoDB's per-day throughput limits count in."""
    return time.strftime("%Y-%m-%d", time.gmtime(time.time() if when is None else when))


def table_not_found(name: str) -> ResourceNotFoundException:
    return ResourceNotFoundException(TABLE_NOT_FOUND.format(name=name))


def table_name_of(value: str) -> str:
    """A TableName parameter's table: the name itself, or the name in a
    table ARN (``arn:aws:dynamodb:REGION:ACCOUNT:table/NAME``)."""
    if value.startswith("arn:"):
        _, _, rest = value.partition(":table/")
        return rest
    return value


def table_named(value: Any) -> str | None:
    """The table a TableName parameter names, as ``find_table`` reads it."""
    return table_name_of(value) if isinstance(value, str) else None


def find_table(txn: Transaction, name: str) -> TableRecord:
    """The catalog record of the table a request names, or DynamoDB's
    ResourceNotFoundException naming it."""
    record = txn.table(table_name_of(name))
    if record is None or (name.startswith("arn:") and not is_stored(name)):
        raise table_not_found(name)  # (an ARN of another region's table)
    if PENDING in record.description and gone(record.description):
        raise table_not_found(name)  # deleted, its DELETING over (``_lifecycle``)
    return record


def index_counts(txn: Transaction, record: TableRecord) -> dict[str, tuple[int, int]]:
    """(ItemCount, IndexSizeBytes) of each secondary index."""
    return {name: txn.count_items(record, name)
            for name in record.indexes if not name.startswith("$")}


def public_description(
    description: dict[str, Any],
    *,
    status: str | None = None,
    counts: tuple[int, int] | None = None,
    index_status: str | None = None,
    indexes: dict[str, tuple[int, int]] | None = None,
) -> dict[str, Any]:
    """A copy of a stored description as a client sees it: without tallydb's
    own ``_`` members, with NumberOfDecreasesToday back to 0 on a new UTC day,
    and with ``status``/``index_status`` (TableStatus, GSI IndexStatus),
    ``counts`` (ItemCount, TableSizeBytes) and ``indexes`` (each index's
    ItemCount, IndexSizeBytes) put in when given."""
    shown = {k: copy.deepcopy(v) for k, v in description.items() if not k.startswith("_")}
    if description.get("_DecreasesDay") not in (None, utc_day()):
        shown["ProvisionedThroughput"]["NumberOfDecreasesToday"] = 0
    if status is not None:
        shown["TableStatus"] = status
    if counts is not None:
        shown["ItemCount"], shown["TableSizeBytes"] = counts
    if index_status is not None:
        for index in shown.get("GlobalSecondaryIndexes", ()):
            index["IndexStatus"] = index_status
    if indexes:
        for member in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
            for index in shown.get(member, ()):
                if index["IndexName"] in indexes:
                    index["ItemCount"], index["IndexSizeBytes"] = indexes[index["IndexName"]]
    group = description.get(GLOBAL)
    if group is not None and group.get("Version") != "2017.11.29":  # a legacy group shows not
        global_members(group, shown)
    return shown


def global_members(group: dict[str, Any], shown: dict[str, Any]) -> None:
    """A replica's group as DynamoDB describes it: GlobalTableVersion, the
    other replicas (never itself), the settings replication mode, and for a
    STRONG group its consistency and witness (DynamoDB shows EVENTUAL by
    saying nothing)."""
    own = group["Region"]
    shown["GlobalTableVersion"] = GLOBAL_TABLE_VERSION
    shown["Replicas"] = [
        {name: copy.deepcopy(replica[name]) for name in _REPLICA_SHOWN if name in replica}
        for replica in group["Replicas"] if replica["RegionName"] != own]
    shown["GlobalTableSettingsReplicationMode"] = "ENABLED_WITH_OVERRIDES"
    if group["Consistency"] == "STRONG":
        shown["MultiRegionConsistency"] = "STRONG"
        witness = group.get("Witness")
        if witness is not None:
            shown["GlobalTableWitnesses"] = [
                {"RegionName": witness["RegionName"], "WitnessStatus": witness["WitnessStatus"]}]


#: What a request touches (``_access``): reads the table its TableName names.
ACCESS = on_table("DescribeTable", write=False, read=table_named)


def describe_table(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    record = find_table(txn, request["TableName"])
    status = status_of(record.description)
    return {"Table": public_description(
        record.description, counts=txn.count_items(record), indexes=index_counts(txn, record),
        status=status, index_status="CREATING" if status == CREATING else None)}
