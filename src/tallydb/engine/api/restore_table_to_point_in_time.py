"""RestoreTableToPointInTime: a new table holding a table's items as they
were at a second of its recovery window, its indexes with them.

The source table is named by SourceTableName or SourceTableArn; the time
is RestoreDateTime (counted to the second, DynamoDB's granularity: the
table as it was when that second began) or UseLatestRestorableTime (the
table as it is, every acknowledged write included). The new table is
built from the source's current settings (key schema, indexes, billing,
encryption, table class), with the overrides a request gives put in their
place; like DynamoDB's restores it has its own ARN and id and no stream,
TTL, tags or point-in-time recovery of its own.

The restore runs inside the writer's transaction, so it sees every write
acknowledged before it and none after, while writers to the source wait
for it: the source's items and unchanged indexes are copied inside SQLite,
then the items changed since the restore time are put back from the history
(``_history``), and any index an override changed is filled from the result.

The answer says CREATING and RestoreInProgress, as DynamoDB's does; the
table is ACTIVE, its restore done, by the next DescribeTable.

Errors are the operation's own (botocore's model): TableNotFoundException
for a missing source (with the wording of DynamoDB's backup operations),
TableAlreadyExistsException, PointInTimeRecoveryUnavailableException,
InvalidRestoreTimeException (its text is the one botocore's model gives
the error); DynamoDB's texts for the last two and for a request naming no
source or no time are not on record: the messages here are ours. The
checks run in this order: the request's own members, the source, the
target, recovery being on, the time, then the overrides (as CreateTable
checks a definition).
"""

from __future__ import annotations

import datetime
import math
import time
from typing import Any

from tallydb.engine.api import _history as history
from tallydb.engine.api._access import Touch, named
from tallydb.engine.api._backups import TABLE_EXISTS
from tallydb.engine.api._continuous_backups import TABLE_NOT_FOUND, window
from tallydb.engine.api._indexes import backfill, build_indexes, write_item
from tallydb.engine.api._regions import is_stored
from tallydb.engine.api.create_table import check_table, describe_new, new_table
from tallydb.engine.api.describe_table import public_description
from tallydb.engine.errors import (
    InvalidRestoreTimeException,
    PointInTimeRecoveryUnavailableException,
    TableAlreadyExistsException,
    TableNotFoundException,
    ValidationException,
)
from tallydb.engine.storage import TableRecord, Transaction

#: Not on record (DynamoDB's texts for these are unknown): ours.
NO_SOURCE = "One of SourceTableName or SourceTableArn must be specified"
BOTH_SOURCES = "Only one of SourceTableName or SourceTableArn can be specified"
NO_TIME = "One of RestoreDateTime or UseLatestRestorableTime must be specified"
BOTH_TIMES = "Only one of RestoreDateTime or UseLatestRestorableTime can be specified"
UNAVAILABLE = "Point in time recovery is not enabled for table '{name}'"  # (moto's words)
#: The description botocore's model gives InvalidRestoreTimeException.
INVALID_TIME = ("An invalid restore time was specified. RestoreDateTime must be between "
                "EarliestRestorableDateTime and LatestRestorableDateTime.")


def _when(request: dict[str, Any]) -> float | None:
    """The requested time (epoch seconds), or None for the latest."""
    latest = request.get("UseLatestRestorableTime")
    given = request.get("RestoreDateTime")
    if latest and given is not None:
        raise ValidationException(BOTH_TIMES)
    if latest:
        return None
    if given is None:
        raise ValidationException(NO_TIME)
    if isinstance(given, datetime.datetime):
        return given.timestamp()
    return float(given)


def validate(request: dict[str, Any]) -> float | None:
    """The checks before anything is looked up (``_pipeline``): one time,
    one source; the requested time."""
    when = _when(request)
    given, arn = request.get("SourceTableName"), request.get("SourceTableArn")
    if given is None and arn is None:
        raise ValidationException(NO_SOURCE)
    if given is not None and arn is not None:
        raise ValidationException(BOTH_SOURCES)
    return when


def _source(txn: Transaction, request: dict[str, Any]) -> TableRecord:
    given, arn = request.get("SourceTableName"), request.get("SourceTableArn")
    name = str(given if arn is None else arn.partition(":table/")[2])
    if arn is not None and not is_stored(arn):  # another region's
        raise TableNotFoundException(TABLE_NOT_FOUND.format(name=name))
    record = txn.table(name)
    if record is None:
        raise TableNotFoundException(TABLE_NOT_FOUND.format(name=name))
    return record


def _index_request(index: dict[str, Any], provisioned: bool) -> dict[str, Any]:
    """A source index as CreateTable declares one."""
    declared = {name: index[name] for name in ("IndexName", "KeySchema", "Projection")}
    if provisioned and "ProvisionedThroughput" in index:
        declared["ProvisionedThroughput"] = {
            name: index["ProvisionedThroughput"][name]
            for name in ("ReadCapacityUnits", "WriteCapacityUnits")}
    if index.get("OnDemandThroughput"):
        declared["OnDemandThroughput"] = index["OnDemandThroughput"]
    return declared


