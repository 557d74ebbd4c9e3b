"""Projecting paths out of an item, as ProjectionExpression, AttributesToGet
and ReturnValues UPDATED_OLD/UPDATED_NEW do.

Each path that exists is copied into the result at the same place: nested
maps keep only the projected keys; a list keeps only the projected elements,
in index order, packed together (``a[3], a[1]`` gives ``a: [a[1], a[3]]``).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from tallydb.engine.expressions.paths import Resolved, get_path
from tallydb.engine.values import AttributeValue, Item


class _Node:
    __slots__ = ("children", "is_list")

    def __init__(self, is_list: bool) -> None:
        self.is_list = is_list
        self.children: dict[Any, _Node | AttributeValue] = {}


def project(item: Item, paths: Sequence[Resolved]) -> Item:
    """The parts of ``item`` that ``paths`` name; paths must not overlap."""
    if all(len(path) == 1 for path in paths):
        return {name: item[name] for (name,) in paths if name in item}
    root = _Node(is_list=False)
    for path in paths:
        value = get_path(item, path)
        if value is None:
            continue
        node = root
        for step, following in pairwise(path):
            child = node.children.get(step)
            if child is None:
                child = node.children[step] = _Node(is_list=isinstance(following, int))
            if not isinstance(child, _Node):  # pragma: no cover - paths never overlap
                break
            node = child
        else:
            node.children[path[-1]] = value
    return {name: _materialize(child) for name, child in root.children.items()}


def _materialize(node: _Node | AttributeValue) -> AttributeValue:
    if not isinstance(node, _Node):
        return node
    if node.is_list:
        return {"L": [_materialize(node.children[i]) for i in sorted(node.children)]}
    return {"M": {key: _materialize(child) for key, child in node.children.items()}}
