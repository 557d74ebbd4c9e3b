"""KeyConditionExpression: a condition (same grammar, same checks) that must
also have the shape Query can turn into a key range: conditions joined by AND,
each comparing one top-level attribute with values by ``=``, ``<``, ``<=``,
``>``, ``>=``, BETWEEN or ``begins_with``, at most one per attribute.

Shape errors are sent without the "Invalid KeyConditionExpression: " prefix,
as DynamoDB sends them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, TypeAlias

from tallydb.engine.expressions import ast
from tallydb.engine.expressions.condition import BoundCondition, CompiledCondition
from tallydb.engine.expressions.messages import (
    KEY_MULTIPLE_NAMES,
    KEY_NESTED_ATTRIBUTES,
    KEY_NESTED_OPERATIONS,
    KEY_NO_ATTRIBUTE,
    KEY_ONE_CONDITION,
    ExpressionError,
    key_first_operand,
    key_invalid_operator,
)
from tallydb.engine.expressions.paths import resolve
from tallydb.engine.values import AttributeValue, Item

KeyOperator: TypeAlias = Literal["=", "<", "<=", ">", ">=", "BETWEEN", "begins_with"]
_AS_WRITTEN: dict[str, KeyOperator] = {"=": "=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
_FLIPPED: dict[str, KeyOperator] = {"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
_NOT_FOR_KEYS = frozenset({"attribute_exists", "attribute_not_exists", "attribute_type",
                           "contains"})


@dataclass(frozen=True, slots=True)
class KeyShape:
    """One key condition: ``name op refs`` (refs are ``:placeholders``)."""

    name: str
    op: KeyOperator
    refs: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class KeyPart:
    """One key condition with its values: ``name op values``."""

    name: str
    op: KeyOperator
    values: tuple[AttributeValue, ...]


class BoundKeyCondition:
    """A bound KeyConditionExpression: ``parts`` in the order written, one
    per key attribute; ``holds(item)`` tests an item against all of them."""

    __slots__ = ("_condition", "parts")

    def __init__(self, parts: tuple[KeyPart, ...], condition: BoundCondition) -> None:
        self.parts = parts
        self._condition = condition

    def get(self, name: str) -> KeyPart | None:
        for part in self.parts:
            if part.name == name:
                return part
        return None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(part.name for part in self.parts)

    def holds(self, item: Item | None) -> bool:
        return self._condition.holds(item)


#: Each key condition's shapes, or why it has none, by its compiled form and
#: the names its placeholders stand for: ``_shape`` depends on nothing else,
#: and a Query's key condition is the same text and names request after
#: request (emptied when full, as ``CompiledCondition.plan``'s cache).
_SHAPES: dict[tuple[CompiledCondition, tuple[str, ...]], tuple[KeyShape, ...] | str] = {}
_SHAPES_KEPT = 1024


def bind_key_condition(compiled: CompiledCondition, names: Mapping[str, str],
                       values: Mapping[str, AttributeValue]) -> BoundKeyCondition:
    """Raises ExpressionError: condition errors prefixed, shape errors not."""
    compiled.check(names, values)
    key = (compiled, tuple([names[ref] for ref in compiled.name_refs]))
    shaped = _SHAPES.get(key)
    if shaped is None:
        shapes: list[KeyShape] = []
        shaped = _shape(compiled.tree, names, shapes) or tuple(shapes)
        if len(_SHAPES) >= _SHAPES_KEPT:
            _SHAPES.clear()
        _SHAPES[key] = shaped
    if isinstance(shaped, str):
        raise ExpressionError(shaped, prefixed=False)
    parts = tuple(KeyPart(s.name, s.op, tuple(values[r] for r in s.refs)) for s in shaped)
    return BoundKeyCondition(parts, BoundCondition(compiled.plan(names), values))


def _shape(node: ast.Condition, names: Mapping[str, str], shapes: list[KeyShape]
           ) -> str | None:
    if isinstance(node, ast.And):
        return _shape(node.left, names, shapes) or _shape(node.right, names, shapes)
    if isinstance(node, ast.Or):
        return key_invalid_operator("OR")
    if isinstance(node, ast.Not):
        return key_invalid_operator("NOT")
    if isinstance(node, ast.In):
        return key_invalid_operator("IN")
    operands: tuple[ast.Operand, ...]
    op: KeyOperator
    if isinstance(node, ast.Comparison):
        if node.op == "<>":
            return key_invalid_operator("<>")
        op, operands = _AS_WRITTEN[node.op], (node.left, node.right)
    elif isinstance(node, ast.Between):
        if not isinstance(node.operand, ast.Path):
            return key_first_operand("BETWEEN")
        op, operands = "BETWEEN", (node.operand, node.low, node.high)
    else:
        if node.name in _NOT_FOR_KEYS:
            return key_invalid_operator(node.name)
        if node.name == "size":
            return KEY_NESTED_OPERATIONS
        if not isinstance(node.args[0], ast.Path):
            return key_first_operand(node.name)
        op, operands = "begins_with", node.args
    name: str | None = None
    position = 0
    refs: list[str] = []
    for index, operand in enumerate(operands):
        if isinstance(operand, ast.Path):
            if name is not None:
                return KEY_MULTIPLE_NAMES
            resolved = resolve(operand, names)
            if len(resolved) > 1:
                return KEY_NESTED_ATTRIBUTES
            name, position = str(resolved[0]), index
        elif isinstance(operand, ast.Call):
            return KEY_NESTED_OPERATIONS
        else:
            refs.append(operand.ref)
    if name is None:
        return KEY_NO_ATTRIBUTE
    if any(shape.name == name for shape in shapes):
        return KEY_ONE_CONDITION
    if position != 0 and isinstance(node, ast.Comparison):
        op = _FLIPPED[node.op]
    shapes.append(KeyShape(name, op, tuple(refs)))
    return None
