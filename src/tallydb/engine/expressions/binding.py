"""A request's ExpressionAttributeNames/Values, and its expressions bound to them.

    p = Placeholders(request.get("ExpressionAttributeNames"),
                     request.get("ExpressionAttributeValues"))
    update = p.update(request["UpdateExpression"])
    condition = p.condition(request["ConditionExpression"])
    p.check_unused()

Each method raises ValidationException with DynamoDB's message, prefixed by
the parameter ("Invalid UpdateExpression: ..."). Parsing and analysis are
cached by text; what a method does per request is check the placeholders it
uses and look up a plan cached for the request's attribute names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache

from tallydb.engine.errors import ValidationException
from tallydb.engine.expressions import ast, messages
from tallydb.engine.expressions.condition import BoundCondition, compiled_condition
from tallydb.engine.expressions.key_condition import BoundKeyCondition, bind_key_condition
from tallydb.engine.expressions.messages import ExpressionError
from tallydb.engine.expressions.parser import parse_projection
from tallydb.engine.expressions.paths import Resolved, check_overlaps, resolve
from tallydb.engine.expressions.projection import project
from tallydb.engine.expressions.reserved import is_reserved
from tallydb.engine.expressions.update import BoundUpdate, compiled_update
from tallydb.engine.values import AttributeValue, Item

_EMPTY_NAMES: Mapping[str, str] = {}
_EMPTY_VALUES: Mapping[str, AttributeValue] = {}


class BoundProjection:
    """A ProjectionExpression (or AttributesToGet) ready to cut items down."""

    __slots__ = ("paths",)

    def __init__(self, paths: Sequence[Resolved]) -> None:
        self.paths = tuple(paths)

    def apply(self, item: Item) -> Item:
        return project(item, self.paths)

    @property
    def attribute_names(self) -> tuple[str, ...]:
        """The top-level attributes projected, in the order written."""
        return tuple(dict.fromkeys(str(path[0]) for path in self.paths))


class Placeholders:
    """One request's placeholders, and which of them its expressions used."""

    __slots__ = ("_used_names", "_used_values", "names", "values")

    def __init__(self, names: Mapping[str, str] | None,
                 values: Mapping[str, AttributeValue] | None) -> None:
        self.names: Mapping[str, str] = names if names is not None else _EMPTY_NAMES
        self.values: Mapping[str, AttributeValue] = (
            values if values is not None else _EMPTY_VALUES)
        # The placeholders each bound expression used (tuples, joined when a
        # request has several expressions: they are a handful at most).
        self._used_names: tuple[str, ...] = ()
        self._used_values: tuple[str, ...] = ()

    def _use(self, names: tuple[str, ...], values: tuple[str, ...]) -> None:
        self._used_names = self._used_names + names if self._used_names else names
        self._used_values = self._used_values + values if self._used_values else values

    def update(self, text: str) -> BoundUpdate:
        """Bind an UpdateExpression."""
        try:
            compiled = compiled_update(text)
            bound = compiled.bind(self.names, self.values)
        except ExpressionError as error:
            raise error.to_validation(messages.UPDATE) from None
        self._use(compiled.name_refs, compiled.value_refs)
        return bound

    def condition(self, text: str) -> BoundCondition:
        """Bind a ConditionExpression."""
        return self._condition(text, messages.CONDITION)

    def filter(self, text: str) -> BoundCondition:
        """Bind a FilterExpression (a condition, worded as a filter)."""
        return self._condition(text, messages.FILTER)

    def _condition(self, text: str, parameter: str) -> BoundCondition:
        try:
            compiled = compiled_condition(text)
            bound = compiled.bind(self.names, self.values)
        except ExpressionError as error:
            raise error.to_validation(parameter) from None
        self._use(compiled.name_refs, compiled.value_refs)
        return bound

    def key_condition(self, text: str) -> BoundKeyCondition:
        """Bind a KeyConditionExpression."""
        try:
            compiled = compiled_condition(text)
            bound = bind_key_condition(compiled, self.names, self.values)
        except ExpressionError as error:
            raise error.to_validation(messages.KEY_CONDITION) from None
        self._use(compiled.name_refs, compiled.value_refs)
        return bound

    def projection(self, text: str) -> BoundProjection:
        """Bind a ProjectionExpression."""
        try:
            compiled = _compiled_projection(text)
            bound = compiled.bind(self.names)
        except ExpressionError as error:
            raise error.to_validation(messages.PROJECTION) from None
        self._use(compiled.name_refs, ())
        return bound

    def check_unused(self) -> None:
        """After binding all of a request's expressions: refuse placeholders
        none of them used (names first, then values)."""
        if self.names:
            used = self._used_names
            unused = [key for key in self.names if key not in used]
            if unused:
                raise ValidationException(messages.unused_names(unused))
        if self.values:
            used = self._used_values
            unused = [key for key in self.values if key not in used]
            if unused:
                raise ValidationException(messages.unused_values(unused))


class CompiledProjection:
    """A ProjectionExpression's paths and static checks (cached per text)."""

    __slots__ = ("_plans", "name_refs", "paths", "reserved")

    def __init__(self, paths: tuple[ast.Path, ...]) -> None:
        self.paths = paths
        self.reserved: str | None = None
        refs: list[str] = []
        for path in paths:
            for element in path.elements:
                if isinstance(element, ast.NameRef):
                    refs.append(element.ref)
                elif (isinstance(element, ast.Name) and self.reserved is None
                      and is_reserved(element.name)):
                    self.reserved = element.name
        self.name_refs = tuple(dict.fromkeys(refs))
        self._plans: dict[tuple[str, ...], BoundProjection | str] = {}

    def bind(self, names: Mapping[str, str]) -> BoundProjection:
        if self.reserved is not None:
            raise ExpressionError(messages.reserved_keyword(self.reserved))
        for ref in self.name_refs:
            if ref not in names:
                raise ExpressionError(messages.undefined_name(ref))
        key = tuple(names[ref] for ref in self.name_refs)
        plan = self._plans.get(key)
        if plan is None:
            resolved = [resolve(path, names) for path in self.paths]
            plan = check_overlaps(resolved) or BoundProjection(resolved)
            if len(self._plans) >= 64:
                self._plans.clear()
            self._plans[key] = plan
        if isinstance(plan, str):
            raise ExpressionError(plan)
        return plan


@lru_cache(maxsize=2048)
def _compiled_projection(text: str) -> CompiledProjection:
    return CompiledProjection(parse_projection(text).paths)
