"""UpdateTable's GlobalSecondaryIndexUpdates: Create, Delete and Update a GSI.

A Create adds the index to the description and to storage and backfills it
from the table's items in the same transaction, so the next DescribeTable
shows it ACTIVE and the next Query finds every item; items whose key
attribute is missing, of another type or empty are skipped, as DynamoDB's
backfill skips them. A Delete drops it (and the attribute definitions no key
uses any more). An Update changes a GSI's provisioned throughput. As on
DynamoDB, the answer shows the table UPDATING and the index CREATING or
DELETING.

Messages: architect/dynalite's validations/updateTable.js and the ack-api-
quirks catalogue of DynamoDB's UpdateTable behaviour (2026, recorded against
DynamoDB: DDB-TABLE-159, -160, -161, -162, -357).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tallydb.engine.api import _warm_throughput as warm
from tallydb.engine.api._indexes import backfill, build_indexes
from tallydb.engine.api.create_table import (
    check_global_key,
    invalid,
    projection_errors,
    throughput,
)
from tallydb.engine.api.describe_table import table_arn
from tallydb.engine.errors import (
    LimitExceededException,
    ResourceNotFoundException,
    ValidationException,
)
from tallydb.engine.storage import TableRecord, Transaction

NOT_NULL = (
    "One of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, "
    "GlobalSecondaryIndexUpdate.Delete must not be null"
)
ONE_ACTION = (
    "Only one global secondary index action is allowed per GlobalSecondaryIndexUpdate object"
)
ONE_PER_INDEX = (
    "Only one global secondary index update per index is allowed simultaneously. Index: {}"
)
ONE_ONLINE = (
    "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously "
    "per table"
)
WHILE_IOPS = "You cannot create or delete index while updating table IOPS"
ALREADY_EXISTS = "Attempting to create an index which already exists"
NO_DEFINITIONS = "AttributeDefinitions is not specified for index: {}"
UNDEFINED_KEYS = (
    "Some index key attributes are not defined in AttributeDefinitions. Keys: [{keys}], "
    "AttributeDefinitions: [{defined}]"
)
REDEFINED = (
    "Attributes cannot be redefined. Please check that your attribute has the same type as "
    "previously defined. Existing schema: Schema:[{existing}] New schema: Schema:[{new}]"
)
NEEDS_THROUGHPUT = "Both ReadCapacityUnits and WriteCapacityUnits must be specified for index: {}"
NO_THROUGHPUT = (
    "ProvisionedThroughput should not be specified for index: {} when BillingMode is "
    "PAY_PER_REQUEST"
)
ON_DEMAND_UPDATES = (
    "The only Updates for index: {} when TableThroughputMode is PAY_PER_REQUEST can be to "
    "OnDemandThroughput, WarmThroughput"
)
NOT_GLOBAL = "Cannot {action} an index that is not a GlobalSecondaryIndex: {name}"
INDEX_NOT_FOUND = "Requested resource not found: Index {index} for table {table}"

_ACTIONS = ("Update", "Create", "Delete")


def check_gsi_updates(request: dict[str, Any]) -> None:
    """What DynamoDB refuses before it looks the table up."""
    names: set[str] = set()
    online = 0
    for update in request.get("GlobalSecondaryIndexUpdates") or ():
        present = [a for a in _ACTIONS if update.get(a) is not None]
        if not present:
            raise invalid(NOT_NULL)
        if len(present) > 1:
            raise invalid(ONE_ACTION)
        name = update[present[0]].get("IndexName")
        if name in names:
            raise invalid(ONE_PER_INDEX.format(name))
        names.add(name)
        if present[0] == "Update" and update["Update"].get("WarmThroughput") is not None:
            warm.check_index_update(name, update["Update"]["WarmThroughput"])
        online += present[0] != "Update"
    if online > 1:
        raise LimitExceededException(ONE_ONLINE)
    if online and request.get("ProvisionedThroughput") is not None:
        raise ValidationException(WHILE_IOPS)


@dataclass
class GsiChanges:
    """What a request's GlobalSecondaryIndexUpdates change, once checked."""

    create: dict[str, Any] | None = None
    delete: str | None = None
    updates: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: each updated GSI's new WarmThroughput description, by index name
    warm: dict[str, dict[str, Any]] = field(default_factory=dict)


