"""The replication worker's round: global tables' replica and witness
changes, then the changes waiting in replicas' outboxes (``_global``).

A round runs in one store transaction, so what it applies and what it
deletes from an outbox commit together: a change is sent once, and a crash
before the commit leaves it in the outbox for the next round (after a
restart, the first). Rounds run on the engine's replication thread
(``tallydb.engine.replicator``).

A new replica is made here from the replica whose region asked for it:
its settings (keys, indexes, billing, encryption, table class, TTL; a
stream of the same view), every item with its version, every index entry.
Changes still in any outbox reach it with the others, last writer winning
as everywhere. A replica being removed first sends what its outbox still
holds, however recent, then its table is deleted (its streams kept, as
DeleteTable keeps them).
"""

from __future__ import annotations

import time
import uuid
from itertools import islice
from typing import Any

from tallydb.engine.api import _streams as streams
from tallydb.engine.api._global import (
    GLOBAL,
    OUTBOX_SOURCE,
    VERSIONS_SOURCE,
    catalog_of,
    outbox_shard,
    peers,
    region_of,
    version_of,
)
from tallydb.engine.api._indexes import TTL_INDEX, build_indexes, write_item
from tallydb.engine.api._stream_records import STREAM_SOURCE
from tallydb.engine.api._tables import KeySchema
from tallydb.engine.api.describe_table import table_arn
from tallydb.engine.storage import TableRecord, Transaction
from tallydb.engine.values import Item

#: Outbox changes one round sends at most (a round holds the writer).
ROUND_CHANGES = 5_000
#: What a new replica copies of its source's description.
_COPIED = (
    "AttributeDefinitions", "KeySchema", "ProvisionedThroughput", "BillingModeSummary",
    "LocalSecondaryIndexes", "GlobalSecondaryIndexes", "SSEDescription", "TableClassSummary",
    "OnDemandThroughput", "WarmThroughput", "_TimeToLive",
    "_TimeToLiveChanged",
)
#: The sources a new replica's rows are copied from, beside the items.
_COPIED_SOURCES = (TTL_INDEX, VERSIONS_SOURCE)


def replicate(txn: Transaction, now_ns: int, delay_ns: int) -> int | None:
    """One round: replica and witness changes, then every outbox row at
    least ``delay_ns`` old; ns until the next row is due (0: more is due
    now; None: no row waits)."""
    _settle(txn)
    return _send(txn, now_ns, delay_ns)


# --- replicas and witnesses -------------------------------------------------------------


def _settle(txn: Transaction) -> None:
    """Make the replicas asked for, remove those asked to go, and bring
    witnesses and tables to ACTIVE when nothing is left in progress."""
    for record in [r for r in txn.all_tables() if GLOBAL in r.description]:
        current = txn.table_in(record.catalog, record.name)
        if current is None or GLOBAL not in current.description:
            continue
        glob = current.description[GLOBAL]
        own = region_of(current)
        if not any(replica.get("_By") == own for replica in glob["Replicas"]) and (
                glob.get("Witness", {}).get("_By") != own):
            continue
        _settle_group(txn, current)


def _settle_group(txn: Transaction, source: TableRecord) -> None:
    glob = source.description[GLOBAL]
    own = region_of(source)
    replicas = []
    for replica in glob["Replicas"]:
        replica = dict(replica)
        if replica.get("_By") == own:
            del replica["_By"]
            if replica["ReplicaStatus"] == "CREATING":
                made = _make_replica(txn, source, replica["RegionName"])
                replica["ReplicaStatus"] = "ACTIVE" if made else "CREATION_FAILED"
            elif replica["ReplicaStatus"] == "DELETING":
                _remove_replica(txn, source.name, replica["RegionName"])
                continue
        replicas.append(replica)
    group = {**glob, "Replicas": replicas}
    witness = glob.get("Witness")
    if witness is not None and witness.get("_By") == own:
        if witness["WitnessStatus"] == "DELETING":
            del group["Witness"]
        else:
            group["Witness"] = {"RegionName": witness["RegionName"], "WitnessStatus": "ACTIVE"}
    store_group(txn, source.name, group, status="ACTIVE")


def store_group(txn: Transaction, name: str, group: dict[str, Any], *,
                status: str | None = None, also: tuple[str, ...] = ()) -> None:
    """Keep ``group`` in every member's description (and in the tables of
    ``also``, regions leaving it, without it); a group of one replica is no
    group: its table goes back to being a regional one. ``status``: each
    member's TableStatus from now on."""
    regions = [r["RegionName"] for r in group["Replicas"]]
    alone = len(regions) < 2 and "Witness" not in group
    for region in (*regions, *also):
        record = txn.table_in(catalog_of(region), name)
        if record is None:
            continue
        description = dict(record.description)
        if alone or region in also:
            description.pop(GLOBAL, None)
        else:
            description[GLOBAL] = {**group, "Region": region}
        if status is not None:
            description["TableStatus"] = status
        txn.update_table(record.with_description(description))


def _replica_description(source: dict[str, Any], now: float) -> dict[str, Any]:
    description = {name: source[name] for name in _COPIED if name in source}
    description.update(
        TableName=source["TableName"], TableArn=table_arn(source["TableName"]),
        TableId=str(uuid.uuid4()), CreationDateTime=now, TableStatus="ACTIVE",
        TableSizeBytes=0, ItemCount=0, DeletionProtectionEnabled=False)
    view = source.get("StreamSpecification", {}).get("StreamViewType")
    if view is not None:
        streams.enable(description, view, now)
    return description


