"""Request-level rules for the expression parameters the item operations share.

DynamoDB checks a request's expression parameters as a whole before it
parses any expression (dynalite ``validateExpressionParams`` and
``validateExpressions``, recorded against DynamoDB; the mixed-parameter and
EAV-without-expression texts also captured 2026 by nubo-db/dynamodb-conformance):

1. expression and non-expression (legacy) parameters may not be mixed;
2. ExpressionAttributeNames needs an expression, ExpressionAttributeValues
   an expression that can use values (ProjectionExpression cannot);
3. then, after the operation has checked its key and legacy parameters,
   the maps may not be empty, their keys must be ``#name``/``:value``, and
   every value must be a valid AttributeValue.

``check_expression_params`` is step 1-2, ``bind_placeholders`` step 3,
``placeholders`` both at once for operations with nothing to check between.
``check_return_values`` is the ReturnValues rule of PutItem and DeleteItem
(consumed capacity lives in ``api/_units.py``).

The parameter lists per operation are DynamoDB's, in the order its messages
name them (dynalite validations/*.js).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from tallydb.errors import ValidationException
from tallydb.expressions import Placeholders
from tallydb.values import validate_value
from tallydb.values.types import Wording

__all__ = [
    "EXPRESSION_PARAMETERS",
    "bind_placeholders",
    "check_expression_params",
    "check_return_values",
    "placeholders",
]

#: operation -> (expression parameters, non-expression parameters)
EXPRESSION_PARAMETERS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "PutItem": (("ConditionExpression",), ("Expected",)),
    "DeleteItem": (("ConditionExpression",), ("Expected",)),
    "UpdateItem": (("UpdateExpression", "ConditionExpression"), ("AttributeUpdates", "Expected")),
    "GetItem": (("ProjectionExpression",), ("AttributesToGet",)),
    "Query": (
        ("ProjectionExpression", "FilterExpression", "KeyConditionExpression"),
        ("AttributesToGet", "QueryFilter", "ConditionalOperator", "KeyConditions"),
    ),
    "Scan": (
        ("ProjectionExpression", "FilterExpression"),
        ("AttributesToGet", "ScanFilter", "ConditionalOperator"),
    ),
}

MIXED_PARAMETERS = (
    "Can not use both expression and non-expression parameters in the same request: "
    "Non-expression parameters: {{{legacy}}} Expression parameters: {{{expressions}}}"
)
NAMES_WITHOUT_EXPRESSION = "ExpressionAttributeNames can only be specified when using expressions"
VALUES_WITHOUT_EXPRESSION = (
    "ExpressionAttributeValues can only be specified when using expressions: {params} {verb} null"
)
EMPTY_NAMES = "ExpressionAttributeNames must not be empty"
EMPTY_VALUES = "ExpressionAttributeValues must not be empty"
INVALID_NAME_KEY = 'ExpressionAttributeNames contains invalid key: Syntax error; key: "{key}"'
INVALID_VALUE_KEY = 'ExpressionAttributeValues contains invalid key: Syntax error; key: "{key}"'
INVALID_VALUE = "ExpressionAttributeValues contains invalid value: {message} for key {key}"
#: PutItem and DeleteItem take only NONE and ALL_OLD (dynalite; 2026 us-east-1
#: captures); the enum itself is checked by ``check_request``.
INVALID_RETURN_VALUES = "ReturnValues can only be ALL_OLD or NONE"

_NAME_KEY = re.compile(r"#[0-9a-zA-Z_]+")
_VALUE_KEY = re.compile(r":[0-9a-zA-Z_]+")
_OLD_ONLY = frozenset({"PutItem", "DeleteItem"})


def check_expression_params(
    request: Mapping[str, Any],
    expression_params: Sequence[str] = ("UpdateExpression", "ConditionExpression"),
    legacy_params: Sequence[str] = ("AttributeUpdates", "Expected"),
) -> bool:
    """Steps 1-2: refuse mixed parameters and placeholder maps without an
    expression. Returns whether the request uses expressions at all."""
    get = request.get
    used = [p for p in expression_params if get(p) is not None]
    if used and "ProjectionExpression" not in expression_params:
        # The common case: an item write with expressions and nothing to refuse.
        for p in legacy_params:
            if get(p) is not None:
                break
        else:
            return True
    if used:
        legacy = list(legacy_params)
        # Query may pair KeyConditions with a FilterExpression/ProjectionExpression
        # as long as it has no KeyConditionExpression (dynalite).
        if "KeyConditions" in legacy and request.get("KeyConditionExpression") is None:
            legacy.remove("KeyConditions")
        mixed = [p for p in legacy if request.get(p) is not None]
        if mixed:
            raise ValidationException(
                MIXED_PARAMETERS.format(legacy=", ".join(mixed), expressions=", ".join(used))
            )
    if request.get("ExpressionAttributeNames") is not None and not used:
        raise ValidationException(NAMES_WITHOUT_EXPRESSION)
    value_params = [p for p in expression_params if p != "ProjectionExpression"]
    if (
        value_params
        and request.get("ExpressionAttributeValues") is not None
        and all(request.get(p) is None for p in value_params)
    ):
        raise ValidationException(
            VALUES_WITHOUT_EXPRESSION.format(
                params=" and ".join(value_params), verb="are" if len(value_params) > 1 else "is"
            )
        )
    return bool(used)


def bind_placeholders(request: Mapping[str, Any], *, wording: Wording = "current"
                      ) -> Placeholders:
    """Step 3: check ExpressionAttributeNames/Values and bind them.

    Returns ``tallydb.expressions.Placeholders(names, values)`` (values
    canonical, as ``tallydb.values.validate_value`` returns them); ``wording``
    is passed to ``validate_value`` (see ``tallydb.values.messages``).
    """
    names = request.get("ExpressionAttributeNames")
    values = request.get("ExpressionAttributeValues")
    if names is not None:
        if not names:
            raise ValidationException(EMPTY_NAMES)
        for key in names:
            if key not in _good_names and _good_key(key, _NAME_KEY, _good_names) is None:
                raise ValidationException(INVALID_NAME_KEY.format(key=key))
    if values is not None:
        if not values:
            raise ValidationException(EMPTY_VALUES)
        for key in values:
            if key not in _good_values and _good_key(key, _VALUE_KEY, _good_values) is None:
                raise ValidationException(INVALID_VALUE_KEY.format(key=key))
        checked: dict[str, Any] | None = None
        for key, value in values.items():
            try:
                canonical = validate_value(value, wording=wording)
            except ValidationException as e:
                raise ValidationException(
                    INVALID_VALUE.format(message=e.message, key=key)
                ) from None
            if canonical is not value:
                if checked is None:
                    checked = dict(values)
                checked[key] = canonical
        if checked is not None:
            values = checked
    return Placeholders(names, values)


#: Placeholder keys seen well-formed (``#name``, ``:value``): the hot path
#: is one set lookup instead of a regular expression.
_good_names: set[str] = set()
_good_values: set[str] = set()


def _good_key(key: str, pattern: re.Pattern[str], seen: set[str]) -> str | None:
    if type(key) is not str or pattern.fullmatch(key) is None:
        return None
    if len(seen) >= 4096:
        seen.clear()
    seen.add(key)
    return key


def placeholders(
    request: Mapping[str, Any],
    expression_params: Sequence[str] = ("UpdateExpression", "ConditionExpression"),
    legacy_params: Sequence[str] = ("AttributeUpdates", "Expected"),
    *,
    wording: Wording = "current",
) -> Placeholders | None:
    """Steps 1-3 at once: the request's bound placeholders, or None when it
    uses no expressions (a legacy or a plain request)."""
    if not check_expression_params(request, expression_params, legacy_params):
        return None
    return bind_placeholders(request, wording=wording)


def check_return_values(operation: str, request: Mapping[str, Any]) -> str:
    """The request's ReturnValues ("NONE" when absent), refused when the
    operation does not offer it (PutItem and DeleteItem: NONE or ALL_OLD)."""
    value = request.get("ReturnValues")
    if value is None:
        return "NONE"
    if operation in _OLD_ONLY and value not in ("NONE", "ALL_OLD"):
        raise ValidationException(INVALID_RETURN_VALUES)
    return str(value)
