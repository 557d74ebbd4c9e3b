"""PartiQL's syntax tree: four statements (and a transaction's EXISTS) over one
expression grammar."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: A path: an attribute name, then names (``.b``) and list indexes (``[0]``).
PathElements = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class Path:
    elements: PathElements


@dataclass(frozen=True, slots=True)
class Literal:
    value: dict[str, Any]  # an AttributeValue in wire form


@dataclass(frozen=True, slots=True)
class Param:
    index: int  # 0-based position of its ``?``


@dataclass(frozen=True, slots=True)
class Collection:
    """A list ``[..]``, a map ``{'k': v}`` or a set ``<<..>>`` whose members
    are not all literals (a ``?`` among them)."""

    kind: str  # "L", "M" or "SET"
    members: tuple[Any, ...]  # Exprs, or (key, Expr) pairs for a map


@dataclass(frozen=True, slots=True)
class Arithmetic:
    op: str  # "+" or "-"
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class Call:
    name: str  # lower case
    args: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Compare:
    op: str  # = <> < <= > >=
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class Between:
    operand: Expr
    low: Expr
    high: Expr


@dataclass(frozen=True, slots=True)
class In:
    operand: Expr
    choices: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Is:
    operand: Path
    what: str  # "MISSING" or "NULL"
    negated: bool


@dataclass(frozen=True, slots=True)
class Logical:
    op: str  # "AND" or "OR"
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class Not:
    operand: Expr


Expr = Path | Literal | Param | Collection | Arithmetic | Call | Compare | Between | In | Is \
    | Logical | Not


@dataclass(frozen=True, slots=True)
class Select:
    table: str
    index: str | None
    projection: tuple[Path, ...] | None  # None: *
    where: Expr | None
    descending: bool  # ORDER BY <key> DESC


@dataclass(frozen=True, slots=True)
class Insert:
    table: str
    value: Expr  # a map


@dataclass(frozen=True, slots=True)
class Update:
    table: str
    sets: tuple[tuple[Path, Expr], ...]
    removes: tuple[Path, ...]
    where: Expr | None
    returning: str | None  # "ALL_OLD", "MODIFIED_NEW", ...


@dataclass(frozen=True, slots=True)
class Delete:
    table: str
    where: Expr | None
    returning: str | None


@dataclass(frozen=True, slots=True)
class Exists:
    """``EXISTS(SELECT ...)``: a transaction's condition check on one item."""

    select: Select

    @property
    def table(self) -> str:
        return self.select.table


Statement = Select | Insert | Update | Delete | Exists
