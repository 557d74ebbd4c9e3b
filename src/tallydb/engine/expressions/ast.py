"""The expression language's syntax tree: small immutable nodes that render
themselves back to expression text.

One tree serves all four grammars (UpdateExpression, Condition/Filter,
Projection, KeyCondition). The parser builds these nodes; the toolkit's update
builder builds the same nodes and calls ``render()``, so whatever it renders
parses back to an equal tree. Placeholders (``#name``, ``:value``) stay
unresolved here: binding them to a request's ExpressionAttributeNames/Values
happens later, per request.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

# --------------------------------------------------------------------------
# Paths


@dataclass(frozen=True, slots=True)
class Name:
    """A literal attribute name in a path (``price``)."""

    name: str

    def render(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class NameRef:
    """An expression attribute name placeholder (``#p``)."""

    ref: str

    def render(self) -> str:
        return self.ref


@dataclass(frozen=True, slots=True)
class Index:
    """A list element dereference (``[3]``)."""

    index: int

    def render(self) -> str:
        return f"[{self.index}]"


PathElement: TypeAlias = Name | NameRef | Index


@dataclass(frozen=True, slots=True)
class Path:
    """A document path: a name or placeholder, then ``.name`` / ``[n]`` steps."""

    elements: tuple[PathElement, ...]

    def render(self) -> str:
        parts: list[str] = []
        for i, element in enumerate(self.elements):
            if i and not isinstance(element, Index):
                parts.append(".")
            parts.append(element.render())
        return "".join(parts)


# --------------------------------------------------------------------------
# Operands


@dataclass(frozen=True, slots=True)
class ValueRef:
    """An expression attribute value placeholder (``:v``)."""

    ref: str

    def render(self) -> str:
        return self.ref


@dataclass(frozen=True, slots=True)
class Call:
    """A function call: ``if_not_exists(a, :v)``, ``size(a)``,
    ``attribute_exists(a)``... Used as an operand and, in conditions, as a
    condition of its own. The name is kept as written (function names are
    case-sensitive); checking it is the analyser's job, not the parser's."""

    name: str
    args: tuple[Operand, ...]

    def render(self) -> str:
        return f"{self.name}({', '.join(arg.render() for arg in self.args)})"


Operand: TypeAlias = Path | ValueRef | Call


@dataclass(frozen=True, slots=True)
class Arithmetic:
    """``a + b`` or ``a - b``: only as the whole value of a SET action."""

    op: Literal["+", "-"]
    left: Operand
    right: Operand

    def render(self) -> str:
        return f"{self.left.render()} {self.op} {self.right.render()}"


SetValue: TypeAlias = Operand | Arithmetic

# --------------------------------------------------------------------------
# UpdateExpression


@dataclass(frozen=True, slots=True)
class SetAction:
    path: Path
    value: SetValue

    def render(self) -> str:
        return f"{self.path.render()} = {self.value.render()}"


@dataclass(frozen=True, slots=True)
class RemoveAction:
    path: Path

    def render(self) -> str:
        return self.path.render()


@dataclass(frozen=True, slots=True)
class AddAction:
    path: Path
    value: ValueRef

    def render(self) -> str:
        return f"{self.path.render()} {self.value.render()}"


@dataclass(frozen=True, slots=True)
class DeleteAction:
    path: Path
    value: ValueRef

    def render(self) -> str:
        return f"{self.path.render()} {self.value.render()}"


Action: TypeAlias = SetAction | RemoveAction | AddAction | DeleteAction
ClauseKeyword: TypeAlias = Literal["SET", "REMOVE", "ADD", "DELETE"]

@dataclass(frozen=True, slots=True)
class UpdateClause:
    """One section (``SET a = :v, b = :w``). Its actions must all be of the
    clause's kind; a well-formed expression has each keyword at most once, but
    the tree can hold repeats so that the analyser can report them."""

    keyword: ClauseKeyword
    actions: tuple[Action, ...]

    def render(self) -> str:
        return f"{self.keyword} {', '.join(a.render() for a in self.actions)}"


@dataclass(frozen=True, slots=True)
class UpdateExpression:
    clauses: tuple[UpdateClause, ...]

    def render(self) -> str:
        return " ".join(clause.render() for clause in self.clauses)

    def actions(self) -> tuple[Action, ...]:
        """Every action, in the order written."""
        return tuple(a for clause in self.clauses for a in clause.actions)


# --------------------------------------------------------------------------
# ConditionExpression / FilterExpression / KeyConditionExpression

Comparator: TypeAlias = Literal["=", "<>", "<", "<=", ">", ">="]
COMPARATORS: tuple[Comparator, ...] = ("=", "<>", "<", "<=", ">", ">=")


@dataclass(frozen=True, slots=True)
class Comparison:
    op: Comparator
    left: Operand
    right: Operand

    def render(self) -> str:
        return f"{self.left.render()} {self.op} {self.right.render()}"


@dataclass(frozen=True, slots=True)
class Between:
    operand: Operand
    low: Operand
    high: Operand

    def render(self) -> str:
        return f"{self.operand.render()} BETWEEN {self.low.render()} AND {self.high.render()}"


@dataclass(frozen=True, slots=True)
class In:
    operand: Operand
    candidates: tuple[Operand, ...]

    def render(self) -> str:
        items = ", ".join(c.render() for c in self.candidates)
        return f"{self.operand.render()} IN ({items})"


@dataclass(frozen=True, slots=True)
class Not:
    condition: Condition

    def render(self) -> str:
        inner = self.condition.render()
        if isinstance(self.condition, (And, Or, Not)):
            return f"NOT ({inner})"
        return f"NOT {inner}"


@dataclass(frozen=True, slots=True)
class And:
    """``left AND right``; AND is left-associative, so ``a AND b AND c`` is
    ``And(And(a, b), c)``."""

    left: Condition
    right: Condition

    def render(self) -> str:
        left = self.left.render()
        if isinstance(self.left, Or):
            left = f"({left})"
        right = self.right.render()
        if isinstance(self.right, (And, Or)):
            right = f"({right})"
        return f"{left} AND {right}"


@dataclass(frozen=True, slots=True)
class Or:
    left: Condition
    right: Condition

    def render(self) -> str:
        right = self.right.render()
        if isinstance(self.right, Or):
            right = f"({right})"
        return f"{self.left.render()} OR {right}"


Condition: TypeAlias = Comparison | Between | In | Call | Not | And | Or

# --------------------------------------------------------------------------
# ProjectionExpression


@dataclass(frozen=True, slots=True)
class Projection:
    paths: tuple[Path, ...]

    def render(self) -> str:
        return ", ".join(path.render() for path in self.paths)


def path(*elements: str | int) -> Path:
    """Build a path from plain parts: ``path("a", 0, "#b")`` is ``a[0].#b``.
    Strings starting with ``#`` become placeholders."""
    built: list[PathElement] = []
    for element in elements:
        if isinstance(element, int):
            built.append(Index(element))
        elif element.startswith("#"):
            built.append(NameRef(element))
        else:
            built.append(Name(element))
    return Path(tuple(built))
