"""Creating a table, and what ``create_table(..., exist_ok=True)`` changes to
make an existing table the one asked for: the requests that do it, or what
cannot be made so (:func:`p_create_table` is the plan that does it all).

``exist_ok=True`` means "make it so if it is not so already". An existing
table is compared with the CreateTable request (and the TTL and stream asked
for) attribute by attribute:

* the key schema, the local secondary indexes, and a global secondary index
  of the same name with other keys or another projection cannot be changed
  in place: :class:`~tallydb.toolkit.exceptions.SchemaMismatchError` names
  each difference, and nothing is sent;
* a missing global secondary index is created (UpdateTable, one index a
  request, as DynamoDB requires), the billing mode switched when one was
  given, a stream turned on when one was asked for;
* TTL is turned on for the attribute asked for; TTL already on for another
  attribute is a mismatch (DynamoDB changes it only by turning TTL off,
  which takes up to an hour).

What the table has and the request does not ask for (another index, a
stream, TTL) is left as it is: an omission never deletes anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tallydb.engine.errors import (
    DynamoDBError,
    ResourceInUseException,
    ValidationException,
)
from tallydb.toolkit.exceptions import SchemaMismatchError
from tallydb.toolkit.requests import KeySchema
from tallydb.toolkit.transport import Call, Plan, Sleep

__all__ = [
    "billing_mode",
    "check_unchangeable",
    "create_table_request",
    "p_create_table",
    "p_wait_active",
    "table_updates",
    "ttl_update",
]

#: CreateTable's default billing mode, as DescribeTable leaves it out.
PROVISIONED = "PROVISIONED"


def _show_keys(schema: KeySchema) -> str:
    shown = f"{schema.hash_key} ({schema.hash_type})"
    if schema.range_key is not None:
        shown += f", {schema.range_key} ({schema.range_type})"
    return shown


def _index_keys(index: Mapping[str, Any], types: Mapping[str, str]) -> list[tuple[str, str, str]]:
    return [
        (k["KeyType"], k["AttributeName"], types.get(k["AttributeName"], "?"))
        for k in index["KeySchema"]
    ]


def _projection(index: Mapping[str, Any]) -> tuple[str, tuple[str, ...]]:
    projection = index.get("Projection") or {}
    kind = projection.get("ProjectionType", "ALL")
    return kind, tuple(sorted(projection.get("NonKeyAttributes") or ()))


def _show_index(index: Mapping[str, Any], types: Mapping[str, str]) -> str:
    keys = ", ".join(f"{name} ({t}) {kind}" for kind, name, t in _index_keys(index, types))
    kind, extra = _projection(index)
    projected = f"{kind} {list(extra)}" if extra else kind
    return f"keys {keys}, projection {projected}"


def _types(description: Mapping[str, Any]) -> dict[str, str]:
    return {d["AttributeName"]: d["AttributeType"] for d in description["AttributeDefinitions"]}


def _indexes(description: Mapping[str, Any], member: str) -> dict[str, Mapping[str, Any]]:
    return {i["IndexName"]: i for i in description.get(member) or ()}


def billing_mode(description: Mapping[str, Any]) -> str:
    """A table's billing mode as DescribeTable shows it (absent: PROVISIONED)."""
    summary = description.get("BillingModeSummary") or {}
    return str(summary.get("BillingMode") or PROVISIONED)


_INDEX_KEEP = ("IndexName", "KeySchema", "Projection")


def _throughput(given: Mapping[str, Any]) -> dict[str, int]:
    return {
        "ReadCapacityUnits": int(given.get("ReadCapacityUnits") or 5),
        "WriteCapacityUnits": int(given.get("WriteCapacityUnits") or 5),
    }


