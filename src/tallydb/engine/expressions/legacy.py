"""The pre-expression parameters older SDKs still send, translated into the
same bound objects as expressions: AttributeUpdates (PUT, ADD, DELETE),
Expected (Value/Exists, or ComparisonOperator with AttributeValueList) with
ConditionalOperator, and AttributesToGet. Validation messages are DynamoDB's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tallydb.engine.errors import ValidationException
from tallydb.engine.expressions.binding import BoundProjection
from tallydb.engine.expressions.condition import BoundCondition, ConditionPlan
from tallydb.engine.expressions.condition_eval import begins_with, contains
from tallydb.engine.expressions.messages import INVALID
from tallydb.engine.expressions.update import BoundUpdate, UpdatePlan
from tallydb.engine.expressions.update_apply import AddStep, DeleteStep, PutStep, RemoveStep, Step
from tallydb.engine.values import (
    AttributeValue,
    Item,
    compare_values,
    messages,
    validate_value,
    values_equal,
)

_SETS = frozenset({"SS", "NS", "BS"})
_ADDABLE = frozenset({"N", "L", "SS", "NS", "BS"})
_NO_VALUES: Mapping[str, AttributeValue] = {}


def check_name(name: str) -> None:
    """A legacy parameter's attribute name may not be empty."""
    if not name:
        raise ValidationException(messages.EMPTY_ATTRIBUTE_NAME)


def _type(value: AttributeValue) -> str:
    return next(iter(value))


# -- AttributeUpdates -----------------------------------------------------------


def from_attribute_updates(attribute_updates: Mapping[str, Mapping[str, Any]]) -> BoundUpdate:
    """AttributeUpdates as an update: PUT (the default) sets, ADD adds a number,
    unites a set or appends a list, DELETE removes the attribute or, given a
    set, those members."""
    steps: list[Step] = []
    assigned: dict[str, str | None] = {}
    for name, update in attribute_updates.items():
        check_name(name)
        value = update.get("Value")
        action = update.get("Action") or "PUT"
        if action not in ("PUT", "ADD", "DELETE"):
            raise ValidationException(
                f"1 validation error detected: Value '{action}' at "
                f"'attributeUpdates.{name}.member.action' failed to satisfy constraint: "
                "Member must satisfy enum value set: [ADD, PUT, DELETE]")
        if value is None:
            if action != "DELETE":
                raise ValidationException(
                    INVALID + "Only DELETE action is allowed when no attribute value is specified")
            steps.append(RemoveStep((name,)))
            assigned[name] = None
            continue
        value = validate_value(value)
        kind = _type(value)
        assigned[name] = kind
        if action == "DELETE":
            if kind not in _SETS:
                raise ValidationException(
                    INVALID + f"DELETE action with value is not supported for the type {kind}")
            steps.append(DeleteStep((name,), "", constant=value, legacy=True))
        elif action == "ADD":
            if kind not in _ADDABLE:
                raise ValidationException(
                    INVALID + f"ADD action is not supported for the type {kind}")
            steps.append(AddStep((name,), "", constant=value, legacy=True))
        else:
            steps.append(PutStep((name,), value))
    return BoundUpdate(UpdatePlan(steps, assigned), _NO_VALUES)


# -- Expected, QueryFilter, ScanFilter, KeyConditions --------------------------------

_ORDERED = frozenset({"S", "N", "B"})
_SCALARS_AND_SETS = frozenset({"S", "N", "B", "SS", "NS", "BS"})
#: ComparisonOperator -> (how many AttributeValues it takes, None for one or
#: more; the types they may have). EQ and NE compare documents and booleans
#: too (DynamoDB answers them, whatever its reference says).
COMPARISON_OPERATORS: dict[str, tuple[int | None, frozenset[str]]] = {
    "EQ": (1, _SCALARS_AND_SETS | {"L", "M", "BOOL"}),
    "NE": (1, _SCALARS_AND_SETS | {"L", "M", "BOOL"}),
    "LE": (1, _ORDERED),
    "LT": (1, _ORDERED),
    "GE": (1, _ORDERED),
    "GT": (1, _ORDERED),
    "CONTAINS": (1, _ORDERED),
    "NOT_CONTAINS": (1, _ORDERED),
    "BEGINS_WITH": (1, frozenset({"S", "B"})),
    "IN": (None, _ORDERED),
    "BETWEEN": (2, _ORDERED),
    "NULL": (0, frozenset()),
    "NOT_NULL": (0, frozenset()),
}

#: ConditionalOperator needs two conditions to join (the wording of DynamoDB's
#: request validator, as Amazon's DAX client reproduces it).
CONDITIONAL_OPERATOR_ALONE = "ConditionalOperator cannot be used without Filter or Expected"
CONDITIONAL_OPERATOR_ONE = (
    "ConditionalOperator can only be used when Filter or Expected has two or more elements")


def check_conditional_operator(conditions: Mapping[str, Any] | None,
                               conditional_operator: str | None) -> None:
    """Refuse a ConditionalOperator with fewer than two conditions to join."""
    if conditional_operator is None:
        return
    if conditions is None:
        raise ValidationException(CONDITIONAL_OPERATOR_ALONE)
    if len(conditions) < 2:
        raise ValidationException(CONDITIONAL_OPERATOR_ONE)


