"""CreateTable: DynamoDB's checks of a new table's definition, then the catalog.

After ``check_request`` (shapes), DynamoDB checks a CreateTable request in
this order, each check answering on its own; the texts and the order are
DynamoDB's (sources beside each group):

0. the table class (``_table_class``; its place in the order is not on record);
1. billing mode and throughput;
2. the table's key schema against its attribute definitions;
3. the secondary index declarations (LSIs, then GSIs);
4. streams and server-side encryption;
5. tags, then the warm throughput (``_warm_throughput``);
6. the resource policy (``_policies``), kept with the table.

Each secondary index gets its own index table in storage, kept up to date by
every write (``_indexes``).
CreateTable answers TableStatus CREATING as DynamoDB does, while the table
itself is ACTIVE at once: botocore's ``table_exists`` waiter and boto3's
``Table.wait_until_exists()`` succeed on their first DescribeTable.
"""

from __future__ import annotations

import time
import uuid
from collections import Counter
from typing import Any

from tallydb.engine.api import _lifecycle as lifecycle
from tallydb.engine.api import _policies as policies
from tallydb.engine.api import _streams as streams
from tallydb.engine.api import _warm_throughput as warm
from tallydb.engine.api._access import on_table
from tallydb.engine.api._shapes import constraint_error as _constraint_error
from tallydb.engine.api._shapes import render_value, violation
from tallydb.engine.api._table_class import check_table_class
from tallydb.engine.api._tags import check_count, check_tags
from tallydb.engine.api.describe_table import ACCOUNT, REGION, public_description, table_arn
from tallydb.engine.errors import ResourceInUseException, ValidationException
from tallydb.engine.storage import TableRecord, Transaction

__all__ = [
    "MAX_CAPACITY_UNITS",
    "check_global_key",
    "check_table",
    "create_table",
    "describe_new",
    "invalid",
    "new_table",
    "out_of_bounds",
    "projection_errors",
    "throughput",
]

_INVALID = "One or more parameter values were invalid: "

#: The most capacity units a table may ask for (dynalite).
MAX_CAPACITY_UNITS = 1_000_000_000_000
MAX_LOCAL_INDEXES = 5
MAX_GLOBAL_INDEXES = 20
#: Elements of each key type a GSI key may have (multi-attribute keys; conformance catalogue 2026).
MAX_GSI_KEY_ELEMENTS = 4


def invalid(detail: str) -> ValidationException:
    """"One or more parameter values were invalid: ..." (DynamoDB's usual prefix)."""
    return ValidationException(_INVALID + detail)


def out_of_bounds(provisioned: dict[str, Any]) -> ValidationException | None:
    """Capacity over DynamoDB's bound, read units first (dynalite, recorded)."""
    for member in ("ReadCapacityUnits", "WriteCapacityUnits"):
        units = provisioned.get(member)
        if units is not None and units > MAX_CAPACITY_UNITS:
            return ValidationException(f"Given value {units} for {member} is out of bounds")
    return None


def throughput(provisioned: dict[str, Any] | None) -> dict[str, Any]:
    """A ProvisionedThroughput description (0/0 for on-demand)."""
    return {
        "NumberOfDecreasesToday": 0,
        "ReadCapacityUnits": provisioned["ReadCapacityUnits"] if provisioned else 0,
        "WriteCapacityUnits": provisioned["WriteCapacityUnits"] if provisioned else 0,
    }


def _names(elements: list[dict[str, Any]]) -> list[str]:
    return [e["AttributeName"] for e in elements]


# --- 1. billing mode (conformance catalogue 2026; moto; LocalStack) ------------


def _check_billing(request: dict[str, Any]) -> str:
    mode = request.get("BillingMode") or "PROVISIONED"
    provisioned = request.get("ProvisionedThroughput")
    if mode == "PAY_PER_REQUEST":
        if provisioned is not None:
            raise invalid(
                "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when "
                "BillingMode is PAY_PER_REQUEST"
            )
        return mode
    if provisioned is None:
        raise invalid(
            "ReadCapacityUnits and WriteCapacityUnits must both be specified when "
            "BillingMode is PROVISIONED"
        )
    error = out_of_bounds(provisioned)
    if error is not None:
        raise error
    on_demand = request.get("OnDemandThroughput")
    if on_demand:
        member = next(iter(on_demand))
        raise invalid(
            f"{member} for OnDemandThroughput cannot be specified when the table "
            "BillingMode is PROVISIONED"
        )
    return mode


