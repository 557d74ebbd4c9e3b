"""UpdateTable's ReplicaUpdates and GlobalTableWitnessUpdates: adding and
removing the replicas (and the witness) of a global table, version
2019.11.21, with DynamoDB's rules and messages.

The rules and texts are DynamoDB's as a 2026 survey of it records them
(ack-api-quirks, services/dynamodb: table-replicas and
table-global-tables): replica and witness changes must be the only change
of the request; an EVENTUAL group takes one Create or Delete per call; a
STRONG group is made whole in one call (two replica Creates, or one and a
witness: three regions) and is frozen after, until one call removes every
replica and the witness; the request's own region is neither added nor
removed this way; a PROVISIONED table needs write auto scaling, which
tallydb does not serve, so only PAY_PER_REQUEST tables get replicas. A
table without a stream gets a NEW_AND_OLD_IMAGES one (DynamoDB enables it
itself). Texts not on record are ours and say so.

The answer says UPDATING and lists the replicas as they were; the new
replica is CREATING in the next DescribeTable until the replication
worker has made it, a removed one DELETING until it has gone
(``_replicate``), and then the table is ACTIVE again: boto3's
``table_exists`` waiter and Terraform's replica waiters see DynamoDB's states.
"""

from __future__ import annotations

import time
from typing import Any

from tallydb.engine.api import _streams as streams
from tallydb.engine.api._global import (
    EVENTUAL,
    GLOBAL,
    OUTBOX_SOURCE,
    STRONG,
    VERSIONS_SOURCE,
    catalog_of,
    replication,
)
from tallydb.engine.api._replicate import store_group
from tallydb.engine.errors import ResourceInUseException, ValidationException
from tallydb.engine.storage import TableRecord, Transaction

SHARED_REGIONS = (
    "Global table replicas need each region's own tables, and this tallydb serves one set "
    "of tables to every region: start it with --separate-regions to add replicas")
ONLY_CHANGE = "Requests that modify replicas or witnesses must not also modify other fields"
NO_ACTION = "There are no actions specified in the Replica Update Action of the request."
MANY_ACTIONS = ("Update table operation with more than one create or delete replica actions "
                "not allowed")
MIXED_ACTIONS = "Update table operation with more than one type of replica actions not allowed."
SAME_REGION = "Cannot target multiple regions with the same action"
LOCAL_REGION = ("Cannot add or delete the local region through ReplicaUpdates. Use "
                "CreateTable, DeleteTable, or UpdateTable as required.")
UNSUPPORTED_REGION = ("Region {} is not supported. The latest version of global tables are only "
                      "supported in the following regions: [{}]")
EXISTS = ("Failed to create a the new replica of table with name: \u2018{}\u2019 because one or "
          "more replicas already existed as tables.")
NOT_MEMBER = ("Update global table operation failed because one or more replicas were not part "
              "of the global table. Please retry the request without these replicas: [{}].")
NOT_WITNESS = ("Update global table operation failed because one or more witnesses were not "
               "part of the global table. Please retry the request without these "
               "witnesses: [{}].")
PROVISIONED = "Table write capacity should either be Pay-Per-Request or AutoScaled."
STRONG_COUNT = ("Unsupported replica count for global tables with MultiRegionConsistency set "
                "to STRONG.")
STRONG_REGIONS = ("Unsupported Region(s) specified for global tables with MultiRegionConsistency "
                  "set to STRONG: [{}].")
WITNESS_NEEDS_STRONG = ("MultiRegionConsistency must be set as STRONG when "
                        "GlobalTableWitnessUpdates parameter is present.")
STRONG_CREATES_ONLY = ("Only Replica Create actions are supported when MultiRegionConsistency "
                       "parameter is provided.")
STRONG_EXISTING = "MultiRegionConsistency parameter is unsupported on existing global table"
STRONG_NO_ADD = "Cannot add replicas to a global table with strong MultiRegionConsistency"
STRONG_ONE_DELETE = ("Deletion of only one table replica is not supported for global tables "
                     "with MultiRegionConsistency set to STRONG.")
STRONG_WITNESSES = "Update table delete operation does not include all witnesses."
WITNESS_LOCAL = ("Cannot add a witness in the same region as an existing replica when creating "
                 "a global table with MultiRegionConsistency set to STRONG.")
#: Not on record (ours): what DynamoDB answers for these is unknown.
IN_PROGRESS = "Table is being updated: a replica or witness change is in progress: {}"
STRONG_LSI = ("Local secondary indexes are not supported for global tables with "
              "MultiRegionConsistency set to STRONG")
STRONG_TTL = ("Time to live is not supported for global tables with MultiRegionConsistency "
              "set to STRONG")
LEGACY_GROUP = ("Table {} is a replica of a global table of version 2017.11.29: change its "
                "group with UpdateGlobalTable")
#: Regions DynamoDB's strongly consistent groups cannot use (on record: us-west-1).
NOT_STRONG = frozenset({"us-west-1"})

_regions: list[str] = []


