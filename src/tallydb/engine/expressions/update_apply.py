"""Applying update actions to an item: pure, the input is never changed.

As DynamoDB does, every SET value is computed from the item as it was, every
path means what it meant in the item as it was (``REMOVE a[0], a[2]`` removes
the first and third elements of the original list), and only then is the new
item built. Writes to list indexes past the end append, in index order.
Only the containers along updated paths are copied.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from tallydb.engine.errors import ValidationException
from tallydb.engine.expressions.messages import (
    INCORRECT_DATA_TYPE,
    INVALID_UPDATE_PATH,
    LEGACY_TYPE_MISMATCH,
    MISSING_OPERAND,
)
from tallydb.engine.expressions.paths import Resolved, get_path
from tallydb.engine.values import (
    AttributeValue,
    Item,
    add_numbers,
    set_in_order,
    subtract_numbers,
)

Values = Mapping[str, AttributeValue]
Getter = Callable[[Item, Values], AttributeValue]

REMOVE: Final = object()  # the leaf is to be removed
KEEP: Final = object()  # the leaf stays as it is

_SETS: Final = frozenset({"SS", "NS", "BS"})


def _type(av: AttributeValue) -> str:
    return next(iter(av))


# -- SET operands -----------------------------------------------------------


def path_getter(path: Resolved) -> Getter:
    def get(item: Item, values: Values) -> AttributeValue:
        found = get_path(item, path)
        if found is None:
            raise ValidationException(MISSING_OPERAND)
        return found

    return get


def value_getter(ref: str) -> Getter:
    def get(item: Item, values: Values) -> AttributeValue:
        return values[ref]

    return get


def if_not_exists_getter(path: Resolved, default: Getter) -> Getter:
    def get(item: Item, values: Values) -> AttributeValue:
        found = get_path(item, path)
        return found if found is not None else default(item, values)

    return get


def list_append_getter(first: Getter, second: Getter) -> Getter:
    def get(item: Item, values: Values) -> AttributeValue:
        a = first(item, values)
        if "L" not in a:
            raise ValidationException(INCORRECT_DATA_TYPE)
        b = second(item, values)
        if "L" not in b:
            raise ValidationException(INCORRECT_DATA_TYPE)
        return {"L": a["L"] + b["L"]}

    return get


def arithmetic_getter(op: str, left: Getter, right: Getter) -> Getter:
    combine = add_numbers if op == "+" else subtract_numbers

    def get(item: Item, values: Values) -> AttributeValue:
        a = left(item, values)
        if "N" not in a:
            raise ValidationException(INCORRECT_DATA_TYPE)
        b = right(item, values)
        if "N" not in b:
            raise ValidationException(INCORRECT_DATA_TYPE)
        return {"N": combine(a["N"], b["N"])}

    return get


def attribute_arithmetic_getter(op: str, name: str, ref: str) -> Getter:
    """``arithmetic_getter(op, path_getter((name,)), value_getter(ref))`` for
    a top-level attribute, in one call (``SET n = n + :v``): the same checks
    in the same order, with the same errors."""
    combine = add_numbers if op == "+" else subtract_numbers

    def get(item: Item, values: Values) -> AttributeValue:
        a = item.get(name)
        if a is None:
            raise ValidationException(MISSING_OPERAND)
        if "N" not in a:
            raise ValidationException(INCORRECT_DATA_TYPE)
        b = values[ref]
        if "N" not in b:
            raise ValidationException(INCORRECT_DATA_TYPE)
        return {"N": combine(a["N"], b["N"])}

    return get


# -- actions ------------------------------------------------------------------


class Step:
    """One action on one path. ``leaf`` turns what is at the path now into
    what will be there: a value, REMOVE or KEEP."""

    __slots__ = ("path",)

    #: Whether ``evaluate`` computes anything (SET); the others skip the call.
    computes = False

    def __init__(self, path: Resolved) -> None:
        self.path = path

    def evaluate(self, item: Item, values: Values) -> AttributeValue | None:
        """A SET value, computed before anything changes; None for others."""
        return None

    def leaf(self, existing: AttributeValue | None, computed: AttributeValue | None,
             values: Values) -> Any:
        raise NotImplementedError


class SetStep(Step):
    __slots__ = ("getter",)

    computes = True

    def __init__(self, path: Resolved, getter: Getter) -> None:
        super().__init__(path)
        self.getter = getter

    def evaluate(self, item: Item, values: Values) -> AttributeValue | None:
        return self.getter(item, values)

    def leaf(self, existing: AttributeValue | None, computed: AttributeValue | None,
             values: Values) -> Any:
        return computed


class PutStep(Step):
    """Legacy AttributeUpdates PUT: a constant."""

    __slots__ = ("value",)

    def __init__(self, path: Resolved, value: AttributeValue) -> None:
        super().__init__(path)
        self.value = value

    def leaf(self, existing: AttributeValue | None, computed: AttributeValue | None,
             values: Values) -> Any:
        return self.value


class RemoveStep(Step):
    __slots__ = ()

    def leaf(self, existing: AttributeValue | None, computed: AttributeValue | None,
             values: Values) -> Any:
        return KEEP if existing is None else REMOVE


class AddStep(Step):
    """ADD: numbers add (a missing attribute counts as 0), sets unite. The
    legacy flavour also appends lists and words its type error differently."""

    __slots__ = ("constant", "legacy", "ref")

    def __init__(self, path: Resolved, ref: str, constant: AttributeValue | None = None,
                 legacy: bool = False) -> None:
        super().__init__(path)
        self.ref = ref
        self.constant = constant
        self.legacy = legacy

    def leaf(self, existing: AttributeValue | None, computed: AttributeValue | None,
             values: Values) -> Any:
        value = self.constant if self.constant is not None else values[self.ref]
        if existing is None:
            return value
        number = value.get("N")
        if number is not None:
            have = existing.get("N")
            if have is not None:
                return {"N": add_numbers(have, number)}
        kind = _type(value)
        if kind not in existing:
            raise ValidationException(LEGACY_TYPE_MISMATCH if self.legacy
                                      else INCORRECT_DATA_TYPE)
        if kind == "N":
            return {"N": add_numbers(existing["N"], value["N"])}
        if kind == "L":
            return {"L": existing["L"] + value["L"]}
        have = existing[kind]
        present = set(have)
        added = [m for m in value[kind] if m not in present]
        # stored in the set's order, as PutItem and SET store a set
        return {kind: set_in_order(kind, have + added) if added else have}


class DeleteStep(Step):
    """DELETE a subset from a set; an emptied set is removed. Legacy DELETE
    without a value removes the attribute."""

    __slots__ = ("constant", "legacy", "ref")

    def __init__(self, path: Resolved, ref: str, constant: AttributeValue | None = None,
                 legacy: bool = False) -> None:
        super().__init__(path)
        self.ref = ref
        self.constant = constant
        self.legacy = legacy

    def leaf(self, existing: AttributeValue | None, computed: AttributeValue | None,
             values: Values) -> Any:
        if existing is None:
            return KEEP
        value = self.constant if self.constant is not None else values[self.ref]
        kind = _type(value)
        if kind not in existing:
            raise ValidationException(LEGACY_TYPE_MISMATCH if self.legacy
                                      else INCORRECT_DATA_TYPE)
        gone = set(value[kind])
        left = [m for m in existing[kind] if m not in gone]
        if not left:
            return REMOVE
        return {kind: left}


# -- building the new item --------------------------------------------------------


class Node:
    """The trie of updated paths: leaves are step indexes."""

    __slots__ = ("children", "leaf")

    def __init__(self) -> None:
        self.children: dict[Any, Node] = {}
        self.leaf: int | None = None


def build_trie(steps: Sequence[Step]) -> Node:
    root = Node()
    for index, step in enumerate(steps):
        node = root
        for key in step.path:
            node = node.children.setdefault(key, Node())
        node.leaf = index
    return root


def _existing(item: Item, path: Resolved) -> AttributeValue | None:
    """What is at ``path`` now; raises when its parent is not a container of
    the kind the last step needs."""
    if len(path) == 1:
        return item.get(path[0])  # type: ignore[arg-type]
    parent = get_path(item, path[:-1])
    last = path[-1]
    if parent is None:
        raise ValidationException(INVALID_UPDATE_PATH)
    if isinstance(last, int):
        elements = parent.get("L")
        if elements is None:
            raise ValidationException(INVALID_UPDATE_PATH)
        return elements[last] if last < len(elements) else None
    members: dict[str, AttributeValue] | None = parent.get("M")
    if members is None:
        raise ValidationException(INVALID_UPDATE_PATH)
    return members.get(last)


def apply_steps(steps: Sequence[Step], trie: Node, item: Item, values: Values) -> Item:
    computed = [step.evaluate(item, values) for step in steps]
    leaves = [step.leaf(_existing(item, step.path), computed[i], values)
              for i, step in enumerate(steps)]
    return _rebuild_map(item, trie, leaves)


def apply_flat(flat: Sequence[tuple[str, Step]], item: Item, values: Values) -> Item:
    """``apply_steps`` for steps that all write top-level attributes: the
    same order of evaluation (every SET value from the item as it was, then
    each leaf), without a trie. (One step alone: ``BoundUpdate.apply``.)"""
    out = dict(item)
    computed = [step.evaluate(item, values) for _, step in flat]
    leaves = [step.leaf(item.get(name), computed[i], values)
              for i, (name, step) in enumerate(flat)]
    for (name, _), new in zip(flat, leaves, strict=True):
        if new is REMOVE:
            out.pop(name, None)
        elif new is not KEEP:
            out[name] = new
    return out


def _rebuild_map(members: dict[str, AttributeValue], node: Node, leaves: list[Any]
                 ) -> dict[str, AttributeValue]:
    out = dict(members)
    for key, child in node.children.items():
        if child.leaf is not None:
            new = leaves[child.leaf]
            if new is REMOVE:
                out.pop(key, None)
            elif new is not KEEP:
                out[key] = new
        else:
            out[key] = _rebuild(out[key], child, leaves)
    return out


def _rebuild(value: AttributeValue, node: Node, leaves: list[Any]) -> AttributeValue:
    if "M" in value:
        return {"M": _rebuild_map(value["M"], node, leaves)}
    return {"L": _rebuild_list(value["L"], node, leaves)}


def _rebuild_list(elements: list[AttributeValue], node: Node, leaves: list[Any]
                  ) -> list[AttributeValue]:
    out: list[AttributeValue] = []
    for index, old in enumerate(elements):
        child = node.children.get(index)
        if child is None:
            out.append(old)
        elif child.leaf is not None:
            new = leaves[child.leaf]
            if new is not REMOVE:
                out.append(old if new is KEEP else new)
        else:
            out.append(_rebuild(old, child, leaves))
    size = len(elements)
    for index in sorted(k for k in node.children if k >= size):
        leaf = node.children[index].leaf
        if leaf is not None:
            new = leaves[leaf]
            if new is not REMOVE and new is not KEEP:
                out.append(new)
    return out
