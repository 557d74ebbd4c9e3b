"""GetItem: one item by its key, optionally projected."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Final

from tallydb.engine.api._access import on_table
from tallydb.engine.api._insights import INSIGHTS
from tallydb.engine.api._jobs import integrations
from tallydb.engine.api._params import bind_placeholders, check_expression_params
from tallydb.engine.api._shapes import check_request, model_members
from tallydb.engine.api._tables import Table, get_table
from tallydb.engine.api._units import consumed, item_read_units, wants_capacity
from tallydb.engine.errors import DynamoDBError
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
ACCESS: Final = on_table("GetItem", write=False)


def get_item(txn: Transaction, request: dict[str, Any], checked: Checked) -> dict[str, Any]:
    key, projection = checked
    table = get_table(txn, request["TableName"])
    key = table.keys.check_key(key)
    response = _read(txn, request, table, table.keys.encode(key), projection)
    if projection is None:
        _remember(request, table)
    return response


def quick(txn: Transaction, request: dict[str, Any]) -> dict[str, Any] | None:
    """A GetItem without a projection, of a table, ConsistentRead and
    ReturnConsumedCapacity that passed every check before, whose Key is
    the table's key as it is (``Keys.encode_plain``: no check of it can
    fail): read without the pipeline's steps before it, its key checked
    once. None for any other request (``api.run``). Members outside the
    model are not read, as ``known_members`` drops them."""
    if type(request) is not dict:
        return None
    get = request.get
    if len(request) > 2 and (  # (more than TableName and Key: look for a projection)
            get("ProjectionExpression") is not None or get("AttributesToGet") is not None
            or get("ExpressionAttributeNames") is not None):
        return None
    name, consistent, capacity = (
        get("TableName"), get("ConsistentRead"), get("ReturnConsumedCapacity"))
    try:
        table = _shapes.get(
            (type(name), name, type(consistent), consistent, type(capacity), capacity))
    except TypeError:  # a member that is not hashable: the full checks word it
        return None
    if table is None or txn.table(table.name) is not table.record:
        return None
    encoded = table.keys.encode_plain(get("Key"))
    if encoded is None:
        return None
    return _read(txn, request, table, encoded, None)


def _read(txn: Transaction, request: dict[str, Any], table: Table,
          encoded: tuple[bytes, bytes], projection: BoundProjection | None) -> dict[str, Any]:
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


#: The members that make a GetItem's shape, besides its Key (the
#: projection's members are not remembered: such a request takes the full
#: path); each valid as a string, or ConsistentRead as a boolean.
_SHAPE_MEMBERS: Final = ("TableName", "ConsistentRead", "ReturnConsumedCapacity")
#: Request shapes that passed every check, and their tables (at most
#: ``_SHAPES_REMEMBERED``).
_shapes: Final[dict[tuple[Any, ...], Table]] = {}
_SHAPES_REMEMBERED: Final = 1024


def _shape_of(get: Callable[[str], Any]) -> tuple[Any, ...]:
    """The shape's members, each with its JSON type: equal shapes are equal
    member for member and type for type (``True == 1`` is not mistaken);
    ``quick`` builds the same tuple inline."""
    name, consistent, capacity = (get(member) for member in _SHAPE_MEMBERS)
    return (type(name), name, type(consistent), consistent, type(capacity), capacity)


def _remember(request: dict[str, Any], table: Table) -> None:
    """Remember the shape of a request that passed every check, once its
    shape members alone pass the model's check again (a request reaching
    here from a PartiQL statement has not been through ``check_request``)."""
    get = request.get
    shape = _shape_of(get)
    if shape in _shapes or not _covers_the_model():
        return
    probe = {member: get(member) for member in (*_SHAPE_MEMBERS, "Key")
             if get(member) is not None}
    try:
        check_request("GetItem", probe)
    except DynamoDBError:
        return
    if len(_shapes) >= _SHAPES_REMEMBERED:
        _shapes.clear()
    _shapes[shape] = table


@functools.cache
def _covers_the_model() -> bool:
    """Whether the shape sees every member of botocore's GetItem input
    (a newer model may add one: then no shape is remembered)."""
    return set(model_members("GetItem")) <= {
        *_SHAPE_MEMBERS, "Key", "ProjectionExpression", "AttributesToGet",
        "ExpressionAttributeNames"}