def _known_regions() -> list[str]:
    """The regions of DynamoDB's aws partition, as botocore knows them."""
    if not _regions:
        import botocore.session  # on first use: it loads botocore's whole client

        _regions.extend(botocore.session.get_session().get_available_regions("dynamodb"))
    return _regions


def _actions(request: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(Create|Update|Delete, its member) of each ReplicaUpdates entry, the
    same one given twice once."""
    actions: list[tuple[str, dict[str, Any]]] = []
    for update in request.get("ReplicaUpdates") or ():
        given = [(kind, update[kind]) for kind in ("Create", "Update", "Delete")
                 if update.get(kind) is not None]
        if not given:
            raise ValidationException(NO_ACTION)
        for action in given:
            if action not in actions:
                actions.append(action)
    return actions


def check(request: dict[str, Any], changes: list[str]) -> None:
    """What DynamoDB refuses of a replica or witness change before it looks
    the table up."""
    if set(changes) - {"ReplicaUpdates", "GlobalTableWitnessUpdates"}:
        raise ValidationException(ONLY_CHANGE)
    strong = request.get("MultiRegionConsistency") == STRONG
    witnesses = request.get("GlobalTableWitnessUpdates") or []
    if witnesses and not strong and any("Create" in w for w in witnesses):
        raise ValidationException(WITNESS_NEEDS_STRONG)
    actions = _actions(request)
    known = _known_regions()
    for _, member in actions:
        region = member["RegionName"]
        if region not in known:
            raise ValidationException(UNSUPPORTED_REGION.format(region, ", ".join(known)))
    kinds = {kind for kind, _ in actions}
    if strong:
        if kinds - {"Create"}:
            raise ValidationException(STRONG_CREATES_ONLY)
        created = [member["RegionName"] for _, member in actions]
        witnessed = [w["Create"]["RegionName"] for w in witnesses if "Create" in w]
        if set(created) & set(witnessed):
            raise ValidationException(SAME_REGION)
        if len(created) + len(witnessed) != 2:
            raise ValidationException(STRONG_COUNT)
        refused = sorted(set(created + witnessed) & NOT_STRONG)
        if refused:
            raise ValidationException(STRONG_REGIONS.format(", ".join(refused)))
        return
    if len(kinds) > 1:
        raise ValidationException(MIXED_ACTIONS)
    if sum(1 for kind, _ in actions if kind in ("Create", "Delete")) > 1:
        raise ValidationException(MANY_ACTIONS)


def _in_progress(record: TableRecord) -> bool:
    glob = record.description.get(GLOBAL)
    if glob is None:
        return False
    busy = any(r["ReplicaStatus"] in ("CREATING", "DELETING") for r in glob["Replicas"])
    witness = glob.get("Witness")
    return busy or (witness is not None and witness["WitnessStatus"] != "ACTIVE")


def apply(txn: Transaction, record: TableRecord, request: dict[str, Any]
          ) -> tuple[TableRecord, dict[str, Any] | None]:
    """Change the group; the table's new record, and its group as the
    answer shows it (the replicas as they were)."""
    own = txn.region
    if own is None:
        raise ValidationException(SHARED_REGIONS)
    if _in_progress(record):
        raise ResourceInUseException(IN_PROGRESS.format(record.name))
    glob = record.description.get(GLOBAL)
    if glob is not None and glob.get("Version") == "2017.11.29":
        raise ValidationException(LEGACY_GROUP.format(record.name))
    before = None if glob is None else dict(glob)
    actions = _actions(request)
    witnesses = request.get("GlobalTableWitnessUpdates") or []
    consistency = request.get("MultiRegionConsistency")
    if glob is not None and glob["Consistency"] == STRONG:
        group = _strong_teardown(record, glob, actions, witnesses, consistency)
    elif consistency == STRONG:
        if glob is not None:
            raise ValidationException(STRONG_COUNT)
        group = _strong_group(txn, record, own, actions, witnesses)
    else:
        if consistency is not None and glob is not None:
            raise ValidationException(STRONG_EXISTING)
        group = _eventual_change(txn, record, own, glob, actions)
    record = _prepare(txn, record, group)
    store_group(txn, record.name, group, status="UPDATING")
    replication(txn).nudge()
    updated = txn.table_in(record.catalog, record.name)
    assert updated is not None
    return updated, before


def _entry(region: str, member: dict[str, Any], by: str) -> dict[str, Any]:
    entry: dict[str, Any] = {"RegionName": region, "ReplicaStatus": "CREATING", "_By": by}
    for name in ("KMSMasterKeyId", "ProvisionedThroughputOverride", "OnDemandThroughputOverride",
                 "GlobalSecondaryIndexes"):
        if member.get(name) is not None:
            entry[name] = member[name]
    if member.get("TableClassOverride") is not None:
        entry["ReplicaTableClassSummary"] = {"TableClass": member["TableClassOverride"],
                                             "LastUpdateDateTime": time.time()}
    return entry


def _check_create(txn: Transaction, record: TableRecord, own: str, region: str) -> None:
    if region == own:
        raise ValidationException(LOCAL_REGION)
    if txn.table_in(catalog_of(region), record.name) is not None:
        raise ValidationException(EXISTS.format(record.name))


def _eventual_change(txn: Transaction, record: TableRecord, own: str,
                     glob: dict[str, Any] | None, actions: list[tuple[str, dict[str, Any]]]
                     ) -> dict[str, Any]:
    replicas = [dict(r) for r in glob["Replicas"]] if glob is not None else [
        {"RegionName": own, "ReplicaStatus": "ACTIVE"}]
    regions = [r["RegionName"] for r in replicas]
    for kind, member in actions:
        region = member["RegionName"]
        if kind == "Create":
            if region in regions and region != own:
                raise ValidationException(EXISTS.format(record.name))
            _check_create(txn, record, own, region)
            summary = record.description.get("BillingModeSummary") or {}
            if summary.get("BillingMode") != "PAY_PER_REQUEST":
                raise ValidationException(PROVISIONED)
            replicas.append(_entry(region, member, own))
        else:
            if region == own:
                raise ValidationException(LOCAL_REGION)
            if region not in regions:
                raise ValidationException(NOT_MEMBER.format(region))
            entry = replicas[regions.index(region)]
            if kind == "Delete":
                entry.update(ReplicaStatus="DELETING", _By=own)
            else:
                entry.update({k: v for k, v in _entry(region, member, own).items()
                              if k not in ("ReplicaStatus", "_By")})
    return {"Consistency": EVENTUAL, "Replicas": replicas}


def _strong_group(txn: Transaction, record: TableRecord, own: str,
                  actions: list[tuple[str, dict[str, Any]]], witnesses: list[dict[str, Any]]
                  ) -> dict[str, Any]:
    replicas = [{"RegionName": own, "ReplicaStatus": "ACTIVE"}]
    for _, member in actions:
        _check_create(txn, record, own, member["RegionName"])
        replicas.append(_entry(member["RegionName"], member, own))
    group: dict[str, Any] = {"Consistency": STRONG, "Replicas": replicas}
    for witness in witnesses:
        region = witness["Create"]["RegionName"]
        if region == own:
            raise ValidationException(WITNESS_LOCAL)
        group["Witness"] = {"RegionName": region, "WitnessStatus": "CREATING", "_By": own}
    if record.description.get("LocalSecondaryIndexes"):
        raise ValidationException(STRONG_LSI)
    if record.description.get("_TimeToLive"):
        raise ValidationException(STRONG_TTL)
    summary = record.description.get("BillingModeSummary") or {}
    if summary.get("BillingMode") != "PAY_PER_REQUEST":
        raise ValidationException(PROVISIONED)
    return group


def _strong_teardown(record: TableRecord, glob: dict[str, Any],
                     actions: list[tuple[str, dict[str, Any]]],
                     witnesses: list[dict[str, Any]], consistency: str | None
                     ) -> dict[str, Any]:
    """A STRONG group takes one change: every other replica and the
    witness removed at once."""
    if consistency is not None:
        raise ValidationException(STRONG_EXISTING)
    if any(kind == "Create" for kind, _ in actions):
        raise ValidationException(STRONG_NO_ADD)
    own = glob["Region"]
    others = {r["RegionName"] for r in glob["Replicas"]} - {own}
    deleted = {member["RegionName"] for kind, member in actions if kind == "Delete"}
    strangers = sorted(deleted - others - {own})
    if own in deleted:
        raise ValidationException(LOCAL_REGION)
    if strangers:
        raise ValidationException(NOT_MEMBER.format(", ".join(strangers)))
    gone = {w["Delete"]["RegionName"] for w in witnesses if "Delete" in w}
    witness = glob.get("Witness")
    if gone - ({witness["RegionName"]} if witness else set()):
        raise ValidationException(NOT_WITNESS.format(", ".join(sorted(gone))))
    if witness is not None and witness["RegionName"] not in gone:
        raise ValidationException(STRONG_WITNESSES)
    if deleted != others:
        raise ValidationException(STRONG_ONE_DELETE)
    replicas = [dict(r, ReplicaStatus="DELETING", _By=own) if r["RegionName"] in deleted
                else dict(r) for r in glob["Replicas"]]
    group: dict[str, Any] = {"Consistency": STRONG, "Replicas": replicas}
    if witness is not None:
        group["Witness"] = {"RegionName": witness["RegionName"], "WitnessStatus": "DELETING",
                            "_By": own}
    return group


def _prepare(txn: Transaction, record: TableRecord, group: dict[str, Any]) -> TableRecord:
    """The asking replica, ready for the group: a stream (NEW_AND_OLD_IMAGES
    unless it has one), and for an EVENTUAL group its items' versions and
    its outbox."""
    description = dict(record.description)
    if streams.CAPTURE not in description:
        streams.enable(description, "NEW_AND_OLD_IMAGES", time.time())
        record = record.with_description(description)
        txn.update_table(record)
        record = streams.with_source(txn, record)
    if group["Consistency"] == EVENTUAL:
        for source in (VERSIONS_SOURCE, OUTBOX_SOURCE):
            if source not in record.indexes:
                record = txn.create_index(record, source)
    return record