# --- 2. the table's key (dynalite; nubo-db/dynamodb-conformance 2026) ---------


def _check_table_key(request: dict[str, Any], indexed: bool) -> None:
    definitions = request["AttributeDefinitions"]
    key_schema = request["KeySchema"]
    defined = _names(definitions)
    keys = _names(key_schema)
    if len(keys) > 2:
        shown = render_value("CreateTable", ("KeySchema",), key_schema)
        raise _constraint_error([
            violation("keySchema", shown, "Member must have length less than or equal to 2")
        ])
    duplicated = [name for name, n in Counter(defined).items() if n > 1]
    if duplicated:
        raise ValidationException(f"Attribute Name is duplicated: {duplicated[0]}")
    if len(keys) > len(defined):
        raise ValidationException("Invalid KeySchema: Some index key attribute have no definition")
    if any(key not in defined for key in keys):
        raise invalid(
            "Some index key attributes are not defined in AttributeDefinitions. "
            f"Keys: [{', '.join(keys)}], AttributeDefinitions: [{', '.join(defined)}]"
        )
    if len(keys) == 2 and keys[0] == keys[1]:
        raise ValidationException(
            "Both the Hash Key and the Range Key element in the KeySchema have the same name"
        )
    if key_schema[0]["KeyType"] != "HASH":
        raise ValidationException(
            "Invalid KeySchema: The first KeySchemaElement is not a HASH key type"
        )
    if len(key_schema) == 2 and key_schema[1]["KeyType"] != "RANGE":
        raise ValidationException(
            "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type"
        )
    if not indexed and len(keys) != len(defined):
        raise invalid(
            "Number of attributes in KeySchema does not exactly match number of attributes "
            "defined in AttributeDefinitions"
        )


# --- 3. secondary indexes (dynalite; conformance catalogue 2026) -------------------


def projection_errors(projection: dict[str, Any]) -> ValidationException | None:
    """A Projection's own rules (CreateTable, and UpdateTable's GSI Create)."""
    kind = projection.get("ProjectionType")
    attributes = projection.get("NonKeyAttributes")
    if kind is None:
        return invalid("Unknown ProjectionType: null")
    if attributes is not None and kind != "INCLUDE":
        return invalid(f"ProjectionType is {kind}, but NonKeyAttributes is specified")
    if attributes is None and kind == "INCLUDE":
        return invalid("ProjectionType is INCLUDE, but NonKeyAttributes is not specified")
    if attributes:
        repeated = [a for a, n in Counter(attributes).items() if n > 1]
        if repeated:
            return invalid(f"Duplicate element in NonKeyAttributes: {repeated[0]}")
    return None


def _undefined_keys(keys: list[str], defined: list[str]) -> ValidationException | None:
    if any(key not in defined for key in keys):
        return invalid(
            "Some index key attributes are not defined in AttributeDefinitions. "
            f"Keys: [{', '.join(keys)}], AttributeDefinitions: [{', '.join(defined)}]"
        )
    return None


