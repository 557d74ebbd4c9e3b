"""UpdateTable: billing mode, provisioned throughput, on-demand limits,
deletion protection and table class, with DynamoDB's rules and messages.

Sources: dynalite's tests (recorded against DynamoDB), the cortexproject
bug-report log (the "will not change" text), nubo-db/dynamodb-conformance
(2026) and its catalogue of DynamoDB's messages (2026).

The change applies at once. As DynamoDB does, the answer to a throughput or
billing change describes the table as it was, with TableStatus UPDATING;
the next DescribeTable shows the new values and ACTIVE, so waiters succeed
on their first look. Deletion protection, table class and on-demand limits
change synchronously in DynamoDB too and are answered with the new values.

GlobalSecondaryIndexUpdates (create, delete, update a GSI) are
``_gsi_updates``' business.

ReplicaUpdates and GlobalTableWitnessUpdates (global tables) are
``_replica_updates``' business: they are the only change of their request.

Not yet: encryption changes, refused with a ValidationException that says
so rather than silently ignored.
"""

from __future__ import annotations

import time
from typing import Any

from tallydb.engine.api import _lifecycle as lifecycle
from tallydb.engine.api import _replica_updates as replica_updates
from tallydb.engine.api import _streams as streams
from tallydb.engine.api import _warm_throughput as warm
from tallydb.engine.api._access import on_table
from tallydb.engine.api._global import peers
from tallydb.engine.api._gsi_updates import (
    GsiChanges,
    answer,
    check_gsi_updates,
    describe_changes,
    plan_gsi_updates,
    store_changes,
)
from tallydb.engine.api._table_class import check_table_class
from tallydb.engine.api.create_table import invalid, out_of_bounds
from tallydb.engine.api.describe_table import (
    GLOBAL,
    find_table,
    global_members,
    index_counts,
    public_description,
    table_named,
    utc_day,
)
from tallydb.engine.errors import ValidationException
from tallydb.engine.storage import TableRecord, Transaction

#: The members DynamoDB's "At least one of ..." message names, in its order
#: (conformance catalogue 2026). Members the request carries are left out.
CHANGE_MEMBERS = (
    "ProvisionedThroughput", "BillingMode", "UpdateStreamEnabled",
    "GlobalSecondaryIndexUpdates", "SSESpecification", "ReplicaUpdates",
    "MultiAccountReplicaReady", "ReplicaTransitRoleArn", "MultiRegionConsistency",
    "DeletionProtectionEnabled", "OnDemandThroughput", "WarmThroughput", "TableClass",
)
#: Request members that are a change on their own (MultiRegionConsistency
#: alone is not, nor GlobalTableWitnessUpdates alone, nor an empty
#: GlobalSecondaryIndexUpdates).
_CHANGING = (
    "ProvisionedThroughput", "BillingMode", "StreamSpecification", "GlobalSecondaryIndexUpdates",
    "SSESpecification", "ReplicaUpdates", "DeletionProtectionEnabled", "OnDemandThroughput",
    "WarmThroughput", "TableClass",
)
#: A global table's stream cannot be disabled (DynamoDB's text, as users of
#: terraform-aws-modules quote it); enabling it again is refused as on any table.
GLOBAL_STREAM = ("One or more parameter values were invalid: Disabling Stream is not allowed for a "
                 "Global Table replica.")
#: Changes DynamoDB takes only on their own, with its words for each.
_ALONE = {
    "SSESpecification": "Server-Side Encryption modification",
    "TableClass": "TableClass modification",
    "DeletionProtectionEnabled": "DeletionProtection modification",
    "WarmThroughput": "WarmThroughput",
}
_UNSUPPORTED = ("SSESpecification",)

WILL_NOT_CHANGE = (
    "The provisioned throughput for the table will not change. The requested value equals "
    "the current value. Current ReadCapacityUnits provisioned for the table: {read}. "
    "Requested ReadCapacityUnits: {new_read}. Current WriteCapacityUnits provisioned for the "
    "table: {write}. Requested WriteCapacityUnits: {new_write}. Refer to the Amazon DynamoDB "
    "Developer Guide for current limits and how to request higher limits."
)