def create_table_request(
    description: Mapping[str, Any], *, keep_stream: bool = True
) -> dict[str, Any]:
    """CreateTable's request for a table like the one ``description`` shows.

    ``description`` is a CreateTable request in DynamoDB's JSON shape, or a
    table's description as DescribeTable answers it (``aws dynamodb
    describe-table`` prints ``{"Table": {...}}``; CreateTable answers
    ``{"TableDescription": {...}}``; both are unwrapped). Kept: the keys,
    the billing mode and throughput, the indexes (keys, projection), and
    the stream (unless ``keep_stream`` is false); the rest of a description
    (ARNs, counts, status, dates) is not a request's."""
    for wrapper in ("Table", "TableDescription"):
        inner = description.get(wrapper)
        if isinstance(inner, Mapping) and "KeySchema" not in description:
            description = inner
    missing = [k for k in ("TableName", "KeySchema", "AttributeDefinitions")
               if k not in description]
    if missing:
        raise ValueError(
            f"not a CreateTable request or a table description: no {', '.join(missing)}"
        )
    request: dict[str, Any] = {
        "TableName": description["TableName"],
        "KeySchema": [dict(k) for k in description["KeySchema"]],
        "AttributeDefinitions": [dict(a) for a in description["AttributeDefinitions"]],
    }
    mode = description.get("BillingMode") or (
        description.get("BillingModeSummary") or {}).get("BillingMode")
    throughput = description.get("ProvisionedThroughput") or {}
    provisioned = mode == PROVISIONED or (mode is None and throughput.get("ReadCapacityUnits"))
    if provisioned:
        request["BillingMode"] = PROVISIONED
        request["ProvisionedThroughput"] = _throughput(throughput)
    else:
        request["BillingMode"] = "PAY_PER_REQUEST"
    for kind in ("LocalSecondaryIndexes", "GlobalSecondaryIndexes"):
        indexes = []
        for index in description.get(kind) or []:
            kept = {k: index[k] for k in _INDEX_KEEP if k in index}
            if provisioned and kind == "GlobalSecondaryIndexes":
                kept["ProvisionedThroughput"] = _throughput(index.get("ProvisionedThroughput", {}))
            indexes.append(kept)
        if indexes:
            request[kind] = indexes
    stream = description.get("StreamSpecification") or {}
    if keep_stream and stream.get("StreamEnabled"):
        request["StreamSpecification"] = {
            "StreamEnabled": True, "StreamViewType": stream["StreamViewType"]}
    return request


def check_unchangeable(request: Mapping[str, Any], table: Mapping[str, Any]) -> None:
    """Raise :class:`SchemaMismatchError` naming every difference between
    ``request`` (CreateTable's) and ``table`` (DescribeTable's ``Table``)
    that no request can change."""
    name = request["TableName"]
    wanted_types, found_types = _types(request), _types(table)
    differences: list[str] = []
    wanted_keys = KeySchema.from_description(request)
    found_keys = KeySchema.from_description(table)
    if wanted_keys != found_keys:
        differences.append(
            f"its key is {_show_keys(found_keys)}, not {_show_keys(wanted_keys)}"
        )
    wanted_lsis = _indexes(request, "LocalSecondaryIndexes")
    found_lsis = _indexes(table, "LocalSecondaryIndexes")
    for index_name, wanted in wanted_lsis.items():
        found = found_lsis.get(index_name)
        if found is None:
            differences.append(
                f"it has no local index {index_name!r} (a local index is made only "
                "with the table)"
            )
        elif _show_index(found, found_types) != _show_index(wanted, wanted_types):
            differences.append(
                f"its local index {index_name!r} has {_show_index(found, found_types)}, "
                f"not {_show_index(wanted, wanted_types)}"
            )
    found_gsis = _indexes(table, "GlobalSecondaryIndexes")
    for index_name, wanted in _indexes(request, "GlobalSecondaryIndexes").items():
        found = found_gsis.get(index_name)
        if found is not None and (
            _show_index(found, found_types) != _show_index(wanted, wanted_types)
        ):
            differences.append(
                f"its global index {index_name!r} has {_show_index(found, found_types)}, "
                f"not {_show_index(wanted, wanted_types)}"
            )
    wanted_stream = (request.get("StreamSpecification") or {}).get("StreamViewType")
    found_stream = table.get("StreamSpecification") or {}
    if (
        wanted_stream is not None
        and found_stream.get("StreamEnabled")
        and found_stream.get("StreamViewType") != wanted_stream
    ):
        differences.append(
            f"its stream shows {found_stream.get('StreamViewType')}, not {wanted_stream} "
            "(changing it starts a new stream: turn the old one off first)"
        )
    if differences:
        raise SchemaMismatchError(f"table {name!r} exists, but " + "; ".join(differences))


