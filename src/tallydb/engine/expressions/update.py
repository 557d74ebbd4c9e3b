"""UpdateExpression: compiled once per text, bound once per request.

``compiled_update(text)`` parses and analyses (cached by text). Binding it to
a request's placeholders checks, in DynamoDB's order, what depends on them,
then hands back a ``BoundUpdate``. The plan (paths resolved, overlaps
checked, value getters built) is cached per combination of attribute names,
so a hot counter's request does nothing per call but look up its values.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Final

from tallydb.engine.errors import ValidationException
from tallydb.engine.expressions import ast
from tallydb.engine.expressions.functions import UPDATE_FUNCTIONS
from tallydb.engine.expressions.messages import (
    ExpressionError,
    key_attribute_updated,
    undefined_name,
    undefined_value,
    wrong_action_operand_type,
    wrong_operand_type,
)
from tallydb.engine.expressions.parser import parse_update
from tallydb.engine.expressions.paths import Resolved, check_overlaps, resolve
from tallydb.engine.expressions.projection import project
from tallydb.engine.expressions.update_apply import (
    KEEP,
    REMOVE,
    AddStep,
    DeleteStep,
    Getter,
    Node,
    RemoveStep,
    SetStep,
    Step,
    apply_flat,
    apply_steps,
    arithmetic_getter,
    attribute_arithmetic_getter,
    build_trie,
    if_not_exists_getter,
    list_append_getter,
    path_getter,
    value_getter,
)
from tallydb.engine.expressions.update_check import UpdateAnalysis, analyze_update
from tallydb.engine.values import AttributeValue, Item

_PLAN_CACHE_SIZE: Final = 64
_SET_TYPES: Final = frozenset({"SS", "NS", "BS"})


class UpdatePlan:
    """An update with its names resolved: the steps to run and what they touch."""

    __slots__ = ("assigned", "flat", "heads", "nested_heads", "only_removes", "steps", "trie",
                 "updated_paths")

    def __init__(self, steps: Sequence[Step], assigned: dict[str, str | None] | None = None,
                 nested_heads: frozenset[str] = frozenset()) -> None:
        self.steps = tuple(steps)
        self.trie: Node = build_trie(self.steps)
        self.updated_paths: tuple[Resolved, ...] = tuple(step.path for step in self.steps)
        self.heads = frozenset(str(path[0]) for path in self.updated_paths)
        self.nested_heads = nested_heads
        # Top-level attribute -> where its new value's type comes from:
        # a type code ("N"), ":ref" (the type of that value), or None (unknown).
        self.assigned = assigned or {}
        #: Every action removes (REMOVE, or AttributeUpdates DELETE, with a
        #: value or without): on a missing item DynamoDB then creates nothing.
        self.only_removes = bool(self.steps) and all(
            isinstance(step, RemoveStep) or (isinstance(step, DeleteStep) and step.legacy)
            for step in self.steps)
        #: (name, step) per action when every action writes a top-level
        #: attribute (``ADD n :one``, ``SET a = :a, b = :b``): such an update
        #: needs no trie to apply, nor to project its updated attributes.
        self.flat: tuple[tuple[str, Step], ...] | None = None
        if all(len(path) == 1 for path in self.updated_paths):
            self.flat = tuple((str(step.path[0]), step) for step in self.steps)


class BoundUpdate:
    """An update ready to run against items: ``apply(item)`` gives the new
    item and never changes its argument."""

    __slots__ = ("_plan", "_values")

    def __init__(self, plan: UpdatePlan, values: Mapping[str, AttributeValue]) -> None:
        self._plan = plan
        self._values = values

    def apply(self, item: Item) -> Item:
        """The item after the update; ValidationException for what DynamoDB
        refuses at run time (a missing operand, a wrong type, a bad path)."""
        plan = self._plan
        flat = plan.flat
        if flat is None:
            return apply_steps(plan.steps, plan.trie, item, self._values)
        if len(flat) > 1:
            return apply_flat(flat, item, self._values)
        # one action on a top-level attribute (a counter's ``ADD n :one``)
        (name, step), = flat
        values = self._values
        new = step.leaf(item.get(name),
                        step.evaluate(item, values) if step.computes else None, values)
        out = dict(item)
        if new is REMOVE:
            del out[name]
        elif new is not KEEP:
            out[name] = new
        return out

    def changed(self, old: Item, new: Item) -> bool:
        """Whether ``new``, this update's ``apply`` of ``old``, differs from
        it. One action on a top-level attribute copies every other one as
        it is, so only that attribute is compared (a counter's run: one
        small value, not the whole item); otherwise the items are."""
        flat = self._plan.flat
        if flat is not None and len(flat) == 1:
            name = flat[0][0]
            return old.get(name) != new.get(name)
        return old != new

    def with_values(self, values: Mapping[str, AttributeValue]) -> BoundUpdate:
        """The same update over other values (of the same types)."""
        return BoundUpdate(self._plan, values)

    def check_key_unchanged(self, key_names: Iterable[str]) -> None:
        """Refuse an update that touches a key attribute (checked in key
        schema order, as DynamoDB reports the hash key first)."""
        heads = self._plan.heads
        if isinstance(key_names, (frozenset, set)) and heads.isdisjoint(key_names):
            return
        for name in key_names:
            if name in heads:
                raise ValidationException(key_attribute_updated(name))

    @property
    def updated_paths(self) -> tuple[Resolved, ...]:
        """The paths the actions write, in the order written."""
        return self._plan.updated_paths

    def updated_view(self, item: Item) -> Item:
        """What ReturnValues UPDATED_OLD (given the old item) or UPDATED_NEW
        (given the new one) returns: only the updated paths."""
        flat = self._plan.flat
        if flat is not None:
            return {name: item[name] for name, _ in flat if name in item}
        return project(item, self._plan.updated_paths)

    @property
    def only_removes(self) -> bool:
        """Whether every action removes, so a missing item stays missing."""
        return self._plan.only_removes

    @property
    def nested_heads(self) -> frozenset[str]:
        """Top-level attributes the expression reaches into with ``.`` or
        ``[]`` (DynamoDB refuses that for key attributes)."""
        return self._plan.nested_heads

    def assigned_type(self, name: str) -> str | None:
        """The type a top-level attribute is given, when it is known before
        the item is read (for DynamoDB's index key type check)."""
        source = self._plan.assigned.get(name)
        if source is None:
            return None
        if source.startswith(":"):
            value = self._values.get(source)
            return next(iter(value)) if value else None
        return source


class CompiledUpdate:
    """An UpdateExpression's tree and static analysis (cached per text)."""

    __slots__ = ("_plans", "action_operands", "analysis", "function_checks", "name_refs",
                 "static_error", "tree", "value_refs")

    def __init__(self, tree: ast.UpdateExpression) -> None:
        self.tree = tree
        self.analysis: UpdateAnalysis = analyze_update(tree)
        self.static_error = self.analysis.static_error
        # Deduplicated, first occurrence first: the first one missing is the
        # one DynamoDB names either way.
        self.name_refs = tuple(dict.fromkeys(self.analysis.name_refs))
        self.value_refs = tuple(dict.fromkeys(self.analysis.value_refs))
        self.action_operands = tuple(self.analysis.action_operands)
        self.function_checks = tuple(self.analysis.function_checks)
        self._plans: dict[tuple[str, ...], UpdatePlan | str] = {}

    def bind(self, names: Mapping[str, str], values: Mapping[str, AttributeValue]
             ) -> BoundUpdate:
        """Check what depends on the placeholders; raises ExpressionError."""
        if self.static_error is not None:
            raise ExpressionError(self.static_error)
        for ref in self.name_refs:
            if ref not in names:
                raise ExpressionError(undefined_name(ref))
        for ref in self.value_refs:
            if ref not in values:
                raise ExpressionError(undefined_value(ref))
        plan = self.plan(names)
        for keyword, ref in self.action_operands:
            kind = next(iter(values[ref]))
            if (kind == "N" and keyword == "ADD") or kind in _SET_TYPES:
                continue
            raise ExpressionError(wrong_action_operand_type(keyword, kind))
        for check in self.function_checks:
            if check.message is not None:
                raise ExpressionError(check.message)
            for ref in check.refs:
                kind = next(iter(values[ref]))
                if kind not in check.allowed:
                    raise ExpressionError(wrong_operand_type(check.function, kind))
        return BoundUpdate(plan, values)

    def plan(self, names: Mapping[str, str]) -> UpdatePlan:
        refs = self.name_refs
        key = tuple([names[ref] for ref in refs]) if refs else ()
        plan = self._plans.get(key)
        if plan is None:
            plan = _plan(self.tree, names)
            if len(self._plans) >= _PLAN_CACHE_SIZE:
                self._plans.clear()
            self._plans[key] = plan
        if isinstance(plan, str):
            raise ExpressionError(plan)
        return plan


@lru_cache(maxsize=2048)
def compiled_update(text: str) -> CompiledUpdate:
    """The compiled UpdateExpression; raises ExpressionError (empty, syntax)."""
    return CompiledUpdate(parse_update(text))


def _plan(tree: ast.UpdateExpression, names: Mapping[str, str]) -> UpdatePlan | str:
    steps: list[Step] = []
    assigned: dict[str, str | None] = {}
    nested: set[str] = set()

    def note(path: ast.Path) -> Resolved:
        resolved = resolve(path, names)
        if len(resolved) > 1:
            nested.add(str(resolved[0]))
        return resolved

    def getter(value: ast.SetValue) -> Getter:
        if isinstance(value, ast.Arithmetic):
            if isinstance(value.left, ast.Path) and isinstance(value.right, ast.ValueRef):
                left = note(value.left)
                if len(left) == 1:  # ``n + :v``, a counter's SET: one call
                    return attribute_arithmetic_getter(value.op, str(left[0]), value.right.ref)
                return arithmetic_getter(value.op, path_getter(left), value_getter(value.right.ref))
            return arithmetic_getter(value.op, getter(value.left), getter(value.right))
        if isinstance(value, ast.ValueRef):
            return value_getter(value.ref)
        if isinstance(value, ast.Path):
            return path_getter(note(value))
        if len(value.args) != 2 or value.name not in UPDATE_FUNCTIONS:
            return _refused  # binding reports the misuse before anything runs
        first, second = value.args
        if value.name == "list_append":
            return list_append_getter(getter(first), getter(second))
        if not isinstance(first, ast.Path):
            return _refused
        return if_not_exists_getter(note(first), getter(second))

    for action in tree.actions():
        path = note(action.path)
        step: Step
        if isinstance(action, ast.SetAction):
            step = SetStep(path, getter(action.value))
            source = _type_source(action.value)
        elif isinstance(action, ast.RemoveAction):
            step, source = RemoveStep(path), None
        elif isinstance(action, ast.AddAction):
            step, source = AddStep(path, action.value.ref), action.value.ref
        else:
            step, source = DeleteStep(path, action.value.ref), action.value.ref
        steps.append(step)
        if len(path) == 1:
            assigned.setdefault(str(path[0]), source)
    problem = check_overlaps([step.path for step in steps])
    if problem is not None:
        return problem
    return UpdatePlan(steps, assigned, frozenset(nested))


def _type_source(value: ast.SetValue) -> str | None:
    if isinstance(value, ast.Arithmetic):
        return "N"
    if isinstance(value, ast.ValueRef):
        return value.ref
    if isinstance(value, ast.Call):
        if value.name == "list_append":
            return "L"
        if value.name == "if_not_exists" and len(value.args) == 2:
            return _type_source(value.args[1])
    return None


def _refused(item: Item, values: Mapping[str, AttributeValue]) -> AttributeValue:
    raise AssertionError("a misused function is refused when the update is bound")
