"""Query's and Scan's expression and legacy parameters, bound in DynamoDB's order.

The order follows architect/dynalite's validations/query.js and scan.js
(recorded against DynamoDB): expression/legacy mixing and the placeholder
maps; the legacy filter's conditions; AttributesToGet; the ExclusiveStartKey's
values; for Query, that some key condition is given; the expressions
(KeyCondition, Filter, Projection) and unused placeholders; the legacy
KeyConditions. What needs the table (the key schema) comes later, in the
operation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from tallydb.engine.api._key_conditions import (
    NEITHER,
    KeyTerm,
    check_conditions,
    from_key_conditions,
    from_key_expression,
)
from tallydb.engine.api._params import EXPRESSION_PARAMETERS, placeholders
from tallydb.engine.errors import ValidationException
from tallydb.engine.expressions import from_attributes_to_get, from_expected
from tallydb.engine.expressions.legacy import check_conditional_operator
from tallydb.engine.values import Item, Wording, messages, validate_value

START_INVALID: Final = "The provided starting key is invalid: {}"
FILTER_ON_KEY: Final = (
    "{parameter} can only contain non-primary key attributes: Primary key attribute: {name}"
)
NESTED_KEY: Final = (
    "Key attributes must be scalars; list random access '[]' and map lookup '.' are not "
    "allowed: Key: {}"
)
#: Value errors DynamoDB reports inside "The provided starting key is invalid: ";
#: the others it reports bare (dynalite test/query.js, recorded against DynamoDB).
_PREFIXED: Final = frozenset({
    messages.EMPTY_ATTRIBUTE_VALUE, messages.MULTIPLE_DATATYPES, messages.NULL_NOT_TRUE,
    messages.EMPTY_STRING_SET, messages.EMPTY_BINARY_SET,
})


@dataclass(frozen=True)
class ReadExpressions:
    """A Query's or Scan's bound parameters."""

    key_terms: list[KeyTerm] | None
    key_expression: bool
    keep: Callable[[Item], bool] | None
    project: Callable[[Item], Item] | None
    filter_names: frozenset[str]
    filter_parameter: str
    start: Item | None
    projected_nested: frozenset[str] = frozenset()
    filtered_nested: frozenset[str] = frozenset()
    projected_heads: frozenset[str] = frozenset()


def start_key_values(request: dict[str, Any], *, wording: Any) -> Item | None:
    """The ExclusiveStartKey's AttributeValues, checked (canonical)."""
    start = request.get("ExclusiveStartKey")
    if start is None:
        return None
    checked: Item = {}
    for name, value in start.items():
        try:
            checked[name] = validate_value(value, wording=wording)
        except ValidationException as e:
            if e.message in _PREFIXED:
                raise ValidationException(START_INVALID.format(e.message)) from None
            raise
    return checked


def read_expressions(request: dict[str, Any], *, operation: str) -> ReadExpressions:
    wording: Wording = "current" if operation == "Query" else "older"
    expression_params, legacy_params = EXPRESSION_PARAMETERS[operation]
    bound = placeholders(request, expression_params, legacy_params, wording=wording)
    legacy_filter_name = "QueryFilter" if operation == "Query" else "ScanFilter"
    legacy_filter = request.get(legacy_filter_name)
    if bound is None:
        check_conditional_operator(legacy_filter, request.get("ConditionalOperator"))
    if legacy_filter is not None:
        legacy_filter = check_conditions(legacy_filter, wording=wording)
    attributes_to_get = request.get("AttributesToGet")
    projection = None if attributes_to_get is None else from_attributes_to_get(attributes_to_get)
    start = start_key_values(request, wording=wording)

    key_terms: list[KeyTerm] | None = None
    key_text = request.get("KeyConditionExpression")
    if operation == "Query" and key_text is None and request.get("KeyConditions") is None:
        raise ValidationException(NEITHER)

    keep = None
    filter_names: frozenset[str] = frozenset()
    filtered_nested: frozenset[str] = frozenset()
    filter_parameter = legacy_filter_name
    if bound is not None:
        if key_text is not None:
            key_terms = from_key_expression(bound.key_condition(key_text))
        filter_text = request.get("FilterExpression")
        if filter_text is not None:
            condition = bound.filter(filter_text)
            keep, filter_names = condition.holds, condition.attribute_names
            filtered_nested = condition.nested_heads
            filter_parameter = "Filter Expression"
        projection_text = request.get("ProjectionExpression")
        if projection_text is not None:
            projection = bound.projection(projection_text)
        bound.check_unused()
    if legacy_filter is not None:
        condition = from_expected(legacy_filter, request.get("ConditionalOperator"))
        keep, filter_names = condition.holds, frozenset(legacy_filter)
    if operation == "Query" and key_terms is None:
        key_terms = from_key_conditions(request["KeyConditions"])

    return ReadExpressions(
        key_terms=key_terms,
        key_expression=key_text is not None,
        keep=keep,
        project=None if projection is None else projection.apply,
        filter_names=filter_names,
        filter_parameter=filter_parameter,
        start=start,
        projected_nested=frozenset(
            str(path[0]) for path in (projection.paths if projection else ()) if len(path) > 1),
        projected_heads=frozenset(
            str(path[0]) for path in (projection.paths if projection else ())),
        filtered_nested=filtered_nested,
    )


def check_filter_keys(exprs: ReadExpressions, key_names: tuple[str, ...]) -> None:
    """A Query's filter may not name a key attribute (DynamoDB filters what
    the key condition already chose)."""
    for name in key_names:
        if name in exprs.filter_names:
            raise ValidationException(
                FILTER_ON_KEY.format(parameter=exprs.filter_parameter, name=name))


def check_key_paths(nested: frozenset[str], key_names: tuple[str, ...]) -> None:
    """A projection or filter may not reach into a key attribute (keys are scalars)."""
    for name in key_names:
        if name in nested:
            raise ValidationException(NESTED_KEY.format(name))
