"""Expressions and PartiQL statements checked as an operation would check
them, without a table and without running anything: what the console's
expression builder and PartiQL editor show before a request is sent."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tallydb.engine.api._conditions import condition_of
from tallydb.engine.api._params import placeholders
from tallydb.engine.api._read_exprs import read_expressions
from tallydb.engine.errors import SerializationException, ValidationException
from tallydb.engine.partiql import Exists, KeyAttributes, Select, parse_counted, plan_with
from tallydb.engine.partiql.messages import EXISTS_OUTSIDE_TRANSACTION, PARAMETER_COUNT
from tallydb.engine.values import validate_value

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


def check_statement(request: Mapping[str, Any], keys: KeyAttributes | None = None
                    ) -> dict[str, Any]:
    """Check ``request``'s PartiQL ``Statement`` and ``Parameters`` as
    ExecuteStatement checks them before it looks its table up; raise
    DynamoDB's error, or return what the statement is: its kind (``Select``,
    ``Update``, ...), its table and index, how many ``?`` it has, and, given
    the key attributes of that table (or index), the operation and request
    it runs as (``planned``)."""
    text = request.get("Statement")
    if not isinstance(text, str):
        raise SerializationException("Statement must be a string")
    parameters = request.get("Parameters") or []
    if not isinstance(parameters, list):
        raise SerializationException("Parameters must be a list")
    statement, count = parse_counted(text)
    if isinstance(statement, Exists):
        raise ValidationException(EXISTS_OUTSIDE_TRANSACTION)
    values = [validate_value(p) for p in parameters]
    if len(values) < count:
        raise ValidationException(PARAMETER_COUNT)
    answer: dict[str, Any] = {
        "statement": type(statement).__name__, "table": statement.table,
        "index": statement.index if isinstance(statement, Select) else None,
        "parameters": count,
    }
    if keys is not None:
        planned = plan_with(statement, values, keys)
        answer["planned"] = {"operation": planned.operation, "request": planned.request}
    return answer