def check_operands(operator: str, args: Sequence[AttributeValue]) -> None:
    """A ComparisonOperator's AttributeValues (canonical), checked in
    DynamoDB's order: their number, one type for all, a type the operator
    takes, BETWEEN's bounds in order."""
    count, types = COMPARISON_OPERATORS[operator]
    if (count is None and not args) or (count is not None and len(args) != count):
        raise ValidationException(
            INVALID + f"Invalid number of argument(s) for the {operator} ComparisonOperator")
    if not args:
        return
    kind = _type(args[0])
    if any(_type(arg) != kind for arg in args):
        raise ValidationException(
            INVALID + "AttributeValues inside AttributeValueList must be of same type")
    if kind not in types:
        raise ValidationException(
            INVALID + f"ComparisonOperator {operator} is not valid for {kind} AttributeValue type")
    if operator == "BETWEEN":
        order = compare_values(args[0], args[1])
        if order is not None and order > 0:
            raise ValidationException(
                "The BETWEEN condition was provided a range where the lower bound is "
                "greater than the upper bound")


Test = Callable[[AttributeValue | None, list[AttributeValue]], bool]


def _ordered(test: Callable[[int], bool]) -> Test:
    def check(value: AttributeValue | None, args: list[AttributeValue]) -> bool:
        if value is None:
            return False
        order = compare_values(value, args[0])
        return order is not None and test(order)

    return check


def _equal(value: AttributeValue | None, args: list[AttributeValue]) -> bool:
    return value is not None and values_equal(value, args[0])


def _between(value: AttributeValue | None, args: list[AttributeValue]) -> bool:
    if value is None:
        return False
    low, high = compare_values(value, args[0]), compare_values(value, args[1])
    return low is not None and high is not None and low >= 0 and high <= 0


_TESTS: dict[str, Test] = {
    "EQ": _equal,
    "NE": lambda v, a: not _equal(v, a),
    "LT": _ordered(lambda c: c < 0),
    "LE": _ordered(lambda c: c <= 0),
    "GT": _ordered(lambda c: c > 0),
    "GE": _ordered(lambda c: c >= 0),
    "NOT_NULL": lambda v, a: v is not None,
    "NULL": lambda v, a: v is None,
    "CONTAINS": lambda v, a: v is not None and contains(v, a[0]),
    # a missing attribute contains nothing, yet NOT_CONTAINS is false on it
    "NOT_CONTAINS": lambda v, a: v is not None and not contains(v, a[0]),
    "BEGINS_WITH": lambda v, a: v is not None and begins_with(v, a[0]),
    "IN": lambda v, a: v is not None and any(values_equal(v, x) for x in a),
    "BETWEEN": _between,
}


def _expected_test(name: str, condition: Mapping[str, Any]) -> Callable[[Item], bool]:
    check_name(name)
    value = condition.get("Value")
    value_list = condition.get("AttributeValueList")
    operator = condition.get("ComparisonOperator")
    exists = condition.get("Exists")
    if value_list is not None and value is not None:
        raise ValidationException(
            INVALID + f"Value and AttributeValueList cannot be used together for Attribute: {name}")
    if operator is not None:
        if exists is not None:
            raise ValidationException(
                INVALID + "Exists and ComparisonOperator cannot be used together for "
                f"Attribute: {name}")
        if operator not in ("NULL", "NOT_NULL") and value_list is None and value is None:
            raise ValidationException(
                INVALID + f"Value or AttributeValueList must be used with ComparisonOperator: "
                f"{operator} for Attribute: {name}")
        args: list[AttributeValue] = [
            validate_value(arg) for arg in
            (value_list if value_list is not None else [value] if value is not None else [])]
        check_operands(operator, args)
        test = _TESTS[operator]
        return lambda item: test(item.get(name), args)
    if value_list is not None:
        raise ValidationException(
            INVALID + "AttributeValueList can only be used with a ComparisonOperator for "
            f"Attribute: {name}")
    if exists is None or exists:
        if value is None:
            wording = "null" if exists is None else "true"
            raise ValidationException(
                INVALID + f"Value must be provided when Exists is {wording} for Attribute: {name}")
        expected_value = validate_value(value)
        return lambda item: _equal(item.get(name), [expected_value])
    if value is not None:
        raise ValidationException(
            INVALID + f"Value cannot be used when Exists is false for Attribute: {name}")
    return lambda item: name not in item


def from_expected(expected: Mapping[str, Mapping[str, Any]],
                  conditional_operator: str | None = None) -> BoundCondition:
    """Expected (or a QueryFilter/ScanFilter) as a condition: every
    attribute's test must hold (AND, the default), or any of them
    (ConditionalOperator OR)."""
    tests = [_expected_test(name, condition) for name, condition in expected.items()]
    if conditional_operator == "OR":
        def predicate(item: Item, values: Mapping[str, AttributeValue]) -> bool:
            return any(test(item) for test in tests)
    else:
        def predicate(item: Item, values: Mapping[str, AttributeValue]) -> bool:
            return all(test(item) for test in tests)
    plan = ConditionPlan(predicate, frozenset(), frozenset(expected))
    return BoundCondition(plan, _NO_VALUES)


# -- AttributesToGet ------------------------------------------------------------------


def from_attributes_to_get(names: Sequence[str]) -> BoundProjection:
    """AttributesToGet as a projection of top-level attributes."""
    seen: set[str] = set()
    for name in names:
        check_name(name)
        if name in seen:
            raise ValidationException(
                INVALID + f"Duplicate value in attribute name: {name}")
        seen.add(name)
    return BoundProjection([(name,) for name in names])