def table_updates(
    request: Mapping[str, Any], table: Mapping[str, Any], *, billing_given: bool
) -> list[dict[str, Any]]:
    """The UpdateTable requests that make ``table`` what ``request`` asks for
    (after :func:`check_unchangeable`): the billing mode (when it was given),
    each missing global index (one a request), the stream."""
    name = request["TableName"]
    updates: list[dict[str, Any]] = []
    wanted_billing = request.get("BillingMode", PROVISIONED)
    if billing_given and billing_mode(table) != wanted_billing:
        update: dict[str, Any] = {"TableName": name, "BillingMode": wanted_billing}
        if wanted_billing == PROVISIONED:
            throughput = request["ProvisionedThroughput"]
            update["ProvisionedThroughput"] = throughput
            indexes = [
                {"Update": {"IndexName": index_name, "ProvisionedThroughput": throughput}}
                for index_name in _indexes(table, "GlobalSecondaryIndexes")
            ]
            if indexes:
                update["GlobalSecondaryIndexUpdates"] = indexes
        updates.append(update)
    # Each index's request defines every key attribute the table will then
    # have, not only the new index's: moto replaces the table's definitions
    # with the request's (DynamoDB adds them), and both take the whole set.
    effective_billing = wanted_billing if billing_given else billing_mode(table)
    found_gsis = _indexes(table, "GlobalSecondaryIndexes")
    types = {**_types(table), **_types(request)}
    used = {k["AttributeName"] for k in table["KeySchema"]}
    for index in (*found_gsis.values(), *_indexes(table, "LocalSecondaryIndexes").values()):
        used |= {k["AttributeName"] for k in index["KeySchema"]}
    for index_name, wanted in _indexes(request, "GlobalSecondaryIndexes").items():
        if index_name in found_gsis:
            continue
        used |= {k["AttributeName"] for k in wanted["KeySchema"]}
        create = dict(wanted)
        if effective_billing != PROVISIONED:
            create.pop("ProvisionedThroughput", None)
        elif "ProvisionedThroughput" not in create:
            create["ProvisionedThroughput"] = {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}
        updates.append({
            "TableName": name,
            "AttributeDefinitions": [
                {"AttributeName": a, "AttributeType": types[a]} for a in sorted(used)
            ],
            "GlobalSecondaryIndexUpdates": [{"Create": create}],
        })
    wanted_stream = request.get("StreamSpecification")
    if wanted_stream is not None and not (table.get("StreamSpecification") or {}).get(
        "StreamEnabled"
    ):
        updates.append({"TableName": name, "StreamSpecification": dict(wanted_stream)})
    return updates


def ttl_update(
    name: str, attribute: str, description: Mapping[str, Any]
) -> dict[str, Any] | None:
    """The UpdateTimeToLive request that turns TTL on for ``attribute``
    (None if it is on already); ``description`` is DescribeTimeToLive's
    ``TimeToLiveDescription``. TTL on for another attribute raises
    :class:`SchemaMismatchError`."""
    status = description.get("TimeToLiveStatus", "DISABLED")
    found = description.get("AttributeName")
    if status in ("ENABLED", "ENABLING"):
        if found == attribute:
            return None
        raise SchemaMismatchError(
            f"table {name!r} exists, but its TTL attribute is {found!r}, not {attribute!r} "
            "(DynamoDB changes it only by turning TTL off first, which takes up to an hour)"
        )
    return {
        "TableName": name,
        "TimeToLiveSpecification": {"Enabled": True, "AttributeName": attribute},
    }


