"""The attributes of a :class:`~tallydb.toolkit.model.Model`.

Declare a model's attributes with type annotations; what a name is assigned
says what kind of attribute it is::

    class Customer(tallydb.Model, table="customers"):
        id: str = tallydb.HashKey()                       # partition key
        since: int = tallydb.RangeKey()                   # sort key (optional)
        name: str | None = None                           # a plain attribute, default None
        tags: set[str] = tallydb.Attribute(name="t")      # stored as "t"
        logins: int = tallydb.AtomicCounter()             # +1 on every update, starts at 0
        points: int = tallydb.AtomicCounter(delta=5, start=10)
        version: int = tallydb.VersionAttribute()         # optimistic locking
        expires: datetime | None = tallydb.TTLAttribute() # epoch seconds, for TTL

On the class, an attribute is a :class:`~tallydb.toolkit.conditions.Path` to build
conditions and updates with (``Customer.logins > 3``,
``Update().set(Customer.name, "x")``); on an instance it is the value.

The annotation gives the Python type values are read back as (``int``,
``float``, ``Decimal``, ``str``, ``bytes``, ``bool``, ``list``, ``dict``,
``set[...]``, ``datetime``/``date`` stored as ISO 8601 strings, any of them
``| None``). Key types map to DynamoDB's: ``str`` → S, ``int``/``float``/
``Decimal`` → N, ``bytes`` → B.

Values are checked against the annotation when assigned (and when the
constructor sets them): ``visits: int`` refuses ``"not an int"`` with a
TypeError that names the model, the attribute and both types. A value
changed in place (a list appended to) is checked again by ``save()``.
"""

from __future__ import annotations

import copy
import datetime as dt
import types
import typing
from decimal import Decimal
from typing import Any, Literal

from tallydb.toolkit.conditions import Path

__all__ = [
    "AtomicCounter",
    "Attribute",
    "HashKey",
    "ModelAttribute",
    "RangeKey",
    "TTLAttribute",
    "TimeToLive",
    "VersionAttribute",
]

Kind = Literal["plain", "hash", "range", "counter", "version"]


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class ModelAttribute(Path):
    """One attribute of a model: a descriptor on instances, a Path on the class."""

    kind: Kind = "plain"

    def __init__(
        self,
        *,
        name: str | None = None,
        default: Any = MISSING,
        kind: Kind = "plain",
        delta: int | Decimal = 1,
        start: int | Decimal = 0,
    ) -> None:
        # elements are set in __set_name__ (the wire name may be the Python name)
        self.wire_name = name
        self.default = None if default is MISSING else default
        self.kind = kind
        self.delta = delta
        self.start = start
        self.python_name = ""
        self.python_type: Any = Any
        self.owner_name = ""
        if name is not None:
            self.elements = (name,)

    def __set_name__(self, owner: type, name: str) -> None:
        self.python_name = name
        self.owner_name = owner.__name__
        if self.wire_name is None:
            self.wire_name = name
            self.elements = (name,)

    @property
    def name(self) -> str:
        """The attribute's name in the table."""
        assert self.wire_name is not None
        return self.wire_name

    @typing.overload
    def __get__(self, instance: None, owner: type) -> ModelAttribute: ...

    @typing.overload
    def __get__(self, instance: object, owner: type) -> Any: ...

    def __get__(self, instance: object | None, owner: type) -> Any:
        if instance is None:
            return self
        values: dict[str, Any] = instance.__dict__["_values"]
        return values.get(self.python_name)

    def __set__(self, instance: object, value: Any) -> None:
        self.check(value)
        instance.__dict__["_values"][self.python_name] = value
        instance.__dict__["_dirty"].add(self.python_name)

    def initial(self) -> Any:
        """The default for a new instance (a fresh copy of a mutable default)."""
        if isinstance(self.default, list | dict | set):
            return copy.copy(self.default)
        return self.default

    def __repr__(self) -> str:
        stored = "" if self.name == self.python_name else f" (stored as {self.name})"
        return f"<{self.kind} attribute {self.python_name}{stored}>"

    # -- values ------------------------------------------------------------------

    def check(self, value: Any) -> None:
        """Raise TypeError if ``value`` is not of the annotated type (None is
        always allowed: it means no attribute)."""
        if value is None or _conforms(self.python_type, value):
            return
        raise TypeError(
            f"{self.owner_name}.{self.python_name} is {_type_name(self.python_type)}, "
            f"not {type(value).__name__}: {value!r}"
        )

    def dump(self, value: Any) -> Any:
        """A Python value as it is stored."""
        if isinstance(value, dt.datetime | dt.date):
            return value.isoformat()
        return value

    def load(self, value: Any) -> Any:
        """A stored value as the annotated Python type."""
        return _coerce(self.python_type, value)

    def key_type(self) -> str:
        """DynamoDB's type for this attribute as a key: S, N or B."""
        base = _strip_optional(self.python_type)
        if base in (int, float, Decimal):
            return "N"
        if base is bytes:
            return "B"
        if base in (str, Any) or base is dt.datetime or base is dt.date:
            return "S"
        raise TypeError(
            f"{self.python_name}: a key is str, int, float, Decimal or bytes, not {base}"
        )