def _present(request: dict[str, Any], member: str) -> bool:
    value = request.get(member)
    if member in _EMPTY_IS_ABSENT:
        return bool(value)
    return value is not None


#: Members DynamoDB counts as absent when empty: an empty WarmThroughput or
#: OnDemandThroughput beside another change is ignored (catalogue 2026).
_EMPTY_IS_ABSENT = ("GlobalSecondaryIndexUpdates", "WarmThroughput", "OnDemandThroughput")


def _check_request(request: dict[str, Any]) -> list[str]:
    """The checks DynamoDB makes before it looks the table up; the changes asked."""
    changes = [m for m in _CHANGING if _present(request, m)]
    if not changes:
        shown = [
            m for m in CHANGE_MEMBERS
            if request.get("StreamSpecification" if m == "UpdateStreamEnabled" else m) is None
            or m == "GlobalSecondaryIndexUpdates"
        ]
        raise ValidationException(
            f"At least one of {', '.join(shown[:-1])} or {shown[-1]} is required"
        )
    check_table_class(request)
    if "ReplicaUpdates" in changes:
        replica_updates.check(request, changes)
        return changes
    if request.get("GlobalSecondaryIndexUpdates") == []:
        raise invalid("List of GlobalSecondaryIndexUpdates is empty")
    check_gsi_updates(request)
    provisioned = request.get("ProvisionedThroughput")
    if provisioned is not None:
        error = out_of_bounds(provisioned)
        if error is not None:
            raise error
    # a change that must come alone first (DynamoDB's, recorded: DeletionProtection
    # with BillingMode PROVISIONED and no throughput is refused for coming with it)
    for member, words in _ALONE.items():
        if member in changes and len(changes) > 1:
            raise invalid(f"{words} must be the only operation in the request")
    if "OnDemandThroughput" in changes and set(changes) - {"OnDemandThroughput", "BillingMode"}:
        raise invalid("OnDemandThroughput can only be combined with BillingMode in an "
                      "UpdateTable request")
    mode = request.get("BillingMode")
    if mode == "PAY_PER_REQUEST" and provisioned is not None:
        raise invalid(
            "ProvisionedThroughput cannot be specified when BillingMode is PAY_PER_REQUEST")
    if mode == "PROVISIONED" and provisioned is None:
        raise invalid("ProvisionedThroughput must be specified when BillingMode is PROVISIONED")
    specification = request.get("StreamSpecification")
    if specification is not None and specification.get("StreamEnabled") and (
            specification.get("StreamViewType") is None):
        raise ValidationException(streams.VIEW_TYPE_REQUIRED)
    for member in _UNSUPPORTED:
        if _present(request, member):
            raise ValidationException(f"tallydb does not support UpdateTable {member} yet")
    return changes


def _billing_mode(description: dict[str, Any]) -> str:
    summary = description.get("BillingModeSummary")
    return summary["BillingMode"] if summary else "PROVISIONED"


def _set_throughput(description: dict[str, Any], provisioned: dict[str, Any], now: float) -> None:
    """New provisioned capacity, with DynamoDB's increase/decrease bookkeeping."""
    current = dict(description["ProvisionedThroughput"])
    read, write = provisioned["ReadCapacityUnits"], provisioned["WriteCapacityUnits"]
    if read > current["ReadCapacityUnits"] or write > current["WriteCapacityUnits"]:
        current["LastIncreaseDateTime"] = now
    if read < current["ReadCapacityUnits"] or write < current["WriteCapacityUnits"]:
        today = utc_day(now)
        decreases = current["NumberOfDecreasesToday"]
        if description.get("_DecreasesDay") != today:
            decreases = 0
        current["LastDecreaseDateTime"] = now
        current["NumberOfDecreasesToday"] = decreases + 1
        description["_DecreasesDay"] = today
    current["ReadCapacityUnits"], current["WriteCapacityUnits"] = read, write
    description["ProvisionedThroughput"] = current