def _definition(source: dict[str, Any], target: str, request: dict[str, Any]
                ) -> dict[str, Any]:
    """The CreateTable request that makes the new table: the source's
    settings, with the request's overrides."""
    summary = source.get("BillingModeSummary")
    mode = request.get("BillingModeOverride") or (
        summary["BillingMode"] if summary else "PROVISIONED")
    provisioned = mode == "PROVISIONED"
    definition: dict[str, Any] = {
        "TableName": target, "KeySchema": source["KeySchema"], "BillingMode": mode}
    if provisioned:
        definition["ProvisionedThroughput"] = request.get("ProvisionedThroughputOverride") or {
            name: source["ProvisionedThroughput"][name]
            for name in ("ReadCapacityUnits", "WriteCapacityUnits")}
    elif request.get("ProvisionedThroughputOverride") is not None:
        definition["ProvisionedThroughput"] = request["ProvisionedThroughputOverride"]
    on_demand = request.get("OnDemandThroughputOverride") or source.get("OnDemandThroughput")
    if on_demand:
        definition["OnDemandThroughput"] = on_demand
    for member, override in (("GlobalSecondaryIndexes", "GlobalSecondaryIndexOverride"),
                             ("LocalSecondaryIndexes", "LocalSecondaryIndexOverride")):
        if request.get(override) is not None:
            indexes = request[override]
        else:
            indexes = [_index_request(i, provisioned) for i in source.get(member, ())]
        if indexes:
            definition[member] = indexes
    used = {k["AttributeName"] for k in source["KeySchema"]}
    for member in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        for index in definition.get(member, ()):
            used.update(k.get("AttributeName") for k in index.get("KeySchema") or ())
    definition["AttributeDefinitions"] = [
        d for d in source["AttributeDefinitions"] if d["AttributeName"] in used]
    sse = request.get("SSESpecificationOverride")
    if sse is None and source.get("SSEDescription"):
        sse = {"Enabled": True, "SSEType": "KMS",
               "KMSMasterKeyId": source["SSEDescription"]["KMSMasterKeyArn"]}
    if sse is not None:
        definition["SSESpecification"] = sse
    if source.get("TableClassSummary"):
        definition["TableClass"] = source["TableClassSummary"]["TableClass"]
    return definition


def _same_index(source: dict[str, Any], target: dict[str, Any], name: str) -> bool:
    """Whether the source has index ``name`` with the same key and projection."""
    def declared(description: dict[str, Any]) -> Any:
        for member in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
            for index in description.get(member, ()):
                if index["IndexName"] == name:
                    return member, index["KeySchema"], index["Projection"]
        return None
    return declared(source) is not None and declared(source) == declared(target)


def restore(txn: Transaction, source: TableRecord, target: TableRecord,
            second: int | None) -> None:
    """Fill ``target`` (empty, with its indexes) with ``source``'s items as
    they were when ``second`` began (None: as they are), and its indexes."""
    copied = {name for name in target.indexes if name in source.indexes
              and _same_index(source.description, target.description, name)}
    indexes = build_indexes(target)
    maintained = tuple(index for index in indexes if index.name in copied)
    if second is not None and not maintained:
        # the items changed since, as they were, then every other item as it is
        then = history.stored_as_of(txn, source, second)
        txn.put_rows(target, {key: blob for key, blob in then.items() if blob is not None})
        txn.copy_rows(source, target, keep=True)
        txn.put_rows(target, {key: None for key, blob in then.items() if blob is None})
    else:
        txn.copy_rows(source, target)
        for name in copied:
            txn.copy_rows(source, target, name)
        if second is not None:  # each index entry moves with its item
            for (hk, rk), item in history.as_of(txn, source, second).items():
                now = txn.get_item(target, hk, rk)
                if now != item:
                    write_item(txn, target, maintained, hk, rk, now, item)
    for index in indexes:
        if index.name not in copied:
            backfill(txn, target, index)


def access(txn: Transaction, request: dict[str, Any]) -> tuple[Touch, ...]:
    """What a request touches (``_access``): reads the table its
    SourceTableName or SourceTableArn names (as ``_source`` reads them) and
    creates the one its TargetTableName names."""
    given, arn = request.get("SourceTableName"), request.get("SourceTableArn")
    touches = [Touch("RestoreTableToPointInTime", named(request.get("TargetTableName")) or "*",
                     write=True)]
    for name in (given, arn.partition(":table/")[2] if isinstance(arn, str) else None):
        if isinstance(name, str):
            touches.append(Touch("RestoreTableToPointInTime", name))
    return tuple(touches)


ACCESS = access


def restore_table_to_point_in_time(txn: Transaction, request: dict[str, Any],
                                   when: float | None) -> dict[str, Any]:
    source = _source(txn, request)
    target = request["TargetTableName"]
    if txn.table(target) is not None:
        raise TableAlreadyExistsException(TABLE_EXISTS.format(target))
    pitr = source.description.get(history.PITR)
    if pitr is None:
        raise PointInTimeRecoveryUnavailableException(UNAVAILABLE.format(name=source.name))
    earliest, latest = window(pitr)
    if when is not None and not earliest <= when <= latest:
        raise InvalidRestoreTimeException(INVALID_TIME)
    definition = _definition(source.description, target, request)
    mode = check_table(definition)
    now = time.time()
    description = describe_new(definition, mode, now)
    description["RestoreSummary"] = {
        "SourceTableArn": source.description["TableArn"],
        "RestoreDateTime": latest if when is None else when, "RestoreInProgress": False}
    record = new_table(txn, description)
    restore(txn, source, record, None if when is None else math.floor(when))
    answer = public_description(description, status="CREATING", index_status="CREATING",
                                counts=txn.count_items(record))
    answer["RestoreSummary"]["RestoreInProgress"] = True
    return {"TableDescription": answer}
