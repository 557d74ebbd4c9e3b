"""PutItem: write a whole item, optionally only if a condition holds."""

from __future__ import annotations

from typing import Any, NamedTuple

import orjson

from tallydb.engine.api._access import on_table
from tallydb.engine.api._conditions import check_condition, condition_of
from tallydb.engine.api._indexes import check_index_keys, write_item
from tallydb.engine.api._params import check_return_values, placeholders
from tallydb.engine.api._tables import get_table
from tallydb.engine.api._units import REPORTING, charged, item_write_units, wants_capacity
from tallydb.engine.expressions import BoundCondition
from tallydb.engine.storage import Transaction
from tallydb.engine.values import Item, validate_item
from tallydb.engine.values.size import check_item_fits

#: What a request touches (``_access``): writes the table its TableName names.
ACCESS = on_table("PutItem", write=True)


class Checked(NamedTuple):
    return_values: str | None
    item: Item
    condition: BoundCondition | None
    encoded: bytes  # the item's JSON, as it is stored


def validate(request: dict[str, Any]) -> Checked:
    """What PutItem checks before it reads the table, in its order (dynalite's
    validations/putItem.js): ReturnValues, the item's values, the condition,
    then the item's size."""
    return_values = check_return_values("PutItem", request)
    item = validate_item(request["Item"])
    bound = placeholders(request, ("ConditionExpression",), ("Expected",))
    condition = condition_of(request, bound)
    if bound is not None:
        bound.check_unused()
    encoded = orjson.dumps(item)
    check_item_fits(item, encoded)
    return Checked(return_values, item, condition, encoded)


def put_item(txn: Transaction, request: dict[str, Any], checked: Checked) -> dict[str, Any]:
    return_values, item, condition, encoded = checked
    table = get_table(txn, request["TableName"])
    table.keys.check_item_key(item)
    indexes = table.indexes
    if indexes:
        check_index_keys(indexes, item)
    hk, rk = table.keys.encode(item)
    old = txn.get_item(table.record, hk, rk)
    check_condition(request, condition, old)
    index_units = write_item(txn, table.record, indexes, hk, rk, old, item, encoded)
    response: dict[str, Any] = {}
    if return_values == "ALL_OLD" and old is not None:
        response["Attributes"] = old
    if wants_capacity(request) or REPORTING[0]:
        units = max(item_write_units(item, encoded), item_write_units(old))
        entry = charged(txn, request, table.name, units, index_units)
        if entry is not None:
            response["ConsumedCapacity"] = entry
    return response
