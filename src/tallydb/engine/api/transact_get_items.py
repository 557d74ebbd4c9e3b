"""TransactGetItems: up to 100 Gets read as of one moment.

Every Get runs inside the caller's transaction, so all of them see the same
committed state. ``Responses`` answers in request order: ``{"Item": ...}``
(projected when asked) or ``{}`` for a key with no item. A key that does not
fit its table cancels the whole read with a ValidationError in its slot.
Capacity is transactional: two read units per item per 4 KB.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tallydb.engine.api._access import Touch, named
from tallydb.engine.api._global import refuse_strong
from tallydb.engine.api._params import placeholders
from tallydb.engine.api._tables import Table, get_table
from tallydb.engine.api._transact import (
    Target,
    none_reason,
    refuse_duplicates,
    target_of_key,
    the_action,
)
from tallydb.engine.api._units import TRANSACTIONAL, Tally, read_units, wants_capacity
from tallydb.engine.errors import TransactionCanceledException, ValidationException
from tallydb.engine.storage import Transaction
from tallydb.engine.values import Item, item_size, validate_item


def _projection(get: dict[str, Any]) -> Callable[[Item], Item] | None:
    # Get has no ExpressionAttributeValues member: one sent is ignored, as
    # DynamoDB ignores members its model lacks.
    get = {name: value for name, value in get.items() if name != "ExpressionAttributeValues"}
    bound = placeholders(get, ("ProjectionExpression",), (), wording="older")
    if bound is None:
        return None
    text = get.get("ProjectionExpression")
    projection = None if text is None else bound.projection(text)
    bound.check_unused()
    return None if projection is None else projection.apply


def access(txn: Transaction, request: dict[str, Any]) -> tuple[Touch, ...]:
    """What a request touches (``_access``): reads the table of each Get of
    its TransactItems (an entry that holds no one Get touches nothing: the
    operation refuses it before reading any)."""
    touches = []
    for entry in request.get("TransactItems") or ():
        try:
            get = the_action(entry, ("Get",))[1]
        except ValidationException:
            continue
        touches.append(Touch("GetItem", named(get.get("TableName")) or "*"))
    return tuple(touches)


ACCESS = access


Checked = tuple[list[dict[str, Any]], list[Callable[[Item], Item] | None], list[Item]]


def validate(request: dict[str, Any]) -> Checked:
    """Each Get's own checks, in order: its action, projection, key values."""
    gets, projections, keys = [], [], []
    for entry in request.get("TransactItems") or ():
        get = the_action(entry, ("Get",))[1]
        gets.append(get)
        projections.append(_projection(get))
        keys.append(validate_item(get.get("Key") or {}, wording="older"))
    return gets, projections, keys


def transact_get_items(txn: Transaction, request: dict[str, Any], checked: Checked
                       ) -> dict[str, Any]:
    gets, projections, keys = checked
    tables: list[Table] = [get_table(txn, get.get("TableName")) for get in gets]
    for table in tables:
        refuse_strong(table.record, "TransactGetItems")
    targets: list[Target] = [target_of_key(t.keys, k) for t, k in zip(tables, keys, strict=True)]
    refuse_duplicates([(t.name, target) for t, target in zip(tables, targets, strict=True)])
    if any(target.reason is not None for target in targets):
        raise TransactionCanceledException(
            [target.reason or none_reason() for target in targets])

    responses: list[dict[str, Any]] = []
    tally = Tally()
    for table, target, project in zip(tables, targets, projections, strict=True):
        assert target.encoded is not None
        item = txn.get_item(table.record, *target.encoded)
        size = 0 if item is None else item_size(item)
        tally.add(table.name, TRANSACTIONAL * read_units(size, consistent=True))
        if item is None:
            responses.append({})
        else:
            responses.append({"Item": item if project is None else project(item)})

    response: dict[str, Any] = {"Responses": responses}
    if wants_capacity(request):
        response["ConsumedCapacity"] = tally.entries(
            request.get("ReturnConsumedCapacity"), kind="Read")
    return response
