"""BatchGetItem: up to 100 keys over one or more tables, each table with its
own projection and ConsistentRead.

Items come back per table in the order their keys were asked for; a key with
no item is simply absent. A response holds at most 16 MB: the keys that did
not fit come back in ``UnprocessedKeys`` with their table's projection and
consistency, for the caller to send again (otherwise ``UnprocessedKeys`` is
empty). Capacity is charged per item read, each rounded up to 4 KB on its own
(a key with no item costs one unit), half for an eventually consistent read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tallydb.engine.api._access import Touch, named
from tallydb.engine.api._batches import DUPLICATE_KEYS, check_get_total
from tallydb.engine.api._params import MIXED_PARAMETERS, placeholders
from tallydb.engine.api._tables import get_table
from tallydb.engine.api._units import Tally, read_units, wants_capacity
from tallydb.engine.errors import ValidationException
from tallydb.engine.expressions import from_attributes_to_get
from tallydb.engine.storage import Transaction
from tallydb.engine.values import Item, item_size, validate_key_values

#: DynamoDB's cap on one BatchGetItem response.
RESPONSE_BYTES = 16 * 1024 * 1024
_KEPT_IN_UNPROCESSED = (
    "AttributesToGet", "ConsistentRead", "ProjectionExpression", "ExpressionAttributeNames",
)


def _projection(wanted: dict[str, Any]) -> Callable[[Item], Item] | None:
    bound = placeholders(wanted, ("ProjectionExpression",), ("AttributesToGet",))
    if bound is not None:
        text = wanted.get("ProjectionExpression")
        projection = None if text is None else bound.projection(text)
        bound.check_unused()
        return None if projection is None else projection.apply
    names = wanted.get("AttributesToGet")
    return None if names is None else from_attributes_to_get(names).apply


def _check_mixing(request_items: dict[str, Any]) -> None:
    """One table's ProjectionExpression and another's AttributesToGet may not
    meet in one request (paritysuite/dynamodb-conformance)."""
    expressions = any(w.get("ProjectionExpression") is not None for w in request_items.values())
    legacy = any(w.get("AttributesToGet") is not None for w in request_items.values())
    if expressions and legacy:
        raise ValidationException(MIXED_PARAMETERS.format(
            legacy="AttributesToGet", expressions="ProjectionExpression"))


def access(txn: Transaction, request: dict[str, Any]) -> tuple[Touch, ...]:
    """What a request touches (``_access``): reads each table its RequestItems names."""
    return tuple(Touch("BatchGetItem", named(name) or "*")
                 for name in request.get("RequestItems") or {})


ACCESS = access


Projections = dict[str, Callable[[Item], Item] | None]
Checked = tuple[Projections, dict[str, list[Item]]]


def validate(request: dict[str, Any]) -> Checked:
    """Each table's projection, the mixing of the two kinds, the number of
    keys, then every key's values (dynalite's validations/batchGetItem.js)."""
    request_items: dict[str, Any] = request.get("RequestItems") or {}
    projections = {name: _projection(wanted) for name, wanted in request_items.items()}
    _check_mixing(request_items)
    check_get_total(request_items)
    keys = {name: [validate_key_values(key) for key in wanted["Keys"]]
            for name, wanted in request_items.items()}
    return projections, keys


def batch_get_item(txn: Transaction, request: dict[str, Any], checked: Checked
                   ) -> dict[str, Any]:
    request_items: dict[str, Any] = request.get("RequestItems") or {}
    projections, keys = checked

    plans = []
    for name, wanted in request_items.items():
        table = get_table(txn, name)
        seen: set[tuple[bytes, bytes]] = set()
        encoded = []
        for raw_key, values in zip(wanted["Keys"], keys[name], strict=True):
            key = table.keys.check_key(values)
            hk, rk = table.keys.encode(key)
            if (hk, rk) in seen:
                raise ValidationException(DUPLICATE_KEYS)
            seen.add((hk, rk))
            encoded.append((raw_key, hk, rk))
        plans.append((name, table, wanted, encoded))

    responses: dict[str, list[Item]] = {}
    unprocessed: dict[str, Any] = {}
    tally = Tally()
    total = 0
    for name, table, wanted, encoded in plans:
        found = responses[name] = []
        consistent = wanted.get("ConsistentRead") is True
        project = projections[name]
        for raw_key, hk, rk in encoded:
            item = txn.get_item(table.record, hk, rk)
            size = 0 if item is None else item_size(item)
            if total + size > RESPONSE_BYTES:
                left = unprocessed.setdefault(name, {
                    k: wanted[k] for k in _KEPT_IN_UNPROCESSED if k in wanted})
                left.setdefault("Keys", []).append(raw_key)
                continue
            total += size
            tally.add(name, read_units(size, consistent=consistent))
            if item is not None:
                found.append(item if project is None else project(item))

    response: dict[str, Any] = {"Responses": responses, "UnprocessedKeys": unprocessed}
    if wants_capacity(request):
        response["ConsumedCapacity"] = tally.entries(request.get("ReturnConsumedCapacity"))
    return response
