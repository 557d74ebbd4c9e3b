"""Expressions checked as an operation would check them, without a table
and without running anything: what the console's expression builder shows
before a request is sent."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tallydb.engine.api._conditions import condition_of
from tallydb.engine.api._params import placeholders
from tallydb.engine.api._read_exprs import read_expressions
from tallydb.engine.errors import SerializationException

EXPRESSIONS = ("UpdateExpression", "ConditionExpression", "KeyConditionExpression",
               "FilterExpression", "ProjectionExpression")
MAPS = ("ExpressionAttributeNames", "ExpressionAttributeValues")


def check_expressions(request: Mapping[str, Any]) -> str:
    """Check ``request``'s expressions and placeholder maps together, as
    UpdateItem (an UpdateExpression or ConditionExpression), Query (a
    KeyConditionExpression) or Scan (a FilterExpression or
    ProjectionExpression alone) checks them before it reads an item; raise
    DynamoDB's error, or return the operation they were checked as."""
    for name in EXPRESSIONS:
        if name in request and not isinstance(request[name], str):
            raise SerializationException(f"{name} must be a string")
    for name in MAPS:
        value = request.get(name)
        if value is not None and (not isinstance(value, dict) or not all(
                isinstance(k, str) for k in value)):
            raise SerializationException(f"{name} must be a map")
    names = request.get("ExpressionAttributeNames")
    if names is not None and not all(isinstance(v, str) for v in names.values()):
        raise SerializationException("ExpressionAttributeNames values must be strings")
    values = request.get("ExpressionAttributeValues")
    if values is not None and not all(isinstance(v, dict) for v in values.values()):
        raise SerializationException("ExpressionAttributeValues values must be maps")
    wanted = {name: request[name] for name in (*EXPRESSIONS, *MAPS) if name in request}
    if "UpdateExpression" in wanted or "ConditionExpression" in wanted:
        bound = placeholders(wanted)
        if bound is not None:
            if wanted.get("UpdateExpression") is not None:
                bound.update(wanted["UpdateExpression"])
            condition_of(wanted, bound)
            bound.check_unused()
        return "UpdateItem"
    operation = "Query" if "KeyConditionExpression" in wanted else "Scan"
    read_expressions(wanted, operation=operation)
    return operation
