"""Condition- and FilterExpression: compiled once per text, bound per request.

The compiled predicate is cached per combination of attribute names; binding
only checks the request's values and pairs them with the predicate.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache

from tallydb.engine.expressions import ast
from tallydb.engine.expressions.condition_check import (
    VALID_TYPES,
    AtomicCheck,
    ConditionAnalysis,
    FunctionCheck,
    analyze_condition,
)
from tallydb.engine.expressions.condition_eval import Predicate, compile_condition
from tallydb.engine.expressions.messages import (
    ExpressionError,
    between_order,
    between_types,
    invalid_type_name,
    not_distinct,
    undefined_name,
    undefined_value,
    wrong_comparison_operand_type,
    wrong_operand_type,
)
from tallydb.engine.expressions.parser import parse_condition
from tallydb.engine.expressions.paths import resolve
from tallydb.engine.values import AttributeValue, Item, compare_values

Values = Mapping[str, AttributeValue]
_PLAN_CACHE_SIZE = 64


class ConditionPlan:
    """A condition with its names resolved."""

    __slots__ = ("nested_heads", "predicate", "top_names")

    def __init__(self, predicate: Predicate, nested_heads: frozenset[str],
                 top_names: frozenset[str]) -> None:
        self.predicate = predicate
        self.nested_heads = nested_heads
        self.top_names = top_names


class BoundCondition:
    """A condition ready to test items: ``holds(item)``; a missing item is
    tested as an empty one."""

    __slots__ = ("_plan", "_predicate", "_values")

    def __init__(self, plan: ConditionPlan, values: Values) -> None:
        self._plan = plan
        self._predicate = plan.predicate
        self._values = values

    def holds(self, item: Item | None) -> bool:
        return self._predicate(item if item is not None else {}, self._values)

    @property
    def nested_heads(self) -> frozenset[str]:
        """Top-level attributes reached into with ``.`` or ``[]``."""
        return self._plan.nested_heads

    @property
    def attribute_names(self) -> frozenset[str]:
        """Top-level attributes the condition refers to."""
        return self._plan.top_names


class CompiledCondition:
    """A condition's tree and static analysis (cached per text)."""

    __slots__ = ("_plans", "analysis", "name_refs", "tree", "value_refs")

    def __init__(self, tree: ast.Condition, analysis: ConditionAnalysis) -> None:
        self.tree = tree
        self.analysis = analysis
        self.name_refs = tuple(dict.fromkeys(analysis.name_refs))
        self.value_refs = tuple(dict.fromkeys(analysis.value_refs))
        self._plans: dict[tuple[str, ...], ConditionPlan] = {}

    def check(self, names: Mapping[str, str], values: Values) -> None:
        """Everything DynamoDB checks before reading an item; raises
        ExpressionError."""
        analysis = self.analysis
        if analysis.static_error is not None:
            raise ExpressionError(analysis.static_error)
        for atomic in analysis.atomics:
            problem = _atomic_problem(atomic, names, values)
            if problem is not None:
                raise ExpressionError(problem)

    def bind(self, names: Mapping[str, str], values: Values) -> BoundCondition:
        self.check(names, values)
        return BoundCondition(self.plan(names), values)

    def plan(self, names: Mapping[str, str]) -> ConditionPlan:
        key = tuple(names[ref] for ref in self.name_refs)
        plan = self._plans.get(key)
        if plan is None:
            plan = _plan(self.tree, names)
            if len(self._plans) >= _PLAN_CACHE_SIZE:
                self._plans.clear()
            self._plans[key] = plan
        return plan


@lru_cache(maxsize=2048)
def compiled_condition(text: str) -> CompiledCondition:
    """The compiled condition; raises ExpressionError (empty, syntax)."""
    parsed = parse_condition(text)
    return CompiledCondition(parsed.tree, analyze_condition(parsed))


def _atomic_problem(atomic: AtomicCheck, names: Mapping[str, str], values: Values
                    ) -> str | None:
    for ref in atomic.refs:
        if isinstance(ref, ast.NameRef):
            if ref.ref not in names:
                return undefined_name(ref.ref)
        elif ref.ref not in values:
            return undefined_value(ref.ref)
    if atomic.operand_error is not None:
        return atomic.operand_error
    for operator, first, second in atomic.distinct:
        one = resolve(first, names)
        if one == resolve(second, names):
            return not_distinct(operator, one)
    for check in atomic.functions:
        problem = _FUNCTION_CHECKS[check.kind](check, values)
        if problem is not None:
            return problem
    return None


def _static(check: FunctionCheck, values: Values) -> str | None:
    return check.message


def _types(check: FunctionCheck, values: Values) -> str | None:
    kind = next(iter(values[check.ref]))
    if (check.allowed and kind not in check.allowed) or kind in check.banned:
        return wrong_operand_type(check.function, kind)
    return None


def _ordered(check: FunctionCheck, values: Values) -> str | None:
    kind = next(iter(values[check.ref]))
    if kind not in ("S", "N", "B"):
        return wrong_comparison_operand_type(check.function, kind)
    return None


def _type_name(check: FunctionCheck, values: Values) -> str | None:
    value = values[check.ref]
    kind = next(iter(value))
    if kind != "S":
        return wrong_operand_type(check.function, kind)
    if value["S"] not in VALID_TYPES:
        return invalid_type_name(value["S"])
    return None


def _between(check: FunctionCheck, values: Values) -> str | None:
    low, high = values[check.ref], values[check.other]
    if next(iter(low)) != next(iter(high)):
        return between_types(low, high)
    order = compare_values(low, high)
    if order is not None and order > 0:
        return between_order(low, high)
    return None


_FUNCTION_CHECKS: dict[str, Callable[[FunctionCheck, Values], str | None]] = {
    "static": _static,
    "types": _types,
    "ordered": _ordered,
    "type_name": _type_name,
    "between": _between,
}


def _plan(tree: ast.Condition, names: Mapping[str, str]) -> ConditionPlan:
    nested: set[str] = set()
    top: set[str] = set()
    for path in _paths(tree):
        resolved = resolve(path, names)
        top.add(str(resolved[0]))
        if len(resolved) > 1:
            nested.add(str(resolved[0]))
    return ConditionPlan(compile_condition(tree, names), frozenset(nested), frozenset(top))


def _paths(node: ast.Condition | ast.Operand) -> list[ast.Path]:
    if isinstance(node, ast.Path):
        return [node]
    if isinstance(node, ast.ValueRef):
        return []
    if isinstance(node, (ast.And, ast.Or)):
        return _paths(node.left) + _paths(node.right)
    if isinstance(node, ast.Not):
        return _paths(node.condition)
    if isinstance(node, ast.Comparison):
        return _paths(node.left) + _paths(node.right)
    if isinstance(node, ast.Between):
        return _paths(node.operand) + _paths(node.low) + _paths(node.high)
    if isinstance(node, ast.In):
        found = _paths(node.operand)
        for candidate in node.candidates:
            found += _paths(candidate)
        return found
    found = []
    for arg in node.args:
        found += _paths(arg)
    return found
