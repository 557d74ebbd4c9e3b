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

When an API class is defined, each plan-method it inherits is replaced by
an ordinary method that runs the plan: on a :class:`Blocking` class
``table.get(key)`` runs it to its end and returns its result; on an
:class:`Awaiting` one it returns a coroutine, to be awaited. :class:`stream`
does the same for plans whose results come in parts (an iterator, or an
async iterator). Only the drivers in :class:`~tallydb.toolkit.transport.Transport`
(``run``/``arun``, ``iterate``/``aiterate``) differ between the APIs.

The decorators' ``__get__`` overloads say to a type checker what each API's
method returns; the methods themselves are plain functions, so a call costs
what an ordinary method call costs. An object's plans run on its
``transport``; class-level ones (``Model.get``) on the class's
``_class_transport()``.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from operator import attrgetter
from typing import TYPE_CHECKING, Any, ClassVar, Concatenate, Generic, ParamSpec, TypeVar, overload

from tallydb.toolkit.transport import Plan, Stream, Transport

if TYPE_CHECKING:
    from typing import Self

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


def _method(plan: Callable[..., Any], cls: type[Driven], drive: str) -> Callable[..., Any]:
    """The method that runs ``plan`` on an object of ``cls`` by ``Transport.<drive>``.
    A stream's method is lazy (sends nothing until iterated) when its plan is."""
    transport_of = cls._transport_of

    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        return transport_of(self).run(plan(self, *args, **kwargs))

    async def arun(self: Any, *args: Any, **kwargs: Any) -> Any:
        return await transport_of(self).arun(plan(self, *args, **kwargs))

    def iterate(self: Any, *args: Any, **kwargs: Any) -> Any:
        return transport_of(self).iterate(plan(self, *args, **kwargs))

    def aiterate(self: Any, *args: Any, **kwargs: Any) -> Any:
        return transport_of(self).aiterate(plan(self, *args, **kwargs))

    def iterate_lazily(self: Any, *args: Any, **kwargs: Any) -> Any:
        yield from transport_of(self).iterate(plan(self, *args, **kwargs))

    async def aiterate_lazily(self: Any, *args: Any, **kwargs: Any) -> Any:
        async for value in transport_of(self).aiterate(plan(self, *args, **kwargs)):
            yield value

    methods: dict[str, Callable[..., Any]] = {
        "run": run, "arun": arun, "iterate": iterate, "aiterate": aiterate,
    }
    if inspect.isgeneratorfunction(plan):
        methods.update(iterate=iterate_lazily, aiterate=aiterate_lazily)
    return _like(methods[drive], plan)


def _class_method(plan: Callable[..., Any], drive: str) -> Any:
    """The class-level method that runs ``plan`` by ``Transport.<drive>`` (a
    stream's lazily, as a model's query is: nothing is sent until iterated)."""

    def run(cls: Any, *args: Any, **kwargs: Any) -> Any:
        return cls._class_transport().run(plan(cls, *args, **kwargs))

    async def arun(cls: Any, *args: Any, **kwargs: Any) -> Any:
        return await cls._class_transport().arun(plan(cls, *args, **kwargs))

    def iterate(cls: Any, *args: Any, **kwargs: Any) -> Any:
        yield from cls._class_transport().iterate(plan(cls, *args, **kwargs))

    async def aiterate(cls: Any, *args: Any, **kwargs: Any) -> Any:
        async for value in cls._class_transport().aiterate(plan(cls, *args, **kwargs)):
            yield value

    methods = {"run": run, "arun": arun, "iterate": iterate, "aiterate": aiterate}
    return classmethod(_like(methods[drive], plan))


def _like(method: Callable[..., Any], plan: Callable[..., Any]) -> Callable[..., Any]:
    """``method``, named and documented as ``plan`` (its ``__wrapped__``, and ``plan``)."""
    functools.update_wrapper(method, plan)
    method.plan = plan  # type: ignore[attr-defined]
    return method


class _Described:
    """A plan-method as the shared base class holds it: its name, docstring
    and signature are the plan's; each API class gets :meth:`driver` in its place."""

    #: ``"operation"`` (one result) or ``"stream"`` (results in parts).
    kind: ClassVar[str] = "operation"
    #: Called on the class (``Model.get``) rather than on an object.
    on_class: ClassVar[bool] = False

    def __init__(self, plan: Callable[..., Any]) -> None:
        self.plan = plan
        self.__wrapped__ = plan
        self.__name__ = plan.__name__
        self.__qualname__ = plan.__qualname__
        self.__doc__ = plan.__doc__
        self.__module__ = plan.__module__

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.__qualname__}>"

    def driver(self, cls: type[Driven]) -> Any:
        """The method ``cls``'s API has in this one's place."""
        if self.kind == "operation":
            drive = "arun" if cls.awaited else "run"
        else:
            drive = "aiterate" if cls.awaited else "iterate"
        if self.on_class:
            return _class_method(self.plan, drive)
        return _method(self.plan, cls, drive)


class Driven:
    """An object whose methods are plans, of one API or the other."""

    __slots__ = ()
    #: Whether the API's methods are awaited; set by Blocking and Awaiting.
    awaited: ClassVar[bool]
    #: The transport an object's plans run on (a model finds its own).
    _transport_of: ClassVar[Callable[[Any], Transport]] = staticmethod(attrgetter("transport"))

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not hasattr(cls, "awaited"):
            return
        for name in dir(cls):
            attribute = inspect.getattr_static(cls, name)
            if isinstance(attribute, _Described):
                setattr(cls, name, attribute.driver(cls))


class Blocking(Driven):
    """An object of the blocking API: its methods return their results."""

    __slots__ = ()
    awaited: ClassVar[bool] = False