def Attribute(*, name: str | None = None, default: Any = MISSING) -> Any:
    """A plain attribute with options: stored under ``name``, ``default``
    for new instances. (``x: int = 0`` is the same as
    ``x: int = tallydb.Attribute(default=0)``.) Typed ``Any`` so that the
    annotation, not this call, is the attribute's type for type checkers."""
    return ModelAttribute(name=name, default=default)


def HashKey(*, name: str | None = None) -> Any:
    """The partition (hash) key. ``name=`` stores it under another name."""
    return ModelAttribute(name=name, kind="hash")


def RangeKey(*, name: str | None = None) -> Any:
    """The sort (range) key."""
    return ModelAttribute(name=name, kind="range")


def AtomicCounter(
    *, delta: int | Decimal = 1, start: int | Decimal = 0, name: str | None = None
) -> Any:
    """A counter changed by ``delta`` in every ``update()``, as the AWS Java
    SDK's enhanced client does: ``SET c = if_not_exists(c, :start - :delta) + :delta``,
    so the first update leaves it at ``start``. ``save()`` (a PutItem) writes
    ``start``. Setting it by hand and calling ``update()`` is refused with
    DynamoDB's "Two document paths overlap" error."""
    return ModelAttribute(name=name, kind="counter", delta=delta, start=start)


def VersionAttribute(*, name: str | None = None) -> Any:
    """A version number for optimistic locking: every write requires the
    stored version to be the one read (or no item, for a new one) and
    increments it; a concurrent writer gets
    :class:`~tallydb.toolkit.exceptions.VersionConflictError`."""
    return ModelAttribute(name=name, kind="version")


class TimeToLive(ModelAttribute):
    """A TTL attribute: a ``datetime`` in Python, epoch seconds (N) in the
    table, which is what DynamoDB's TTL reads. A naive datetime is taken as
    UTC; a ``timedelta`` means that long from now."""

    def check(self, value: Any) -> None:
        if value is None or isinstance(value, dt.datetime | dt.timedelta):
            return
        if isinstance(value, int | float | Decimal) and not isinstance(value, bool):
            return
        raise TypeError(
            f"{self.owner_name}.{self.python_name} is a TTL: a datetime, a timedelta from "
            f"now or epoch seconds, not {type(value).__name__}: {value!r}"
        )

    def dump(self, value: Any) -> Any:
        if isinstance(value, dt.timedelta):
            value = dt.datetime.now(dt.UTC) + value
        if isinstance(value, dt.datetime):
            if value.tzinfo is None:
                value = value.replace(tzinfo=dt.UTC)
            return int(value.timestamp())
        if isinstance(value, float):
            return int(value)
        return value

    def load(self, value: Any) -> Any:
        if value is None:
            return None
        return dt.datetime.fromtimestamp(int(value), dt.UTC)

    def key_type(self) -> str:
        return "N"


def TTLAttribute(*, name: str | None = None) -> Any:
    """The attribute DynamoDB's TTL expires items by (see :class:`TimeToLive`):
    ``Model.create_table()`` turns TTL on for it."""
    return TimeToLive(name=name)


def _type_name(tp: Any) -> str:
    return getattr(tp, "__name__", None) or str(tp).replace("typing.", "")


def _conforms(tp: Any, value: Any) -> bool:
    """Whether ``value`` may be stored as annotated ``tp`` (unknown types pass)."""
    if tp is Any or isinstance(tp, str | typing.TypeVar):
        return True
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return any(_conforms(a, value) for a in typing.get_args(tp) if a is not type(None))
    if tp is bool:
        return isinstance(value, bool)
    if isinstance(value, bool):
        return tp in (object,)
    if tp is int:
        return isinstance(value, int)
    if tp in (float, Decimal):
        return isinstance(value, int | float | Decimal)
    if tp is bytes:
        return isinstance(value, bytes | bytearray)
    if tp is dt.date:
        return isinstance(value, dt.date)
    if origin in (set, frozenset):
        (member,) = typing.get_args(tp) or (Any,)
        return isinstance(value, set | frozenset) and all(_conforms(member, v) for v in value)
    if origin is list:
        (member,) = typing.get_args(tp) or (Any,)
        return isinstance(value, list) and all(_conforms(member, v) for v in value)
    if origin is dict:
        return isinstance(value, dict)
    if isinstance(tp, type):
        return isinstance(value, tp)
    return True


def _strip_optional(tp: Any) -> Any:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return tp


def _coerce(tp: Any, value: Any) -> Any:
    if value is None:
        return None
    tp = _strip_optional(tp)
    origin = typing.get_origin(tp) or tp
    if tp is int and isinstance(value, Decimal | int) and not isinstance(value, bool):
        return int(value)
    if tp is float and isinstance(value, Decimal | int) and not isinstance(value, bool):
        return float(value)
    if tp is Decimal and isinstance(value, int | Decimal) and not isinstance(value, bool):
        return Decimal(value)
    if tp is dt.datetime and isinstance(value, str):
        return dt.datetime.fromisoformat(value)
    if tp is dt.date and isinstance(value, str):
        return dt.date.fromisoformat(value)
    if origin in (set, frozenset) and isinstance(value, set):
        (member,) = typing.get_args(tp) or (Any,)
        return origin(_coerce(member, v) for v in value)
    if origin is list and isinstance(value, list):
        args = typing.get_args(tp)
        return [_coerce(args[0], v) for v in value] if args else value
    return value