def _check_local_indexes(request: dict[str, Any], seen: set[str]) -> None:
    indexes = request.get("LocalSecondaryIndexes")
    if indexes is None:
        return
    key_schema = request["KeySchema"]
    defined = _names(request["AttributeDefinitions"])
    if len(key_schema) != 2:
        raise invalid(
            "Table KeySchema does not have a range key, which is required when specifying "
            "a LocalSecondaryIndex"
        )
    table_hash = key_schema[0]["AttributeName"]
    for position, index in enumerate(indexes, 1):
        name = index["IndexName"]
        schema = index["KeySchema"]
        if len(schema) > 2:
            # An LSI's key stays one HASH and one RANGE element: the length
            # constraint DynamoDB's model held before multi-attribute keys.
            raise _constraint_error([violation(
                f"localSecondaryIndexes.{position}.member.keySchema",
                render_value("CreateTable", ("KeySchema",), schema),
                "Member must have length less than or equal to 2")])
        keys = _names(schema)
        error = _undefined_keys(keys, defined)
        if error is not None:
            raise error
        if len(keys) == 2 and keys[0] == keys[1]:
            raise ValidationException(
                "Both the Hash Key and the Range Key element in the KeySchema have the same name"
            )
        if schema[0]["KeyType"] != "HASH":
            raise ValidationException(
                "Invalid KeySchema: The first KeySchemaElement is not a HASH key type"
            )
        if len(schema) > 1 and schema[1]["KeyType"] != "RANGE":
            raise ValidationException(
                "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type"
            )
        if len(schema) != 2:
            raise invalid(f"Index KeySchema does not have a range key for index: {name}")
        if keys[0] != table_hash:
            raise invalid(
                "Index KeySchema does not have the same leading hash key as table KeySchema "
                f"for index: {name}. index hash key: {keys[0]}, table hash key: {table_hash}"
            )
        error = projection_errors(index["Projection"])
        if error is not None:
            raise error
        if name in seen:
            raise invalid(f"Duplicate index name: {name}")
        seen.add(name)
    if len(indexes) > MAX_LOCAL_INDEXES:
        raise invalid(
            f"Number of LocalSecondaryIndexes exceeds per-table limit of {MAX_LOCAL_INDEXES}"
        )


def check_global_key(schema: list[dict[str, Any]]) -> None:
    """A GSI key: HASH first, up to four HASH then up to four RANGE elements
    (multi-attribute keys), no name twice."""
    keys = _names(schema)
    # DynamoDB's words for a name given twice in a multi-attribute key are not
    # on record; these are its documented ones for the nearest cases: a HASH
    # and a RANGE element of one name (a two-element key), and a name given
    # twice in one list (AttributeDefinitions).
    hashes = {e["AttributeName"] for e in schema if e["KeyType"] == "HASH"}
    if any(e["KeyType"] == "RANGE" and e["AttributeName"] in hashes for e in schema):
        raise ValidationException(
            "Both the Hash Key and the Range Key element in the KeySchema have the same name"
        )
    duplicated = [name for name, n in Counter(keys).items() if n > 1]
    if duplicated:
        raise ValidationException(f"Attribute Name is duplicated: {duplicated[0]}")
    if schema[0]["KeyType"] != "HASH":
        raise ValidationException(
            "Invalid KeySchema: The first KeySchemaElement is not a HASH key type"
        )
    types = [e["KeyType"] for e in schema]
    if types != sorted(types, key=lambda kind: kind != "HASH"):
        raise invalid("All HASH key attributes must precede RANGE key attributes in the KeySchema")
    for kind in ("HASH", "RANGE"):
        if types.count(kind) > MAX_GSI_KEY_ELEMENTS:
            raise invalid(
                f"The KeySchema exceeds the maximum allowed number of {kind} key attributes"
            )


def _check_global_indexes(request: dict[str, Any], mode: str, seen: set[str]) -> None:
    indexes = request.get("GlobalSecondaryIndexes")
    if indexes is None:
        return
    defined = _names(request["AttributeDefinitions"])
    for index in indexes:
        name = index["IndexName"]
        error = _undefined_keys(_names(index["KeySchema"]), defined)
        if error is not None:
            raise error
        check_global_key(index["KeySchema"])
        error = projection_errors(index["Projection"])
        if error is not None:
            raise error
        provisioned = index.get("ProvisionedThroughput")
        if mode == "PAY_PER_REQUEST" and provisioned is not None:
            raise invalid(
                f"ProvisionedThroughput should not be specified for index: {name} when "
                "BillingMode is PAY_PER_REQUEST"
            )
        if mode == "PROVISIONED" and provisioned is None:
            raise invalid(f"ProvisionedThroughput is not specified for index: {name}")
        if name in seen:
            raise invalid(f"Duplicate index name: {name}")
        seen.add(name)
    if len(indexes) > MAX_GLOBAL_INDEXES:
        raise invalid(
            f"GlobalSecondaryIndex count exceeds the per-table limit of {MAX_GLOBAL_INDEXES}"
        )


