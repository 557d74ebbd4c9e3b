"""GetItem: one item by its key, optionally projected."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._access import on_table
from tallydb.engine.api._insights import INSIGHTS
from tallydb.engine.api._jobs import integrations
from tallydb.engine.api._params import bind_placeholders, check_expression_params
from tallydb.engine.api._tables import get_table
from tallydb.engine.api._units import consumed, item_read_units, wants_capacity
from tallydb.engine.expressions import BoundProjection, from_attributes_to_get
from tallydb.engine.storage import Transaction
from tallydb.engine.values import Item, validate_key_values

Checked = tuple[Item, BoundProjection | None]


def validate(request: dict[str, Any]) -> Checked:
    """The key's values and the projection, in DynamoDB's order (dynalite's
    validations/getItem.js): expression parameters, the key, the projection."""
    uses_expressions = check_expression_params(
        request, ("ProjectionExpression",), ("AttributesToGet",))
    key = validate_key_values(request["Key"])
    projection = None
    if uses_expressions:
        bound = bind_placeholders(request)
        if request.get("ProjectionExpression") is not None:
            projection = bound.projection(request["ProjectionExpression"])
        bound.check_unused()
    elif request.get("AttributesToGet"):
        projection = from_attributes_to_get(request["AttributesToGet"])
    return key, projection


#: What a request touches (``_access``): reads the table its TableName names.
ACCESS = on_table("GetItem", write=False)


def get_item(txn: Transaction, request: dict[str, Any], checked: Checked) -> dict[str, Any]:
    key, projection = checked
    table = get_table(txn, request["TableName"])
    key = table.keys.check_key(key)
    encoded = table.keys.encode(key)
    item = txn.get_item(table.record, *encoded)
    insights = table.record.description.get(INSIGHTS)
    if insights is not None:  # contributor insights count the item (``_insights``)
        integrations(txn).extras["insights"].accessed(table.record, insights, *encoded, item)
    response: dict[str, Any] = {}
    if item is not None:
        response["Item"] = projection.apply(item) if projection is not None else item
    if wants_capacity(request):
        units = item_read_units(item, consistent=bool(request.get("ConsistentRead")))
        response["ConsumedCapacity"] = consumed(
            table.name, units, request["ReturnConsumedCapacity"])
    return response
