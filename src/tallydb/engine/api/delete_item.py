"""DeleteItem: remove one item, optionally only if a condition holds."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._access import on_table
from tallydb.engine.api._conditions import check_condition, condition_of
from tallydb.engine.api._indexes import write_item
from tallydb.engine.api._params import (
    bind_placeholders,
    check_expression_params,
    check_return_values,
)
from tallydb.engine.api._tables import get_table
from tallydb.engine.api._units import REPORTING, charged, item_write_units, wants_capacity
from tallydb.engine.expressions import BoundCondition
from tallydb.engine.storage import Transaction
from tallydb.engine.values import Item, validate_key_values

#: What a request touches (``_access``): writes the table its TableName names.
ACCESS = on_table("DeleteItem", write=True)


Checked = tuple[str, Item, BoundCondition | None]


def validate(request: dict[str, Any]) -> Checked:
    """ReturnValues, the expression parameters, the key's values, then the
    condition (dynalite's validations/deleteItem.js)."""
    return_values = check_return_values("DeleteItem", request)
    uses_expressions = check_expression_params(request, ("ConditionExpression",), ("Expected",))
    key = validate_key_values(request["Key"])
    bound = bind_placeholders(request) if uses_expressions else None
    condition = condition_of(request, bound)
    if bound is not None:
        bound.check_unused()
    return return_values, key, condition


def delete_item(txn: Transaction, request: dict[str, Any], checked: Checked) -> dict[str, Any]:
    return_values, key, condition = checked
    table = get_table(txn, request["TableName"])
    key = table.keys.check_key(key)
    hk, rk = table.keys.encode(key)
    old = txn.get_item(table.record, hk, rk)
    check_condition(request, condition, old)
    response: dict[str, Any] = {}
    index_units = None
    if old is not None:
        index_units = write_item(txn, table.record, table.indexes, hk, rk, old, None)
        if return_values == "ALL_OLD":
            response["Attributes"] = old
    if wants_capacity(request) or REPORTING[0]:
        entry = charged(txn, request, table.name, item_write_units(old), index_units)
        if entry is not None:
            response["ConsumedCapacity"] = entry
    return response