def _make_replica(txn: Transaction, source: TableRecord, region: str) -> bool:
    """Make the replica of ``source`` in ``region``, filled; False if that
    region has a table of that name already (made since it was asked for)."""
    catalog = catalog_of(region)
    if txn.table_in(catalog, source.name) is not None:
        return False
    description = _replica_description(source.description, time.time())
    asked_in = txn.catalog
    txn.catalog = catalog
    try:
        record = txn.create_table(source.name, description)
    finally:
        txn.catalog = asked_in
    declared = [index["IndexName"] for member in ("GlobalSecondaryIndexes",
                                                   "LocalSecondaryIndexes")
                for index in description.get(member, ())]
    for index in (*declared, *_COPIED_SOURCES):
        if index in source.indexes and index not in record.indexes:
            record = txn.create_index(record, index)
    if streams.CAPTURE in description:
        record = streams.with_source(txn, record)
    if OUTBOX_SOURCE not in record.indexes:
        record = txn.create_index(record, OUTBOX_SOURCE)
    txn.copy_rows(source, record)
    for index in record.indexes:
        if index in source.indexes and index not in (STREAM_SOURCE, OUTBOX_SOURCE):
            txn.copy_rows(source, record, index)
    return True


def _remove_replica(txn: Transaction, name: str, region: str) -> None:
    """Send what the replica's outbox holds, then delete its table."""
    record = txn.table_in(catalog_of(region), name)
    if record is None:
        return
    _send_table(txn, record, None, 0)
    streams.retire(txn, txn.table_in(catalog_of(region), name) or record)


# --- outboxes ---------------------------------------------------------------------------


def _send(txn: Transaction, now_ns: int, delay_ns: int) -> int | None:
    due: int | None = None
    budget = ROUND_CHANGES
    for record in txn.all_tables():
        glob = record.description.get(GLOBAL)
        if glob is None or OUTBOX_SOURCE not in record.indexes:
            continue
        waits, budget = _send_table(txn, record, now_ns - delay_ns, budget)
        if waits is not None:
            wait = max(0, waits + delay_ns - now_ns)
            due = wait if due is None else min(due, wait)
        if budget <= 0:
            return 0
    return due


def _send_table(txn: Transaction, record: TableRecord, before: int | None, budget: int
                ) -> tuple[int | None, int]:
    """Send a replica's outbox rows written before ``before`` (None: all of
    them) to the other replicas; (the stamp of the first row left, budget left)."""
    glob = record.description.get(GLOBAL)
    targets = [] if glob is None else [
        (peer, KeySchema.of_table(peer.description), build_indexes(peer))
        for peer in peers(txn, record, glob, ("ACTIVE", "UPDATING"))]
    rows = list(islice(txn.items(record, outbox_shard(), index=OUTBOX_SOURCE),
                       max(budget, 1) if before is not None else None))
    for _, rk, changes in rows:
        stamp = int.from_bytes(rk, "big")
        if before is not None and stamp > before:
            return stamp, budget
        for change in changes:
            for peer, keys, indexes in targets:
                _apply(txn, peer, keys, indexes, change)
        txn.delete_entry(record, OUTBOX_SOURCE, outbox_shard(), rk)
        budget -= len(changes)
        if before is not None and budget <= 0:
            break
    return None, budget


def _apply(txn: Transaction, peer: TableRecord, keys: KeySchema, indexes: Any,
           change: list[Any]) -> None:
    """Apply one replicated change to a replica if it is the later write
    (a legacy group's item with DynamoDB's ``aws:rep:`` attributes)."""
    stamp, region, key, new = change
    hk, rk = keys.encode(key)
    if version_of(txn.get_entry_blob(peer, VERSIONS_SOURCE, hk, rk)) >= (stamp, region):
        return  # the replica's own item is later: it wins
    if new is not None and peer.description[GLOBAL].get("Version") == "2017.11.29":
        new = {**new, "aws:rep:deleting": {"BOOL": False},
               "aws:rep:updatetime": {"N": f"{stamp / 1e9:.6f}"},
               "aws:rep:updateregion": {"S": region}}
    old: Item | None = txn.get_item(peer, hk, rk)
    write_item(txn, peer, indexes, hk, rk, old, new,
               origin=b"%d %s" % (stamp, region.encode()))


def leave(txn: Transaction, record: TableRecord) -> None:
    """A replica leaving its group (deleted by DeleteTable in its own
    region, or taken out of a legacy group): what its outbox holds is sent
    first, and the group goes on without it."""
    glob = record.description[GLOBAL]
    _send_table(txn, record, None, 0)
    own = region_of(record)
    group = {name: value for name, value in glob.items() if name != "Region"}
    group["Replicas"] = [r for r in glob["Replicas"] if r["RegionName"] != own]
    store_group(txn, record.name, group, also=(own,))


def status(txn: Transaction, now_ns: int) -> list[dict[str, Any]]:
    """Every global table replica's replication, as a console shows it: its
    table and region, its group's other regions, how many of its changes
    wait to be sent, and how long the oldest has waited (its lag, seconds)."""
    found = []
    for record in txn.all_tables():
        glob = record.description.get(GLOBAL)
        if glob is None:
            continue
        waiting, oldest = 0, None
        if OUTBOX_SOURCE in record.indexes:
            for _, rk, changes in txn.items(record, outbox_shard(), index=OUTBOX_SOURCE):
                stamp = int.from_bytes(rk, "big")
                oldest = stamp if oldest is None else min(oldest, stamp)
                waiting += len(changes)
        found.append({
            "TableName": record.name, "RegionName": region_of(record),
            "Replicas": [r["RegionName"] for r in glob["Replicas"]],
            "Consistency": glob["Consistency"], "PendingChanges": waiting,
            "LagSeconds": 0.0 if oldest is None else max(0.0, (now_ns - oldest) / 1e9)})
    return found