def _change_billing(
    description: dict[str, Any], request: dict[str, Any], now: float, gsis: GsiChanges
) -> bool:
    """Apply BillingMode/ProvisionedThroughput; whether anything was asked of them."""
    mode = request.get("BillingMode")
    provisioned = request.get("ProvisionedThroughput")
    if mode is None and provisioned is None:
        return False
    current = _billing_mode(description)
    if mode == "PAY_PER_REQUEST":
        if provisioned is not None:
            raise invalid(
                "ProvisionedThroughput cannot be specified when BillingMode is PAY_PER_REQUEST"
            )
        if current != "PAY_PER_REQUEST":
            description["ProvisionedThroughput"] = {
                **description["ProvisionedThroughput"], "ReadCapacityUnits": 0,
                "WriteCapacityUnits": 0,
            }
            for index in description.get("GlobalSecondaryIndexes", ()):
                index["ProvisionedThroughput"] = {
                    **index["ProvisionedThroughput"], "ReadCapacityUnits": 0,
                    "WriteCapacityUnits": 0,
                }
            description["BillingModeSummary"] = {
                "BillingMode": "PAY_PER_REQUEST", "LastUpdateToPayPerRequestDateTime": now,
            }
        return True
    if provisioned is None:  # BillingMode PROVISIONED alone
        raise invalid("ProvisionedThroughput must be specified when BillingMode is PROVISIONED")
    if mode is None and current == "PAY_PER_REQUEST":
        raise invalid(
            "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when "
            "BillingMode is PAY_PER_REQUEST"
        )
    if current == "PAY_PER_REQUEST":
        # A switch needs each GSI's capacity in the same call (catalogue 2026),
        # which only GlobalSecondaryIndexUpdates can carry.
        for index in description.get("GlobalSecondaryIndexes", ()):
            given = gsis.updates.get(index["IndexName"], {})
            if given.get("ProvisionedThroughput") is None:
                raise invalid(
                    f"ProvisionedThroughput must be specified for index: {index['IndexName']}"
                )
        description["BillingModeSummary"] = {
            "BillingMode": "PROVISIONED",
            "LastUpdateToPayPerRequestDateTime": description["BillingModeSummary"][
                "LastUpdateToPayPerRequestDateTime"
            ],
        }
        pt = description["ProvisionedThroughput"]
        description["ProvisionedThroughput"] = {
            "NumberOfDecreasesToday": pt["NumberOfDecreasesToday"],
            "ReadCapacityUnits": provisioned["ReadCapacityUnits"],
            "WriteCapacityUnits": provisioned["WriteCapacityUnits"],
        }
        return True
    pt = description["ProvisionedThroughput"]
    if (
        provisioned["ReadCapacityUnits"] == pt["ReadCapacityUnits"]
        and provisioned["WriteCapacityUnits"] == pt["WriteCapacityUnits"]
    ):
        raise ValidationException(WILL_NOT_CHANGE.format(
            read=pt["ReadCapacityUnits"], new_read=provisioned["ReadCapacityUnits"],
            write=pt["WriteCapacityUnits"], new_write=provisioned["WriteCapacityUnits"],
        ))
    _set_throughput(description, provisioned, now)
    return True


def _change_on_demand(description: dict[str, Any], on_demand: dict[str, Any]) -> None:
    if _billing_mode(description) != "PAY_PER_REQUEST":
        member = next(iter(on_demand), "MaxReadRequestUnits")
        raise invalid(
            f"{member} for OnDemandThroughput cannot be specified when the table "
            "BillingMode is PROVISIONED"
        )
    merged = dict(description.get("OnDemandThroughput") or {})
    for member, units in on_demand.items():
        if units == -1:  # -1 lifts the limit (catalogue 2026)
            merged.pop(member, None)
        else:
            merged[member] = units
    if merged:
        description["OnDemandThroughput"] = merged
    else:
        description.pop("OnDemandThroughput", None)


