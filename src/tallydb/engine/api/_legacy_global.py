"""Global tables version 2017.11.29 (legacy): a group made of tables that
exist already, one per region, joined by CreateGlobalTable and changed by
UpdateGlobalTable, described by DescribeGlobalTable, ListGlobalTables and
the GlobalTableSettings operations.

Its rules, as DynamoDB documented them: every table of the group has the
group's name and key schema, exists before it joins, is empty, and has a
NEW_AND_OLD_IMAGES stream; leaving the group keeps the table. A legacy
group replicates as a 2019.11.21 one in eventual consistency (``_global``,
``_replicate``), and DynamoDB's bookkeeping attributes ride on each
replicated item (``aws:rep:updateregion``, ``aws:rep:updatetime``,
``aws:rep:deleting``). DescribeTable does not show a legacy group (no
GlobalTableVersion), and the legacy operations do not see a 2019.11.21 one
(GlobalTableNotFoundException), as on DynamoDB.

DynamoDB itself has refused CreateGlobalTable for new groups since 2026
("global tables version 2017.11.29 is not supported"); tallydb keeps
serving the legacy operations so that code managing groups made before can
be run. Texts: GlobalTableNotFoundException's are on record (a 2026 survey
of DynamoDB); the others are not, and are ours.
"""

from __future__ import annotations

import time
from typing import Any

from tallydb.engine.api._global import EVENTUAL, GLOBAL, OUTBOX_SOURCE, VERSIONS_SOURCE, catalog_of
from tallydb.engine.api._replica_updates import SHARED_REGIONS
from tallydb.engine.api._replicate import store_group
from tallydb.engine.api._streams import CAPTURE
from tallydb.engine.api.describe_table import ACCOUNT
from tallydb.engine.errors import (
    GlobalTableNotFoundException,
    TableNotFoundException,
    ValidationException,
)
from tallydb.engine.storage import TableRecord, Transaction

LEGACY = "2017.11.29"
#: On record (DescribeGlobalTable, and the settings operations).
NOT_FOUND = "Global table not found: Global table with name: '{}' does not exist."
SETTINGS_NOT_FOUND = "Global table with name: '{}' does not exist."
#: Not on record: ours.
TABLE_MISSING = "Table not found: {} in region {}"
NOT_EMPTY = ("One or more parameter values were invalid: Table {} in region {} is not empty; "
             "only empty tables can join a global table")
NO_STREAM = ("One or more parameter values were invalid: Table {} in region {} needs a stream "
             "with StreamViewType NEW_AND_OLD_IMAGES to join a global table")
OTHER_KEYS = ("One or more parameter values were invalid: Table {} in region {} has another key "
              "schema than the global table's")


def global_table_arn(name: str) -> str:
    """A global table's ARN names no region."""
    return f"arn:aws:dynamodb::{ACCOUNT}:global-table/{name}"


def regional(txn: Transaction) -> str:
    """The request's region; with shared regions there are no groups."""
    if txn.region is None:
        raise ValidationException(SHARED_REGIONS)
    return txn.region


def find_group(txn: Transaction, name: str, message: str = NOT_FOUND
               ) -> tuple[dict[str, Any], list[TableRecord]]:
    """A legacy group by name, and its tables, or GlobalTableNotFoundException."""
    for record in txn.all_tables():
        group = record.description.get(GLOBAL)
        if record.name == name and group is not None and group.get("Version") == LEGACY:
            tables = [t for t in (txn.table_in(catalog_of(r["RegionName"]), name)
                                  for r in group["Replicas"]) if t is not None]
            return group, tables
    raise GlobalTableNotFoundException(message.format(name))


def joining(txn: Transaction, name: str, region: str, keys: Any = None) -> TableRecord:
    """The table of ``region`` that joins a group, checked."""
    record = txn.table_in(catalog_of(region), name)
    if record is None:
        raise TableNotFoundException(TABLE_MISSING.format(name, region))
    capture = record.description.get(CAPTURE)
    if capture is None or capture["view"] != "NEW_AND_OLD_IMAGES":
        raise ValidationException(NO_STREAM.format(name, region))
    if keys is not None and record.description["KeySchema"] != keys:
        raise ValidationException(OTHER_KEYS.format(name, region))
    if txn.count_items(record)[0]:
        raise ValidationException(NOT_EMPTY.format(name, region))
    return record


def join(txn: Transaction, name: str, regions: list[str], created: float) -> dict[str, Any]:
    """Make ``regions``' tables the group (each ready to send and version
    its changes); the group."""
    group = {"Version": LEGACY, "Consistency": EVENTUAL, "Created": created,
             "Replicas": [{"RegionName": r, "ReplicaStatus": "ACTIVE"} for r in regions]}
    for region in regions:
        record = txn.table_in(catalog_of(region), name)
        assert record is not None
        for source in (VERSIONS_SOURCE, OUTBOX_SOURCE):
            if source not in record.indexes:
                record = txn.create_index(record, source)
    store_group(txn, name, group)
    return group


def description(name: str, group: dict[str, Any], status: str = "ACTIVE") -> dict[str, Any]:
    """A GlobalTableDescription."""
    return {
        "ReplicationGroup": [{"RegionName": r["RegionName"]} for r in group["Replicas"]],
        "GlobalTableArn": global_table_arn(name),
        "CreationDateTime": group.get("Created", time.time()),
        "GlobalTableStatus": status,
        "GlobalTableName": name,
    }


def settings(name: str, tables: list[TableRecord]) -> dict[str, Any]:
    """DescribeGlobalTableSettings' answer."""
    replicas = []
    for record in tables:
        table = record.description
        mode = (table.get("BillingModeSummary") or {}).get("BillingMode", "PROVISIONED")
        throughput = table["ProvisionedThroughput"]
        replicas.append({
            "RegionName": record.catalog or "us-east-1",
            "ReplicaStatus": "ACTIVE",
            "ReplicaBillingModeSummary": {"BillingMode": mode},
            "ReplicaProvisionedReadCapacityUnits": throughput["ReadCapacityUnits"],
            "ReplicaProvisionedWriteCapacityUnits": throughput["WriteCapacityUnits"],
            "ReplicaGlobalSecondaryIndexSettings": [
                {"IndexName": index["IndexName"], "IndexStatus": "ACTIVE",
                 "ProvisionedReadCapacityUnits": index["ProvisionedThroughput"][
                     "ReadCapacityUnits"],
                 "ProvisionedWriteCapacityUnits": index["ProvisionedThroughput"][
                     "WriteCapacityUnits"]}
                for index in table.get("GlobalSecondaryIndexes", ())],
        })
    return {"GlobalTableName": name, "ReplicaSettings": replicas}
