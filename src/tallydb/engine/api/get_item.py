"""GetItem: one item by its key, optionally projected."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._access import on_table
from tallydb.engine.api._insights import INSIGHTS
from tallydb.engine.api._jobs import integrations
from tallydb.engine.api._params import placeholders
from tallydb.engine.api._tables import get_table
from tallydb.engine.api._units import consumed, read_units, wants_capacity
from tallydb.engine.expressions import BoundProjection, from_attributes_to_get
from tallydb.engine.storage import Transaction
from tallydb.engine.values.size import item_size


def _projection(request: dict[str, Any]) -> BoundProjection | None:
    bound = placeholders(request, ("ProjectionExpression",), ("AttributesToGet",))
    if bound is not None:
        projection = None
        if request.get("ProjectionExpression") is not None:
            projection = bound.projection(request["ProjectionExpression"])
        bound.check_unused()
        return projection
    if request.get("AttributesToGet"):
        return from_attributes_to_get(request["AttributesToGet"])
    return None


#: What a request touches (``_access``): reads the table its TableName names.
ACCESS = on_table("GetItem", write=False)


def get_item(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    projection = _projection(request)
    table = get_table(txn, request["TableName"])
    key = table.keys.validate_key(request["Key"])
    encoded = table.keys.encode(key)
    item = txn.get_item(table.record, *encoded)
    insights = table.record.description.get(INSIGHTS)
    if insights is not None:  # contributor insights count the item (``_insights``)
        integrations(txn).extras["insights"].accessed(table.record, insights, *encoded, item)
    response: dict[str, Any] = {}
    if item is not None:
        response["Item"] = projection.apply(item) if projection is not None else item
    if wants_capacity(request):
        units = read_units(item_size(item) if item is not None else 0,
                           consistent=bool(request.get("ConsistentRead")))
        response["ConsumedCapacity"] = consumed(
            table.name, units, request["ReturnConsumedCapacity"])
    return response