def _replica_change(txn: Transaction, record: TableRecord, request: dict[str, Any]
                    ) -> dict[str, Any]:
    """A global table's replicas or witness changed: the answer says
    UPDATING and shows the replicas as they were."""
    updated, group = replica_updates.apply(txn, record, request)
    shown = public_description(updated.description, status="UPDATING",
                               counts=txn.count_items(updated),
                               indexes=index_counts(txn, updated))
    if group is None:
        shown["Replicas"] = []
    else:
        global_members(group, shown)
    return {"TableDescription": shown}


def _gsis_of_the_group(txn: Transaction, record: TableRecord, group: dict[str, Any],
                       request: dict[str, Any]) -> None:
    """A global table's indexes are the group's, as on DynamoDB: the other
    replicas get (and fill from their own items) or drop the same index."""
    for peer in peers(txn, record, group):
        changes = plan_gsi_updates(peer, request)
        description = dict(peer.description)
        describe_changes(description, request, changes)
        updated = peer.with_description(description)
        txn.update_table(updated)
        store_changes(txn, updated, changes)


#: What a request touches (``_access``): writes the table its TableName names.
ACCESS = on_table("UpdateTable", write=True, read=table_named)


def validate(request: dict[str, Any]) -> list[str]:
    """The checks DynamoDB makes before it looks the table up; the changes asked."""
    return _check_request(request)


def update_table(txn: Transaction, request: dict[str, Any], changes: list[str]
                 ) -> dict[str, Any]:
    record = find_table(txn, request["TableName"])
    lifecycle.check_changeable(record, deleting_too=True)
    if "ReplicaUpdates" in changes:
        return _replica_change(txn, record, request)
    before = record.description
    description = {
        k: (dict(v) if isinstance(v, dict) else v) for k, v in before.items()
    }
    if "GlobalSecondaryIndexes" in before:
        description["GlobalSecondaryIndexes"] = [
            dict(index) for index in before["GlobalSecondaryIndexes"]
        ]
    now = time.time()
    gsis = plan_gsi_updates(record, request)
    capacity_changed = _change_billing(description, request, now, gsis)
    if request.get("OnDemandThroughput") is not None:
        _change_on_demand(description, request["OnDemandThroughput"])
    if request.get("DeletionProtectionEnabled") is not None:
        description["DeletionProtectionEnabled"] = bool(request["DeletionProtectionEnabled"])
    if request.get("TableClass") is not None:
        description["TableClassSummary"] = {
            "TableClass": request["TableClass"], "LastUpdateDateTime": now,
        }
    if request.get("WarmThroughput") is not None:
        description["WarmThroughput"] = warm.table_units(description, request["WarmThroughput"])
    if request.get("StreamSpecification") is not None:
        # a replica's stream stays on; enabling it again is refused as on any table
        if GLOBAL in before and not request["StreamSpecification"].get("StreamEnabled"):
            raise ValidationException(GLOBAL_STREAM)
        streams.change(description, request["StreamSpecification"], now)
    describe_changes(description, request, gsis)
    if capacity_changed or gsis.updates:
        warm.follow_capacity(description)
    lifecycle.begin(txn, description, lifecycle.UPDATING, now)
    # A new record, never the old one changed in place: a rolled-back
    # transaction puts the old record back in the catalog.
    updated = record.with_description(description)
    txn.update_table(updated)
    updated = store_changes(txn, updated, gsis)
    group = before.get(GLOBAL)
    if group is not None and request.get("GlobalSecondaryIndexUpdates"):
        _gsis_of_the_group(txn, record, group, request)
    if streams.CAPTURE in description:
        updated = streams.with_source(txn, updated)
    counts = txn.count_items(record)
    online = gsis.create is not None or gsis.delete is not None
    if capacity_changed and not online:
        shown = public_description(before, status="UPDATING", counts=counts,
                                   indexes=index_counts(txn, record))
    else:
        shown = public_description(description, status="UPDATING" if online else None,
                                   counts=counts, indexes=index_counts(txn, updated))
    deleted = next((dict(i) for i in before.get("GlobalSecondaryIndexes", ())
                    if i["IndexName"] == gsis.delete), None)
    answer(shown, deleted, gsis)
    return {"TableDescription": shown}