def p_create_table(
    request: dict[str, Any],
    ttl_attribute: str | None,
    exist_ok: bool,
    timeout: float,
    billing_given: bool = True,
) -> Plan[None]:
    """CreateTable (``request`` as DynamoDB takes it), wait until ACTIVE,
    turn TTL on. With ``exist_ok`` an existing table is made what ``request``
    asks for (see the module); what cannot be changed raises
    SchemaMismatchError. ``billing_given``: whether the request's billing
    mode was asked for, rather than CreateTable's default."""
    name = request["TableName"]
    try:
        yield Call("CreateTable", request)
    except ResourceInUseException:
        if not exist_ok:
            raise
        yield from p_wait_active(name, timeout)
        response = yield Call("DescribeTable", {"TableName": name})
        check_unchangeable(request, response["Table"])
        for update in table_updates(request, response["Table"], billing_given=billing_given):
            yield Call("UpdateTable", update)
            yield from p_wait_active(name, timeout, indexes=True)
        if ttl_attribute is not None:
            response = yield Call("DescribeTimeToLive", {"TableName": name})
            ttl = ttl_update(name, ttl_attribute, response["TimeToLiveDescription"])
            if ttl is not None:
                yield from _p_turn_on_ttl(name, ttl_attribute)
        return
    yield from p_wait_active(name, timeout)
    if ttl_attribute is not None:
        yield from _p_turn_on_ttl(name, ttl_attribute)


def _p_turn_on_ttl(name: str, attribute: str) -> Plan[None]:
    """UpdateTimeToLive turning TTL on for ``attribute``. Another client
    creating the same table at the same moment may have turned it on first
    (DynamoDB then refuses with ``TimeToLive is already enabled``): TTL on
    for the same attribute is what was asked for; on for another attribute
    raises SchemaMismatchError."""
    try:
        yield Call(
            "UpdateTimeToLive",
            {
                "TableName": name,
                "TimeToLiveSpecification": {"Enabled": True, "AttributeName": attribute},
            },
        )
    except ValidationException:
        response = yield Call("DescribeTimeToLive", {"TableName": name})
        if ttl_update(name, attribute, response["TimeToLiveDescription"]) is not None:
            raise


def _server_side(error: DynamoDBError) -> bool:
    """Whether ``error`` is a 5xx: the server's trouble, not the request's."""
    response = getattr(error, "response", None) or {}
    status = response.get("ResponseMetadata", {}).get("HTTPStatusCode")
    return int(status or error.status) >= 500


def p_wait_active(name: str, timeout: float, *, indexes: bool = False) -> Plan[None]:
    """Wait until the table (and with ``indexes`` each global index) is ACTIVE."""
    delay, waited = 0.02, 0.0
    while True:
        try:
            response = yield Call("DescribeTable", {"TableName": name})
        except DynamoDBError as error:
            # DescribeTable changes nothing, so a server error is a reason to ask
            # again, not to give up (DynamoDB Local answers InternalFailure to it
            # at times while it builds an index).
            if waited >= timeout or not _server_side(error):
                raise
        else:
            table = response["Table"]
            statuses = [table.get("TableStatus", "ACTIVE")]
            if indexes:
                statuses += [i.get("IndexStatus", "ACTIVE")
                             for i in table.get("GlobalSecondaryIndexes") or ()]
            if all(status == "ACTIVE" for status in statuses):
                return
        if waited >= timeout:
            raise TimeoutError(f"table {name!r} is not ACTIVE after {timeout}s")
        yield Sleep(delay)
        waited += delay
        delay = min(delay * 2, 1.0)
