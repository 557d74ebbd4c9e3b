"""The parts of a request the toolkit builds: a table's key schema, the
expression parameters of a request (builders and hand-written strings
sharing one set of placeholders), a query's key condition."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from tallydb.toolkit import _expr as x
from tallydb.toolkit.conditions import Condition, Path
from tallydb.toolkit.convert import Item, Wire, to_wire
from tallydb.toolkit.update import Update

__all__ = [
    "ConditionArg",
    "KeySchema",
    "Named",
    "ReturnValues",
    "build_request",
    "idempotent",
    "key_condition",
    "table_name",
]

ConditionArg = Condition | str | None
ReturnValues = Literal["NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"]
KeyType = Literal["S", "N", "B"]


class Named(Protocol):
    """A table, where only its name matters (a batch's, a transaction's)."""

    @property
    def name(self) -> str:
        """The table's name."""


def table_name(table: Named | str) -> str:
    """The name of ``table``: a Table or a table name."""
    if isinstance(table, str):
        return table
    name = getattr(table, "name", None)
    if not isinstance(name, str):
        raise TypeError(f"expected a Table or a table name, got {table!r}")
    return name


@dataclass(frozen=True)
class KeySchema:
    """A table's primary key: the hash (partition) key and the optional range
    (sort) key, each a name and a type (``S``, ``N`` or ``B``)."""

    hash_key: str
    hash_type: str
    range_key: str | None = None
    range_type: str | None = None

    @classmethod
    def from_description(cls, table: Mapping[str, Any]) -> KeySchema:
        types = {a["AttributeName"]: a["AttributeType"] for a in table["AttributeDefinitions"]}
        hash_key = range_key = None
        for element in table["KeySchema"]:
            if element["KeyType"] == "HASH":
                hash_key = element["AttributeName"]
            else:
                range_key = element["AttributeName"]
        assert hash_key is not None
        return cls(
            hash_key, types[hash_key], range_key, types.get(range_key) if range_key else None
        )

    @property
    def names(self) -> tuple[str, ...]:
        return (self.hash_key,) if self.range_key is None else (self.hash_key, self.range_key)

    def key_of(self, item: Mapping[str, Any]) -> Item:
        """The key attributes of ``item``."""
        missing = [n for n in self.names if n not in item]
        if missing:
            raise ValueError(f"the item has no value for key attribute(s) {', '.join(missing)}")
        return {n: item[n] for n in self.names}


def build_request(
    parts: Sequence[tuple[str, Update | Condition | str | None]],
    names: Mapping[str, str] | None = None,
    values: Mapping[str, Any] | None = None,
    projection: Sequence[str | Path] | None = None,
) -> dict[str, Any]:
    """The expression parameters of one request.

    ``parts`` pairs a request key (``"UpdateExpression"``,
    ``"ConditionExpression"``, ...) with a builder or a hand-written string;
    all share one set of placeholders, and ``names``/``values`` (plain values)
    are those of the hand-written strings.
    """
    taken: set[str] = set(names or ()) | set(values or ())
    for _, part in parts:
        if isinstance(part, str):
            taken |= x.placeholders_in(part)
    placeholders = x.Placeholders(taken)
    request: dict[str, Any] = {}
    for key, part in parts:
        if part is None:
            continue
        if isinstance(part, str):
            request[key] = part
        elif isinstance(part, Update | Condition):
            request[key] = part.render_into(placeholders)
        else:
            raise TypeError(f"{key}: expected a builder or a string, got {part!r}")
    if projection:
        paths = [Path.of(p)._node() for p in projection]
        request["ProjectionExpression"] = placeholders.projection(paths).render()
    all_names = {**(names or {}), **placeholders.names}
    all_values: dict[str, Wire] = {k: to_wire(v) for k, v in (values or {}).items()}
    all_values.update(placeholders.values)
    if all_names:
        request["ExpressionAttributeNames"] = all_names
    if all_values:
        request["ExpressionAttributeValues"] = all_values
    return request


_ACCUMULATES = re.compile(r"\bADD\b|[+-]|\blist_append\s*\(", re.IGNORECASE)


def idempotent(update: Update | str, condition: ConditionArg) -> bool:
    """Whether an UpdateItem may be sent twice: its update is idempotent, or
    a condition guards it (a retry of an applied write then fails the
    condition rather than apply twice, as a version check does)."""
    if condition is not None:
        return True
    if isinstance(update, str):
        return _ACCUMULATES.search(update) is None
    return update.idempotent()


def key_condition(key: Condition | str | Mapping[str, Any]) -> Condition | str:
    """A query's key condition; a mapping ``{"PK": v}`` means ``PK = v`` (AND
    each further attribute)."""
    if isinstance(key, Condition | str):
        return key
    condition: Condition | None = None
    for name, value in key.items():
        part = Path(name) == value
        condition = part if condition is None else condition & part
    if condition is None:
        raise ValueError("a query needs a key condition")
    return condition
