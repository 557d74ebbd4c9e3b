"""Document paths once their placeholders are resolved: ``("a", 0, "b")``.

Reading a path from an item, and the overlap/conflict rule that
UpdateExpression and ProjectionExpression share.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeAlias

from tallydb.engine.expressions import ast
from tallydb.engine.expressions.messages import paths_conflict, paths_overlap
from tallydb.engine.values import AttributeValue, Item

Resolved: TypeAlias = tuple[str | int, ...]


def resolve(path: ast.Path, names: Mapping[str, str]) -> Resolved:
    """The path with ``#placeholders`` replaced; every placeholder must be
    defined (the binder checks that first)."""
    out: list[str | int] = []
    for element in path.elements:
        if isinstance(element, ast.Index):
            out.append(element.index)
        elif isinstance(element, ast.NameRef):
            out.append(names[element.ref])
        else:
            out.append(element.name)
    return tuple(out)


def get_path(item: Item, path: Resolved) -> AttributeValue | None:
    """The value at ``path`` in ``item``, or None when there is none (a step
    into a missing attribute, a non-map, a non-list or past a list's end)."""
    value: AttributeValue | None = item.get(path[0])  # type: ignore[arg-type]
    for step in path[1:]:
        if value is None:
            return None
        if isinstance(step, int):
            elements = value.get("L")
            if elements is None or step >= len(elements):
                return None
            value = elements[step]
        else:
            members = value.get("M")
            if members is None:
                return None
            value = members.get(step)
    return value


def check_overlaps(paths: Sequence[Resolved]) -> str | None:
    """DynamoDB's complaint about two paths that overlap (one is the other or
    lies inside it) or conflict (one indexes a list where the other names a
    map key), or None. Any overlap is reported before any conflict; the pair
    is named in the order written."""
    conflict: str | None = None
    for j, two in enumerate(paths):
        for one in paths[:j]:
            relation = _relation(one, two)
            if relation == "overlap":
                return paths_overlap(one, two)
            if relation == "conflict" and conflict is None:
                conflict = paths_conflict(one, two)
    return conflict


def _relation(one: Resolved, two: Resolved) -> str | None:
    for a, b in zip(one, two, strict=False):
        if isinstance(a, int) != isinstance(b, int):
            return "conflict"
        if a != b:
            return None
    return "overlap"
