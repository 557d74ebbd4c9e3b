"""One source for the blocking and the asyncio toolkit.

Each toolkit method is written once, as a plan (:mod:`tallydb.toolkit.transport`)
with its signature and docstring, on a base class that both APIs share::

    class TableBase:
        @operation
        def get(self, key, *, consistent=False) -> Plan[Item | None]:
            \"\"\"GetItem: the item with this key, or None.\"\"\"
            return self._p_get(key, consistent, None)

    class Table(TableBase, Blocking): ...          # tallydb.Table
    class Table(TableBase, Awaiting): ...          # tallydb.aio.Table

The descriptors here make the method each API exposes: called on a
:class:`Blocking` object, ``table.get(key)`` runs the plan to its end and
returns its result; on an :class:`Awaiting` one it returns a coroutine, to
be awaited. :func:`stream` does the same for plans whose results come in
parts (an iterator, or an async iterator). Only the two drivers in
:class:`~tallydb.toolkit.transport.Transport` differ between the APIs.

The object's ``transport`` runs the plan; a class-level operation
(:class:`class_operation`) finds it with the class's ``_class_transport()``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar, Concatenate, Generic, ParamSpec, TypeVar, overload

from tallydb.toolkit.transport import Plan, Stream

if TYPE_CHECKING:
    from typing import Self

    from tallydb.toolkit.transport import Transport

__all__ = [
    "Awaiting",
    "Blocking",
    "Driven",
    "chained",
    "class_lookup",
    "class_lookups",
    "class_operation",
    "class_stream",
    "operation",
    "stream",
]

P = ParamSpec("P")
T = TypeVar("T")
S = TypeVar("S")


class Driven:
    """An object whose methods are plans: ``_transport`` runs them (by
    default its ``transport``)."""

    __slots__ = ()
    awaited: ClassVar[bool]

    @property
    def _transport(self) -> Transport:
        transport: Transport = self.transport  # type: ignore[attr-defined]
        return transport


class Blocking(Driven):
    """An object of the blocking API: its operations return their results."""

    __slots__ = ()
    awaited: ClassVar[bool] = False


class Awaiting(Driven):
    """An object of the asyncio API: its operations return coroutines."""

    __slots__ = ()
    awaited: ClassVar[bool] = True


def _run(plan: Callable[..., Plan[Any]], obj: Any, *args: Any, **kwargs: Any) -> Any:
    return obj._transport.run(plan(obj, *args, **kwargs))


def _arun(plan: Callable[..., Plan[Any]], obj: Any, *args: Any, **kwargs: Any) -> Any:
    return obj._transport.arun(plan(obj, *args, **kwargs))


def _iterate(plan: Callable[..., Stream[Any]], obj: Any, *args: Any, **kwargs: Any) -> Any:
    return obj._transport.iterate(plan(obj, *args, **kwargs))


def _aiterate(plan: Callable[..., Stream[Any]], obj: Any, *args: Any, **kwargs: Any) -> Any:
    return obj._transport.aiterate(plan(obj, *args, **kwargs))


def _class_run(plan: Callable[..., Plan[Any]], cls: Any, *args: Any, **kwargs: Any) -> Any:
    return cls._class_transport().run(plan(cls, *args, **kwargs))


def _class_arun(plan: Callable[..., Plan[Any]], cls: Any, *args: Any, **kwargs: Any) -> Any:
    return cls._class_transport().arun(plan(cls, *args, **kwargs))


def _class_iterate(plan: Callable[..., Stream[Any]], cls: Any, *args: Any, **kwargs: Any) -> Any:
    return cls._class_transport().iterate(plan(cls, *args, **kwargs))


def _class_aiterate(plan: Callable[..., Stream[Any]], cls: Any, *args: Any, **kwargs: Any) -> Any:
    return cls._class_transport().aiterate(plan(cls, *args, **kwargs))


class _Described:
    """What a descriptor shows of the plan it wraps: name, docstring, signature."""

    def __init__(self, plan: Callable[..., Any]) -> None:
        self.plan = plan
        self.__wrapped__ = plan
        self.__name__ = plan.__name__
        self.__qualname__ = plan.__qualname__
        self.__doc__ = plan.__doc__
        self.__module__ = plan.__module__

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.__qualname__}>"


class operation(_Described, Generic[S, P, T]):
    """A method written once as a plan: blocking or awaited by the object's API.

    A method decorated with ``@op.blocking_by`` is what a blocking object
    calls instead of running the plan: the same behaviour by a faster road
    (a counter's add, which skips the plan for its one request).
    """

    def __init__(self, plan: Callable[Concatenate[S, P], Plan[T]]) -> None:
        super().__init__(plan)
        self.blocking: Callable[Concatenate[S, P], T] | None = None

    def blocking_by(
        self, fast: Callable[Concatenate[S, P], T]
    ) -> Callable[Concatenate[S, P], T]:
        """Decorate the faster road a blocking object takes (see the class)."""
        self.blocking = fast
        return fast

    @overload
    def __get__(self, obj: None, owner: type[Any]) -> Self: ...
    @overload
    def __get__(self, obj: Blocking, owner: type[Any]) -> Callable[P, T]: ...
    @overload
    def __get__(
        self, obj: Awaiting, owner: type[Any]
    ) -> Callable[P, Coroutine[Any, Any, T]]: ...
    def __get__(self, obj: Any, owner: type[Any]) -> Any:
        if obj is None:
            return self
        if obj.awaited:
            return partial(_arun, self.plan, obj)
        if self.blocking is not None:
            return partial(self.blocking, obj)
        return partial(_run, self.plan, obj)


class stream(_Described, Generic[S, P, T]):
    """A method whose results come in parts: an iterator, or an async iterator."""

    def __init__(self, plan: Callable[Concatenate[S, P], Stream[T]]) -> None:
        super().__init__(plan)

    @overload
    def __get__(self, obj: None, owner: type[Any]) -> Self: ...
    @overload
    def __get__(self, obj: Blocking, owner: type[Any]) -> Callable[P, Iterator[T]]: ...
    @overload
    def __get__(self, obj: Awaiting, owner: type[Any]) -> Callable[P, AsyncIterator[T]]: ...
    def __get__(self, obj: Any, owner: type[Any]) -> Any:
        if obj is None:
            return self
        return partial(_aiterate if obj.awaited else _iterate, self.plan, obj)


B = TypeVar("B", bound=Blocking)
A = TypeVar("A", bound=Awaiting)


class class_operation(_Described, Generic[S, P, T]):
    """A class-level method written once as a plan (``Model.create_table()``);
    blocking or awaited by the class's API, on the class's transport."""

    def __init__(self, plan: Callable[Concatenate[type[S], P], Plan[T]]) -> None:
        super().__init__(plan)

    @overload
    def __get__(self, obj: Any, owner: type[Blocking]) -> Callable[P, T]: ...
    @overload
    def __get__(self, obj: Any, owner: type[Awaiting]) -> Callable[P, Coroutine[Any, Any, T]]: ...
    def __get__(self, obj: Any, owner: Any) -> Any:
        return partial(_class_arun if owner.awaited else _class_run, self.plan, owner)


# -- methods whose results are the object or instances of the class ------------
# (a model's ``update()`` returns the model; ``Customer.get(...)`` a Customer):
# the same drivers, typed by the class they are called on.

class chained(_Described, Generic[P]):
    """An operation whose result is the object it was called on."""

    def __init__(self, plan: Callable[Concatenate[Any, P], Plan[Any]]) -> None:
        super().__init__(plan)

    @overload
    def __get__(self, obj: None, owner: type[Any]) -> Self: ...
    @overload
    def __get__(self, obj: B, owner: type[Any]) -> Callable[P, B]: ...
    @overload
    def __get__(self, obj: A, owner: type[Any]) -> Callable[P, Coroutine[Any, Any, A]]: ...
    def __get__(self, obj: Any, owner: type[Any]) -> Any:
        if obj is None:
            return self
        return partial(_arun if obj.awaited else _run, self.plan, obj)


class class_lookup(_Described, Generic[P]):
    """A class-level operation whose result is an instance of the class."""

    def __init__(self, plan: Callable[Concatenate[Any, P], Plan[Any]]) -> None:
        super().__init__(plan)

    @overload
    def __get__(self, obj: Any, owner: type[B]) -> Callable[P, B]: ...
    @overload
    def __get__(self, obj: Any, owner: type[A]) -> Callable[P, Coroutine[Any, Any, A]]: ...
    def __get__(self, obj: Any, owner: Any) -> Any:
        return partial(_class_arun if owner.awaited else _class_run, self.plan, owner)


class class_lookups(_Described, Generic[P]):
    """A class-level operation whose result is a list of instances of the class."""

    def __init__(self, plan: Callable[Concatenate[Any, P], Plan[list[Any]]]) -> None:
        super().__init__(plan)

    @overload
    def __get__(self, obj: Any, owner: type[B]) -> Callable[P, list[B]]: ...
    @overload
    def __get__(
        self, obj: Any, owner: type[A]
    ) -> Callable[P, Coroutine[Any, Any, list[A]]]: ...
    def __get__(self, obj: Any, owner: Any) -> Any:
        return partial(_class_arun if owner.awaited else _class_run, self.plan, owner)


class class_stream(_Described, Generic[P]):
    """A class-level method whose results, instances of the class, come in parts."""

    def __init__(self, plan: Callable[Concatenate[Any, P], Stream[Any]]) -> None:
        super().__init__(plan)

    @overload
    def __get__(self, obj: Any, owner: type[B]) -> Callable[P, Iterator[B]]: ...
    @overload
    def __get__(self, obj: Any, owner: type[A]) -> Callable[P, AsyncIterator[A]]: ...
    def __get__(self, obj: Any, owner: Any) -> Any:
        return partial(_class_aiterate if owner.awaited else _class_iterate, self.plan, owner)