def _check_indexes(request: dict[str, Any], mode: str) -> None:
    for member in ("LocalSecondaryIndexes", "GlobalSecondaryIndexes"):
        if request.get(member) == []:
            raise invalid(f"List of {member} is empty")
    used = list(dict.fromkeys(_names(request["KeySchema"])))
    for member in ("LocalSecondaryIndexes", "GlobalSecondaryIndexes"):
        for index in request.get(member) or ():
            used += [k for k in dict.fromkeys(_names(index["KeySchema"])) if k not in used]
    defined = _names(request["AttributeDefinitions"])
    if any(name not in used for name in defined):
        raise invalid(
            f"Some AttributeDefinitions are not used. AttributeDefinitions: "
            f"[{', '.join(defined)}], keys used: [{', '.join(used)}]"
        )
    seen: set[str] = set()
    _check_local_indexes(request, seen)
    _check_global_indexes(request, mode, seen)


# --- 4. streams and encryption (conformance catalogue 2026) -------------------------


def _check_stream(request: dict[str, Any]) -> None:
    stream = request.get("StreamSpecification")
    if stream is None:
        return
    if stream["StreamEnabled"] and stream.get("StreamViewType") is None:
        raise invalid("Table is being created with a stream enabled, UpdateViewType is required")
    if not stream["StreamEnabled"] and stream.get("StreamViewType") is not None:
        raise invalid(
            "Table is being created with a stream disabled, UpdateViewType should not be specified"
        )


def _check_sse(request: dict[str, Any]) -> None:
    sse = request.get("SSESpecification")
    if sse is None:
        return
    if not sse.get("Enabled", False):
        if sse.get("SSEType") is not None:
            raise invalid("SSEType can not be specified if Enabled is false")
        if sse.get("KMSMasterKeyId") is not None:
            raise invalid("KMSMasterKeyId can not be specified if Enabled is false")
        return
    if sse.get("SSEType") == "AES256":
        raise invalid("SSEType AES256 is not supported")
    if sse.get("KMSMasterKeyId") is not None and sse.get("SSEType") != "KMS":
        raise invalid("SSEType KMS is required if KMSMasterKeyId is specified")


# --- the description ------------------------------------------------------------------


def _index_arn(table: str, index: str) -> str:
    return f"{table_arn(table)}/index/{index}"


def _describe(request: dict[str, Any], mode: str, now: float) -> dict[str, Any]:
    name = request["TableName"]
    provisioned = request.get("ProvisionedThroughput")
    description: dict[str, Any] = {
        "AttributeDefinitions": [
            {"AttributeName": d["AttributeName"], "AttributeType": d["AttributeType"]}
            for d in request["AttributeDefinitions"]
        ],
        "TableName": name,
        "KeySchema": [
            {"AttributeName": k["AttributeName"], "KeyType": k["KeyType"]}
            for k in request["KeySchema"]
        ],
        "TableStatus": "ACTIVE",
        "CreationDateTime": now,
        "ProvisionedThroughput": throughput(provisioned),
        "TableSizeBytes": 0,
        "ItemCount": 0,
        "TableArn": table_arn(name),
        "TableId": str(uuid.uuid4()),
    }
    if mode == "PAY_PER_REQUEST":
        description["BillingModeSummary"] = {
            "BillingMode": mode,
            "LastUpdateToPayPerRequestDateTime": now,
        }
    local = request.get("LocalSecondaryIndexes")
    if local:
        description["LocalSecondaryIndexes"] = [
            {
                "IndexName": index["IndexName"],
                "KeySchema": index["KeySchema"],
                "Projection": index["Projection"],
                "IndexSizeBytes": 0,
                "ItemCount": 0,
                "IndexArn": _index_arn(name, index["IndexName"]),
            }
            for index in local
        ]
    glob = request.get("GlobalSecondaryIndexes")
    if glob:
        described = []
        for index in glob:
            entry: dict[str, Any] = {
                "IndexName": index["IndexName"],
                "KeySchema": index["KeySchema"],
                "Projection": index["Projection"],
                "IndexStatus": "ACTIVE",
                "ProvisionedThroughput": throughput(index.get("ProvisionedThroughput")),
                "IndexSizeBytes": 0,
                "ItemCount": 0,
                "IndexArn": _index_arn(name, index["IndexName"]),
            }
            if index.get("OnDemandThroughput"):
                entry["OnDemandThroughput"] = index["OnDemandThroughput"]
            entry["WarmThroughput"] = warm.initial(index, mode, index["IndexName"])
            described.append(entry)
        description["GlobalSecondaryIndexes"] = described
    stream = request.get("StreamSpecification")
    if stream is not None and stream["StreamEnabled"]:
        streams.enable(description, stream["StreamViewType"], now)
    sse = request.get("SSESpecification")
    if sse is not None and sse.get("Enabled"):
        key = sse.get("KMSMasterKeyId") or "alias/aws/dynamodb"  # the AWS managed key
        if not key.startswith("arn:"):
            kind = "" if key.startswith("alias/") else "key/"
            key = f"arn:aws:kms:{REGION}:{ACCOUNT}:{kind}{key}"
        description["SSEDescription"] = {
            "Status": "ENABLED",
            "SSEType": "KMS",
            "KMSMasterKeyArn": key,
        }
    if request.get("TableClass") is not None:
        description["TableClassSummary"] = {"TableClass": request["TableClass"]}
    description["DeletionProtectionEnabled"] = bool(request.get("DeletionProtectionEnabled"))
    if request.get("OnDemandThroughput"):
        description["OnDemandThroughput"] = dict(request["OnDemandThroughput"])
    description["WarmThroughput"] = warm.initial(request, mode)
    if request.get("Tags"):
        description["_Tags"] = [dict(tag) for tag in request["Tags"]]
    return description