def _billing(description: dict[str, Any]) -> str:
    summary = description.get("BillingModeSummary")
    return summary["BillingMode"] if summary else "PROVISIONED"


def _role(element: dict[str, Any]) -> str:
    return str(element["KeyType"])


def _key_users(description: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """Every key schema of the table: its own, then each index's."""
    schemas = [description["KeySchema"]]
    for member in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        schemas += [index["KeySchema"] for index in description.get(member, ())]
    return schemas


def _check_create(description: dict[str, Any], request: dict[str, Any],
                  create: dict[str, Any]) -> None:
    name = create["IndexName"]
    existing = [i["IndexName"] for member in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes")
                for i in description.get(member, ())]
    if name in existing:
        raise ValidationException(ALREADY_EXISTS)
    definitions = request.get("AttributeDefinitions")
    if definitions is None:
        raise ValidationException(NO_DEFINITIONS.format(name))
    given = {d["AttributeName"]: d["AttributeType"] for d in definitions}
    keys = [e["AttributeName"] for e in create["KeySchema"]]
    if any(key not in given for key in keys):
        raise invalid(UNDEFINED_KEYS.format(keys=", ".join(keys), defined=", ".join(given)))
    check_global_key(create["KeySchema"])
    error = projection_errors(create["Projection"])
    if error is not None:
        raise error
    types = {d["AttributeName"]: d["AttributeType"] for d in description["AttributeDefinitions"]}
    for element in create["KeySchema"]:
        key = element["AttributeName"]
        if key in types and types[key] != given[key]:
            schema = next(s for s in _key_users(description)
                          if any(e["AttributeName"] == key for e in s))
            old = ", ".join(f"SchemaElement: key{{{e['AttributeName']}:"
                            f"{types[e['AttributeName']]}:{_role(e)}}}" for e in schema)
            new = ", ".join(f"SchemaElement: key{{{e['AttributeName']}:"
                            f"{given[e['AttributeName']]}:{_role(e)}}}"
                            for e in create["KeySchema"])
            raise invalid(REDEFINED.format(existing=old, new=new))
    provisioned = create.get("ProvisionedThroughput")
    if _billing(description) == "PROVISIONED" and provisioned is None:
        raise ValidationException(NEEDS_THROUGHPUT.format(name))
    if _billing(description) == "PAY_PER_REQUEST" and provisioned is not None:
        raise invalid(NO_THROUGHPUT.format(name))
    warm.initial(create, _billing(description), name)  # its units against its baseline


def _find(description: dict[str, Any], record: TableRecord, name: str, action: str) -> None:
    if any(i["IndexName"] == name for i in description.get("GlobalSecondaryIndexes", ())):
        return
    if any(i["IndexName"] == name for i in description.get("LocalSecondaryIndexes", ())):
        raise ValidationException(NOT_GLOBAL.format(action=action, name=name))
    raise ResourceNotFoundException(INDEX_NOT_FOUND.format(index=name, table=record.name))


def plan_gsi_updates(record: TableRecord, request: dict[str, Any]) -> GsiChanges:
    """Check the updates against the table; nothing is changed yet."""
    description = record.description
    changes = GsiChanges()
    for update in request.get("GlobalSecondaryIndexUpdates") or ():
        if update.get("Create") is not None:
            _check_create(description, request, update["Create"])
            changes.create = update["Create"]
        elif update.get("Delete") is not None:
            name = update["Delete"]["IndexName"]
            _find(description, record, name, "delete")
            changes.delete = name
        else:
            body = update["Update"]
            name = body["IndexName"]
            _find(description, record, name, "update")
            # on demand, an update is to OnDemandThroughput or WarmThroughput, an empty
            # OnDemandThroughput counting as none (catalogue 2026)
            if (_billing(description) == "PAY_PER_REQUEST"
                    and request.get("BillingMode") != "PROVISIONED"
                    and (body.get("ProvisionedThroughput") is not None
                         or not (body.get("OnDemandThroughput")
                                 or body.get("WarmThroughput") is not None))):
                raise invalid(ON_DEMAND_UPDATES.format(name))
            if body.get("WarmThroughput") is not None:
                index = next(i for i in description["GlobalSecondaryIndexes"]
                             if i["IndexName"] == name)
                changes.warm[name] = warm.raised(_billing(description), index,
                                                 body["WarmThroughput"], name)
            changes.updates[name] = body
    return changes


def describe_changes(description: dict[str, Any], request: dict[str, Any],
                     changes: GsiChanges) -> None:
    """Apply the changes to a (copied) description."""
    indexes = [dict(i) for i in description.get("GlobalSecondaryIndexes", ())]
    for index in indexes:
        body = changes.updates.get(index["IndexName"])
        if body is not None and body.get("ProvisionedThroughput") is not None:
            index["ProvisionedThroughput"] = {
                **index["ProvisionedThroughput"], **body["ProvisionedThroughput"]}
        if body is not None and body.get("OnDemandThroughput") is not None:
            index["OnDemandThroughput"] = dict(body["OnDemandThroughput"])
        if index["IndexName"] in changes.warm:
            index["WarmThroughput"] = changes.warm[index["IndexName"]]
    if changes.delete is not None:
        indexes = [i for i in indexes if i["IndexName"] != changes.delete]
    create = changes.create
    if create is not None:
        entry: dict[str, Any] = {
            "IndexName": create["IndexName"],
            "KeySchema": [{"AttributeName": e["AttributeName"], "KeyType": e["KeyType"]}
                          for e in create["KeySchema"]],
            "Projection": create["Projection"],
            "IndexStatus": "ACTIVE",
            "ProvisionedThroughput": throughput(create.get("ProvisionedThroughput")),
            "IndexSizeBytes": 0,
            "ItemCount": 0,
            "IndexArn": f"{table_arn(description['TableName'])}/index/{create['IndexName']}",
        }
        if create.get("OnDemandThroughput"):
            entry["OnDemandThroughput"] = dict(create["OnDemandThroughput"])
        entry["WarmThroughput"] = warm.initial(create, _billing(description), create["IndexName"])
        indexes.append(entry)
        given = {d["AttributeName"]: d["AttributeType"] for d in request["AttributeDefinitions"]}
        defined = [dict(d) for d in description["AttributeDefinitions"]]
        for element in create["KeySchema"]:
            key = element["AttributeName"]
            if all(d["AttributeName"] != key for d in defined):
                defined.append({"AttributeName": key, "AttributeType": given[key]})
        description["AttributeDefinitions"] = defined
    if indexes:
        description["GlobalSecondaryIndexes"] = indexes
    else:
        description.pop("GlobalSecondaryIndexes", None)
    if changes.delete is not None:
        used = {e["AttributeName"] for schema in _key_users(description) for e in schema}
        description["AttributeDefinitions"] = [
            d for d in description["AttributeDefinitions"] if d["AttributeName"] in used]


def store_changes(txn: Transaction, record: TableRecord, changes: GsiChanges) -> TableRecord:
    """Create (and backfill) or drop the index's storage; the new record."""
    if changes.delete is not None:
        record = txn.drop_index(record, changes.delete)
    if changes.create is not None:
        name = changes.create["IndexName"]
        record = txn.create_index(record, name)
        index = next(i for i in build_indexes(record) if i.name == name)
        backfill(txn, record, index)
    return record


def answer(shown: dict[str, Any], deleted: dict[str, Any] | None, changes: GsiChanges) -> None:
    """The answer's index statuses: CREATING for a new index (not yet
    backfilling), DELETING for the one going, UPDATING for updated ones."""
    indexes = shown.get("GlobalSecondaryIndexes", [])
    for index in indexes:
        if changes.create is not None and index["IndexName"] == changes.create["IndexName"]:
            index["IndexStatus"] = "CREATING"
            index["Backfilling"] = False
            index["ItemCount"] = index["IndexSizeBytes"] = 0
        elif index["IndexName"] in changes.updates:
            index["IndexStatus"] = "UPDATING"
    if deleted is not None:
        indexes.append({**deleted, "IndexStatus": "DELETING"})
        shown["GlobalSecondaryIndexes"] = indexes
