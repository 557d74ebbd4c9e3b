"""What the single-item writes share: their condition (ConditionExpression or
legacy ``Expected``) and how a failed one answers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tallydb.engine.errors import ConditionalCheckFailedException
from tallydb.engine.expressions import BoundCondition, Placeholders, from_expected
from tallydb.engine.expressions.legacy import check_conditional_operator
from tallydb.engine.values import Item


def condition_of(request: Mapping[str, Any], placeholders: Placeholders | None
                 ) -> BoundCondition | None:
    """The request's ConditionExpression, or its legacy Expected, bound."""
    text = request.get("ConditionExpression")
    if text is not None and placeholders is not None:
        return placeholders.condition(text)
    expected = request.get("Expected")
    check_conditional_operator(expected, request.get("ConditionalOperator"))
    if expected:
        return from_expected(expected, request.get("ConditionalOperator"))
    return None


def check_condition(request: Mapping[str, Any], condition: BoundCondition | None,
                    item: Item | None) -> None:
    """Raise ConditionalCheckFailedException when the condition does not hold,
    carrying the item when ReturnValuesOnConditionCheckFailure is ALL_OLD."""
    if condition is None or condition.holds(item):
        return
    wants_item = request.get("ReturnValuesOnConditionCheckFailure") == "ALL_OLD"
    raise ConditionalCheckFailedException(item=item if wants_item and item else None)