class Awaiting(Driven):
    """An object of the asyncio API: its methods return coroutines (or async
    iterators)."""

    __slots__ = ()
    awaited: ClassVar[bool] = True


class operation(_Described, Generic[S, P, T]):
    """A method written once as a plan: blocking or awaited by the object's API.

    A method decorated with ``@op.blocking_by`` is what the blocking API has
    instead: the same behaviour by a faster road (a counter's add, which
    sends its one request without running a plan).
    """

    def __init__(self, plan: Callable[Concatenate[S, P], Plan[T]]) -> None:
        super().__init__(plan)
        self.blocking: Callable[Concatenate[S, P], T] | None = None

    def blocking_by(
        self, fast: Callable[Concatenate[S, P], T]
    ) -> Callable[Concatenate[S, P], T]:
        """Decorate the blocking API's faster road (see the class)."""
        self.blocking = fast
        return fast

    def driver(self, cls: type[Driven]) -> Any:
        if self.blocking is not None and not cls.awaited:
            return _like(self.blocking, self.plan)
        return super().driver(cls)

    @overload
    def __get__(self, obj: None, owner: type[Any]) -> Self: ...
    @overload
    def __get__(self, obj: Blocking, owner: type[Any]) -> Callable[P, T]: ...
    @overload
    def __get__(
        self, obj: Awaiting, owner: type[Any]
    ) -> Callable[P, Coroutine[Any, Any, T]]: ...
    def __get__(self, obj: Any, owner: type[Any]) -> Any:
        return self  # an API class has its own method in this one's place


class stream(_Described, Generic[S, P, T]):
    """A method whose results come in parts: an iterator, or an async iterator."""

    kind = "stream"

    def __init__(self, plan: Callable[Concatenate[S, P], Stream[T]]) -> None:
        super().__init__(plan)

    @overload
    def __get__(self, obj: None, owner: type[Any]) -> Self: ...
    @overload
    def __get__(self, obj: Blocking, owner: type[Any]) -> Callable[P, Iterator[T]]: ...
    @overload
    def __get__(self, obj: Awaiting, owner: type[Any]) -> Callable[P, AsyncIterator[T]]: ...
    def __get__(self, obj: Any, owner: type[Any]) -> Any:
        return self  # an API class has its own method in this one's place


class class_operation(_Described, Generic[S, P, T]):
    """A class-level method written once as a plan (``Model.create_table()``)."""

    on_class = True

    def __init__(self, plan: Callable[Concatenate[type[S], P], Plan[T]]) -> None:
        super().__init__(plan)

    @overload
    def __get__(self, obj: Any, owner: type[Blocking]) -> Callable[P, T]: ...
    @overload
    def __get__(self, obj: Any, owner: type[Awaiting]) -> Callable[P, Coroutine[Any, Any, T]]: ...
    def __get__(self, obj: Any, owner: Any) -> Any:
        return self  # an API class has its own method in this one's place


# -- methods whose results are the object, or instances of the class -----------
# (a model's ``update()`` returns the model; ``Customer.get(...)`` a Customer):
# the same drivers, typed by the class they are called on.

B = TypeVar("B", bound=Blocking)
A = TypeVar("A", bound=Awaiting)


class chained(_Described, Generic[P]):
    """A method whose result is the object it was called on."""

    def __init__(self, plan: Callable[Concatenate[Any, P], Plan[Any]]) -> None:
        super().__init__(plan)

    @overload
    def __get__(self, obj: None, owner: type[Any]) -> Self: ...
    @overload
    def __get__(self, obj: B, owner: type[Any]) -> Callable[P, B]: ...
    @overload
    def __get__(self, obj: A, owner: type[Any]) -> Callable[P, Coroutine[Any, Any, A]]: ...
    def __get__(self, obj: Any, owner: type[Any]) -> Any:
        return self  # an API class has its own method in this one's place


class class_lookup(_Described, Generic[P]):
    """A class-level method whose result is an instance of the class."""

    on_class = True

    def __init__(self, plan: Callable[Concatenate[Any, P], Plan[Any]]) -> None:
        super().__init__(plan)

    @overload
    def __get__(self, obj: Any, owner: type[B]) -> Callable[P, B]: ...
    @overload
    def __get__(self, obj: Any, owner: type[A]) -> Callable[P, Coroutine[Any, Any, A]]: ...
    def __get__(self, obj: Any, owner: Any) -> Any:
        return self  # an API class has its own method in this one's place


class class_lookups(_Described, Generic[P]):
    """A class-level method whose result is a list of instances of the class."""

    on_class = True

    def __init__(self, plan: Callable[Concatenate[Any, P], Plan[list[Any]]]) -> None:
        super().__init__(plan)

    @overload
    def __get__(self, obj: Any, owner: type[B]) -> Callable[P, list[B]]: ...
    @overload
    def __get__(
        self, obj: Any, owner: type[A]
    ) -> Callable[P, Coroutine[Any, Any, list[A]]]: ...
    def __get__(self, obj: Any, owner: Any) -> Any:
        return self  # an API class has its own method in this one's place


class class_stream(_Described, Generic[P]):
    """A class-level method whose results, instances of the class, come in parts."""

    kind = "stream"
    on_class = True

    def __init__(self, plan: Callable[Concatenate[Any, P], Stream[Any]]) -> None:
        super().__init__(plan)

    @overload
    def __get__(self, obj: Any, owner: type[B]) -> Callable[P, Iterator[B]]: ...
    @overload
    def __get__(self, obj: Any, owner: type[A]) -> Callable[P, AsyncIterator[A]]: ...
    def __get__(self, obj: Any, owner: Any) -> Any:
        return self  # an API class has its own method in this one's place
