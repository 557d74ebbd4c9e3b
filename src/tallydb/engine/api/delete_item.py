"""DeleteItem: remove one item, optionally only if a condition holds."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._access import on_table
from tallydb.engine.api._conditions import check_condition, condition_of
from tallydb.engine.api._indexes import write_item
from tallydb.engine.api._params import check_return_values, placeholders
from tallydb.engine.api._tables import get_table
from tallydb.engine.api._units import consumed, wants_capacity, write_units
from tallydb.engine.storage import Transaction
from tallydb.engine.values.size import item_size

#: What a request touches (``_access``): writes the table its TableName names.
ACCESS = on_table("DeleteItem", write=True)


def delete_item(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    return_values = check_return_values("DeleteItem", request)
    bound = placeholders(request, ("ConditionExpression",), ("Expected",))
    condition = condition_of(request, bound)
    if bound is not None:
        bound.check_unused()
    table = get_table(txn, request["TableName"])
    key = table.keys.validate_key(request["Key"])
    hk, rk = table.keys.encode(key)
    old = txn.get_item(table.record, hk, rk)
    check_condition(request, condition, old)
    response: dict[str, Any] = {}
    index_units = None
    if old is not None:
        index_units = write_item(txn, table.record, table.indexes, hk, rk, old, None)
        if return_values == "ALL_OLD":
            response["Attributes"] = old
    if wants_capacity(request):
        units = write_units(item_size(old) if old is not None else 0)
        response["ConsumedCapacity"] = consumed(
            table.name, units, request["ReturnConsumedCapacity"], index_units)
    return response