def check_table(request: dict[str, Any]) -> str:
    """CreateTable's checks of a request, before the catalog is looked at;
    the billing mode."""
    check_table_class(request)
    mode = _check_billing(request)
    indexed = (
        request.get("LocalSecondaryIndexes") is not None
        or request.get("GlobalSecondaryIndexes") is not None
    )
    _check_table_key(request, indexed)
    if indexed:
        _check_indexes(request, mode)
    _check_stream(request)
    _check_sse(request)
    if request.get("Tags"):
        check_tags(request["Tags"])
        check_count(request["Tags"])
    warm.initial(request, mode)  # its units against the table's baseline, then each GSI's
    for index in request.get("GlobalSecondaryIndexes") or ():
        warm.initial(index, mode, index["IndexName"])
    return mode


def new_table(txn: Transaction, description: dict[str, Any]) -> TableRecord:
    """Create the (empty) table a description describes, with its indexes."""
    record = txn.create_table(description["TableName"], description)
    for member in ("LocalSecondaryIndexes", "GlobalSecondaryIndexes"):
        for index in description.get(member, ()):
            record = txn.create_index(record, index["IndexName"])
    return record


def describe_new(request: dict[str, Any], mode: str, now: float) -> dict[str, Any]:
    """The description of a new table made by a checked request."""
    return _describe(request, mode, now)


#: What a request touches (``_access``): writes the table its TableName names.
ACCESS = on_table("CreateTable", write=True)


def create_table(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    name = request["TableName"]
    if name.startswith("arn:"):
        raise _constraint_error([
            violation("tableName", name,
                      "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+")
        ])
    mode = check_table(request)
    policy = request.get("ResourcePolicy")
    if policy is not None:
        policies.check(policy)
    existing = txn.table(name)
    if existing is not None:
        if not lifecycle.gone(existing.description):
            raise ResourceInUseException(f"Table already exists: {name}")
        streams.retire(txn, existing)  # DELETING, and its time is up: gone for good now
    now = time.time()
    description = _describe(request, mode, now)
    lifecycle.begin(txn, description, lifecycle.CREATING, now)
    if policy is not None:  # kept by its ARN, as PutResourcePolicy keeps it
        description[policies.POLICIES] = {description["TableArn"]: {
            "Policy": policy, "RevisionId": policies.new_revision()}}
    record = new_table(txn, description)
    if streams.CAPTURE in description:
        record = streams.with_source(txn, record)
    created = public_description(description, status="CREATING", index_status="CREATING")
    summary = created.get("BillingModeSummary")
    if summary is not None:  # CreateTable's answer has no switch time yet (catalogue 2026)
        summary.pop("LastUpdateToPayPerRequestDateTime", None)
    return {"TableDescription": created}
