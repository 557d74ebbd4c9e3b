"""The builders' trees, and how they become expression text.

The update and condition builders (:mod:`tallydb.toolkit.update`,
:mod:`tallydb.toolkit.conditions`) hold *resolved* trees: real attribute names (which
may contain dots or be reserved words) and real values. A request needs
placeholders instead (``#name``, ``:v0``), so rendering lowers a resolved
tree to the server's own syntax tree, :mod:`tallydb.engine.expressions.ast`, with
every name and value replaced by a placeholder, and lets those nodes render
the text. Parsing goes the other way: the server's parser gives an ast tree
with placeholders, and :class:`Resolver` binds them to the request's
ExpressionAttributeNames/Values.

This module is the only one that knows both trees.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from tallydb.engine.errors import ValidationException
from tallydb.engine.expressions import ast
from tallydb.engine.expressions.messages import ExpressionError, undefined_name, undefined_value
from tallydb.engine.expressions.paths import check_overlaps
from tallydb.toolkit.convert import Wire, to_wire

# --------------------------------------------------------------------------
# Resolved nodes

PathElements: TypeAlias = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class PathNode:
    """A document path with real names: ``("a.b", 2, "c")`` is the name
    ``a.b``, then element 2, then the map key ``c``."""

    elements: PathElements


@dataclass(frozen=True, slots=True, eq=True)
class ValueNode:
    """A value in wire form (sets in a canonical order)."""

    wire: Wire = field(hash=False)


@dataclass(frozen=True, slots=True)
class FnNode:
    """``if_not_exists``, ``list_append``, ``size``, ``attribute_exists``, ..."""

    name: str
    args: tuple[OperandNode, ...]


OperandNode: TypeAlias = PathNode | ValueNode | FnNode


@dataclass(frozen=True, slots=True)
class ArithNode:
    op: Literal["+", "-"]
    left: OperandNode
    right: OperandNode


SetValueNode: TypeAlias = OperandNode | ArithNode


@dataclass(frozen=True, slots=True)
class SetNode:
    path: PathNode
    value: SetValueNode


@dataclass(frozen=True, slots=True)
class RemoveNode:
    path: PathNode


@dataclass(frozen=True, slots=True)
class AddNode:
    path: PathNode
    value: ValueNode


@dataclass(frozen=True, slots=True)
class DeleteNode:
    path: PathNode
    value: ValueNode


ActionNode: TypeAlias = SetNode | RemoveNode | AddNode | DeleteNode
Keyword: TypeAlias = Literal["SET", "REMOVE", "ADD", "DELETE"]
KEYWORD: dict[type, Keyword] = {
    SetNode: "SET",
    RemoveNode: "REMOVE",
    AddNode: "ADD",
    DeleteNode: "DELETE",
}

Comparator: TypeAlias = Literal["=", "<>", "<", "<=", ">", ">="]


@dataclass(frozen=True, slots=True)
class CompareNode:
    op: Comparator
    left: OperandNode
    right: OperandNode


@dataclass(frozen=True, slots=True)
class BetweenNode:
    operand: OperandNode
    low: OperandNode
    high: OperandNode


@dataclass(frozen=True, slots=True)
class InNode:
    operand: OperandNode
    candidates: tuple[OperandNode, ...]


@dataclass(frozen=True, slots=True)
class NotNode:
    condition: ConditionNode


@dataclass(frozen=True, slots=True)
class AndNode:
    left: ConditionNode
    right: ConditionNode


@dataclass(frozen=True, slots=True)
class OrNode:
    left: ConditionNode
    right: ConditionNode


ConditionNode: TypeAlias = CompareNode | BetweenNode | InNode | FnNode | NotNode | AndNode | OrNode

_SETS = ("SS", "NS", "BS")


def value_node(value: Any) -> ValueNode:
    """A Python value as a ValueNode (sets sorted so equal sets are equal nodes)."""
    return wire_node(to_wire(value))


def wire_node(wire: Wire) -> ValueNode:
    for kind in _SETS:
        if kind in wire:
            return ValueNode({kind: sorted(wire[kind])})
    return ValueNode(wire)


# --------------------------------------------------------------------------
# Paths as text


def parse_path(text: str) -> PathElements:
    """``"a.b[2].c"`` → ``("a", "b", 2, "c")``.

    Names are split at dots and ``[n]`` is a list index; there are no
    placeholders here (``#x`` is the name ``#x``). For a name that contains
    a dot or a bracket, build ``Path("a.b")`` explicitly instead.
    """
    if not text:
        raise ValueError("an empty document path")
    elements: list[str | int] = []
    pos = 0
    expect_name = True
    while pos < len(text):
        if text[pos] == "[":
            end = text.find("]", pos)
            if end < 0 or (expect_name and not elements):
                raise ValueError(f"invalid document path {text!r}")
            inner = text[pos + 1 : end].strip()
            if not inner.isdigit():
                raise ValueError(f"invalid list index in document path {text!r}")
            elements.append(int(inner))
            pos = end + 1
            expect_name = False
        elif text[pos] == ".":
            if expect_name:
                raise ValueError(f"invalid document path {text!r}")
            pos += 1
            expect_name = True
        else:
            if not expect_name:
                raise ValueError(f"invalid document path {text!r}")
            end = pos
            while end < len(text) and text[end] not in ".[":
                end += 1
            name = text[pos:end]
            if not name or "]" in name:
                raise ValueError(f"invalid document path {text!r}")
            elements.append(name)
            pos = end
            expect_name = False
    if expect_name:
        raise ValueError(f"invalid document path {text!r}")
    return tuple(elements)


def show_path(elements: PathElements) -> str:
    """A path as a human writes it: ``a.b[2]``."""
    out: list[str] = []
    for i, e in enumerate(elements):
        if isinstance(e, int):
            out.append(f"[{e}]")
        else:
            out.append(("." if i else "") + e)
    return "".join(out)


def check_paths(paths: Iterable[PathElements], expression: str = "UpdateExpression") -> None:
    """Refuse overlapping or conflicting paths, as DynamoDB does and in its
    words (the server's own rule, :func:`tallydb.engine.expressions.paths.check_overlaps`):
    ``a`` and ``a.b`` overlap, ``a.b`` and ``a[0]`` conflict."""
    problem = check_overlaps(list(paths))
    if problem is not None:
        raise ValidationException(f"Invalid {expression}: {problem}")


# --------------------------------------------------------------------------
# Lowering: resolved tree -> ast with placeholders

_PLAIN_NAME = re.compile(r"[A-Za-z0-9_]{1,60}")


class Placeholders:
    """Allocates placeholders for one request.

    A name gets one placeholder however often it is used (``#play_count``
    when the name is made of letters, digits and underscores, ``#n0``,
    ``#n1``... otherwise); every value gets its own (``:v0``, ``:v1``...).
    Placeholders in ``taken`` (those of a hand-written expression sent in
    the same request) are never handed out, so nothing collides; since
    every name is a placeholder, reserved words never need thinking about.
    """

    def __init__(self, taken: Iterable[str] = ()) -> None:
        self.names: dict[str, str] = {}
        self.values: dict[str, Wire] = {}
        self._by_name: dict[str, str] = {}
        self._used: set[str] = set(taken)
        self._next_name = 0
        self._next_value = 0

    def name(self, name: str) -> str:
        ref = self._by_name.get(name)
        if ref is not None:
            return ref
        ref = "#" + name if _PLAIN_NAME.fullmatch(name) else ""
        while not ref or ref in self._used:
            ref = f"#n{self._next_name}"
            self._next_name += 1
        self._used.add(ref)
        self._by_name[name] = ref
        self.names[ref] = name
        return ref

    def value(self, wire: Wire) -> str:
        ref = ""
        while not ref or ref in self._used:
            ref = f":v{self._next_value}"
            self._next_value += 1
        self._used.add(ref)
        self.values[ref] = wire
        return ref

    def attributes(self) -> dict[str, Any]:
        """``ExpressionAttributeNames``/``Values`` for the request (only those
        that are not empty: DynamoDB refuses an empty map)."""
        out: dict[str, Any] = {}
        if self.names:
            out["ExpressionAttributeNames"] = dict(self.names)
        if self.values:
            out["ExpressionAttributeValues"] = dict(self.values)
        return out

    # -- nodes ---------------------------------------------------------------

    def path(self, node: PathNode) -> ast.Path:
        return ast.Path(
            tuple(
                ast.Index(e) if isinstance(e, int) else ast.NameRef(self.name(e))
                for e in node.elements
            )
        )

    def operand(self, node: OperandNode) -> ast.Operand:
        if isinstance(node, PathNode):
            return self.path(node)
        if isinstance(node, ValueNode):
            return ast.ValueRef(self.value(node.wire))
        return ast.Call(node.name, tuple(self.operand(a) for a in node.args))

    def set_value(self, node: SetValueNode) -> ast.SetValue:
        if isinstance(node, ArithNode):
            return ast.Arithmetic(node.op, self.operand(node.left), self.operand(node.right))
        return self.operand(node)

    def action(self, node: ActionNode) -> ast.Action:
        if isinstance(node, SetNode):
            return ast.SetAction(self.path(node.path), self.set_value(node.value))
        if isinstance(node, RemoveNode):
            return ast.RemoveAction(self.path(node.path))
        if isinstance(node, AddNode):
            return ast.AddAction(self.path(node.path), ast.ValueRef(self.value(node.value.wire)))
        return ast.DeleteAction(self.path(node.path), ast.ValueRef(self.value(node.value.wire)))

    def update(
        self, clauses: Iterable[tuple[Keyword, tuple[ActionNode, ...]]]
    ) -> ast.UpdateExpression:
        return ast.UpdateExpression(
            tuple(ast.UpdateClause(kw, tuple(self.action(a) for a in acts)) for kw, acts in clauses)
        )

    def condition(self, node: ConditionNode) -> ast.Condition:
        if isinstance(node, CompareNode):
            return ast.Comparison(node.op, self.operand(node.left), self.operand(node.right))
        if isinstance(node, BetweenNode):
            return ast.Between(
                self.operand(node.operand), self.operand(node.low), self.operand(node.high)
            )
        if isinstance(node, InNode):
            return ast.In(
                self.operand(node.operand), tuple(self.operand(c) for c in node.candidates)
            )
        if isinstance(node, FnNode):
            return ast.Call(node.name, tuple(self.operand(a) for a in node.args))
        if isinstance(node, NotNode):
            return ast.Not(self.condition(node.condition))
        if isinstance(node, AndNode):
            return ast.And(self.condition(node.left), self.condition(node.right))
        return ast.Or(self.condition(node.left), self.condition(node.right))

    def projection(self, paths: Iterable[PathNode]) -> ast.Projection:
        return ast.Projection(tuple(self.path(p) for p in paths))


def placeholders_in(text: str) -> set[str]:
    """The ``#name`` and ``:value`` placeholders a hand-written expression uses."""
    return set(re.findall(r"[#:][A-Za-z0-9_]+", text))


# --------------------------------------------------------------------------
# Raising: ast with placeholders -> resolved tree


class Resolver:
    """Binds an ast tree's placeholders to a request's names and values."""

    def __init__(self, names: Mapping[str, str] | None, values: Mapping[str, Wire] | None) -> None:
        self.names = dict(names or {})
        self.values = dict(values or {})

    def path(self, node: ast.Path) -> PathNode:
        elements: list[str | int] = []
        for e in node.elements:
            if isinstance(e, ast.Index):
                elements.append(e.index)
            elif isinstance(e, ast.NameRef):
                if e.ref not in self.names:
                    raise ValidationException(undefined_name(e.ref))
                elements.append(self.names[e.ref])
            else:
                elements.append(e.name)
        return PathNode(tuple(elements))

    def operand(self, node: ast.Operand) -> OperandNode:
        if isinstance(node, ast.Path):
            return self.path(node)
        if isinstance(node, ast.ValueRef):
            if node.ref not in self.values:
                raise ValidationException(undefined_value(node.ref))
            return wire_node(self.values[node.ref])
        return FnNode(node.name, tuple(self.operand(a) for a in node.args))

    def set_value(self, node: ast.SetValue) -> SetValueNode:
        if isinstance(node, ast.Arithmetic):
            return ArithNode(node.op, self.operand(node.left), self.operand(node.right))
        return self.operand(node)

    def _value(self, node: ast.ValueRef) -> ValueNode:
        resolved = self.operand(node)
        assert isinstance(resolved, ValueNode)
        return resolved

    def action(self, node: ast.Action) -> ActionNode:
        if isinstance(node, ast.SetAction):
            return SetNode(self.path(node.path), self.set_value(node.value))
        if isinstance(node, ast.RemoveAction):
            return RemoveNode(self.path(node.path))
        if isinstance(node, ast.AddAction):
            return AddNode(self.path(node.path), self._value(node.value))
        return DeleteNode(self.path(node.path), self._value(node.value))

    def condition(self, node: ast.Condition) -> ConditionNode:
        if isinstance(node, ast.Comparison):
            return CompareNode(node.op, self.operand(node.left), self.operand(node.right))
        if isinstance(node, ast.Between):
            return BetweenNode(
                self.operand(node.operand), self.operand(node.low), self.operand(node.high)
            )
        if isinstance(node, ast.In):
            candidates = tuple(self.operand(c) for c in node.candidates)
            return InNode(self.operand(node.operand), candidates)
        if isinstance(node, ast.Call):
            return FnNode(node.name, tuple(self.operand(a) for a in node.args))
        if isinstance(node, ast.Not):
            return NotNode(self.condition(node.condition))
        if isinstance(node, ast.And):
            return AndNode(self.condition(node.left), self.condition(node.right))
        return OrNode(self.condition(node.left), self.condition(node.right))


def parse_update(expression: str) -> ast.UpdateExpression:
    """The server's parse of an UpdateExpression; DynamoDB's error if it is not one."""
    from tallydb.engine.expressions import parse_update as parse

    try:
        return parse(expression)
    except ExpressionError as e:
        raise e.to_validation("UpdateExpression") from None


def parse_condition(expression: str, parameter: str = "ConditionExpression") -> ast.Condition:
    """The server's parse of a Condition/Filter/KeyConditionExpression."""
    from tallydb.engine.expressions import parse_condition as parse

    try:
        return parse(expression).tree
    except ExpressionError as e:
        raise e.to_validation(parameter) from None
