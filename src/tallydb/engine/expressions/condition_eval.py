"""Conditions compiled to predicates over an item.

A condition tree, with its ``#names`` resolved, becomes a closure
``(item, values) -> bool``; operands become ``(item, values) -> value | None``
(None: no such attribute). As in DynamoDB, a comparison between values of
different types, or with a missing operand, is false rather than an error
(``<>`` is its negation, so it is true then), and so is a function applied to
a type it does not accept.
"""

from __future__ import annotations

import binascii
from collections.abc import Callable, Mapping

from tallydb.engine.expressions import ast
from tallydb.engine.expressions.paths import get_path, resolve
from tallydb.engine.values import AttributeValue, Item, compare_values, values_equal

Values = Mapping[str, AttributeValue]
Getter = Callable[[Item, Values], AttributeValue | None]
Predicate = Callable[[Item, Values], bool]


def compile_operand(operand: ast.Operand, names: Mapping[str, str]) -> Getter:
    if isinstance(operand, ast.ValueRef):
        ref = operand.ref

        def value(item: Item, values: Values) -> AttributeValue | None:
            return values.get(ref)

        return value
    if isinstance(operand, ast.Path):
        resolved = resolve(operand, names)
        if len(resolved) == 1:
            name = resolved[0]

            def top(item: Item, values: Values) -> AttributeValue | None:
                return item.get(name)  # type: ignore[arg-type]

            return top

        def nested(item: Item, values: Values) -> AttributeValue | None:
            return get_path(item, resolved)

        return nested
    inner = compile_operand(operand.args[0], names)  # size(): the only call operand

    def size(item: Item, values: Values) -> AttributeValue | None:
        found = inner(item, values)
        if found is None:
            return None
        length = size_of(found)
        return None if length is None else {"N": str(length)}

    return size


def size_of(value: AttributeValue) -> int | None:
    """size(): a String's length in UTF-8 bytes, a Binary's in bytes, the
    number of members of a set, list or map; None for other types."""
    ((kind, payload),) = value.items()
    if kind == "S":
        return len(payload) if payload.isascii() else len(payload.encode("utf-8"))
    if kind == "B":
        return len(binascii.a2b_base64(payload))
    if kind in ("SS", "NS", "BS", "L", "M"):
        return len(payload)
    return None


def compile_condition(node: ast.Condition, names: Mapping[str, str]) -> Predicate:
    if isinstance(node, ast.And):
        left, right = compile_condition(node.left, names), compile_condition(node.right, names)
        return lambda item, values: left(item, values) and right(item, values)
    if isinstance(node, ast.Or):
        left, right = compile_condition(node.left, names), compile_condition(node.right, names)
        return lambda item, values: left(item, values) or right(item, values)
    if isinstance(node, ast.Not):
        inner = compile_condition(node.condition, names)
        return lambda item, values: not inner(item, values)
    if isinstance(node, ast.Comparison):
        return _comparison(node.op, compile_operand(node.left, names),
                           compile_operand(node.right, names))
    if isinstance(node, ast.Between):
        return _between(compile_operand(node.operand, names),
                        compile_operand(node.low, names), compile_operand(node.high, names))
    if isinstance(node, ast.In):
        return _in(compile_operand(node.operand, names),
                   [compile_operand(c, names) for c in node.candidates])
    return _function(node.name, [compile_operand(arg, names) for arg in node.args])


_ORDER_TESTS: dict[str, Callable[[int], bool]] = {
    "<": lambda c: c < 0,
    "<=": lambda c: c <= 0,
    ">": lambda c: c > 0,
    ">=": lambda c: c >= 0,
}


def _comparison(op: str, left: Getter, right: Getter) -> Predicate:
    if op == "=" or op == "<>":
        want = op == "="

        def equality(item: Item, values: Values) -> bool:
            a, b = left(item, values), right(item, values)
            equal = a is not None and b is not None and values_equal(a, b)
            return equal == want

        return equality
    test = _ORDER_TESTS[op]

    def order(item: Item, values: Values) -> bool:
        a, b = left(item, values), right(item, values)
        if a is None or b is None:
            return False
        result = compare_values(a, b)
        return result is not None and test(result)

    return order


def _between(operand: Getter, low: Getter, high: Getter) -> Predicate:
    def between(item: Item, values: Values) -> bool:
        value, lo, hi = operand(item, values), low(item, values), high(item, values)
        if value is None or lo is None or hi is None:
            return False
        above, below = compare_values(value, lo), compare_values(value, hi)
        return above is not None and below is not None and above >= 0 and below <= 0

    return between


def _in(operand: Getter, candidates: list[Getter]) -> Predicate:
    def is_in(item: Item, values: Values) -> bool:
        value = operand(item, values)
        if value is None:
            return False
        for candidate in candidates:
            other = candidate(item, values)
            if other is not None and values_equal(value, other):
                return True
        return False

    return is_in


def _function(name: str, args: list[Getter]) -> Predicate:
    if name == "attribute_exists":
        (target,) = args
        return lambda item, values: target(item, values) is not None
    if name == "attribute_not_exists":
        (target,) = args
        return lambda item, values: target(item, values) is None
    test = _TWO_ARGUMENT[name]
    first, second = args

    def function(item: Item, values: Values) -> bool:
        a, b = first(item, values), second(item, values)
        return a is not None and b is not None and test(a, b)

    return function


def attribute_type(value: AttributeValue, type_name: AttributeValue) -> bool:
    return type_name.get("S") in value


def begins_with(value: AttributeValue, prefix: AttributeValue) -> bool:
    if "S" in value and "S" in prefix:
        return bool(value["S"].startswith(prefix["S"]))
    if "B" in value and "B" in prefix:
        return binascii.a2b_base64(value["B"]).startswith(binascii.a2b_base64(prefix["B"]))
    return False


def contains(value: AttributeValue, member: AttributeValue) -> bool:
    ((kind, payload),) = value.items()
    if kind == "S":
        return "S" in member and member["S"] in payload
    if kind == "B":
        return "B" in member and (binascii.a2b_base64(member["B"])
                                  in binascii.a2b_base64(payload))
    if kind == "L":
        return any(values_equal(element, member) for element in payload)
    scalar = {"SS": "S", "NS": "N", "BS": "B"}.get(kind)
    if scalar is None or scalar not in member:
        return False
    if kind == "SS":
        return member["S"] in payload
    return any(values_equal({scalar: element}, member) for element in payload)


_TWO_ARGUMENT: dict[str, Callable[[AttributeValue, AttributeValue], bool]] = {
    "attribute_type": attribute_type,
    "begins_with": begins_with,
    "contains": contains,
}
