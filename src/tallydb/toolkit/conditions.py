"""Document paths and conditions, built in Python.

A :class:`Path` names an attribute, or something inside one::

    Path("play_count")                  # a top-level attribute
    Path("stats.daily[3]")              # the map key "daily" of "stats", element 3
    Path.literal("stats", "daily", 3)   # the same, element by element
    Path.literal("a.b")                 # ONE attribute whose name contains a dot

Wherever the toolkit takes a path as a ``str`` it is read as ``Path(str)``
reads it (dots separate map keys, ``[n]`` indexes a list); pass a
``Path.literal(...)`` for names that contain ``.`` or ``[``.

Comparing a path builds a :class:`Condition` (for a ConditionExpression, a
FilterExpression or a KeyConditionExpression)::

    (Path("stock") >= 3) & Path("sku").begins_with("A") & ~Path("hidden").exists()
    Path("n").between(1, 10) | Path("kind").is_in("a", "b")
    Path("tags").size() > 2

``&``, ``|`` and ``~`` are AND, OR and NOT; Python's ``and``/``or``/``not``
and ``if`` cannot be overloaded, so a Condition refuses to be used as a
truth value (``if Path("a") == 1:`` raises ``TypeError`` instead of quietly
being true). Conditions render to the grammar the server parses, every name
and value as a placeholder.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal, NoReturn

from tallydb.toolkit import _expr as x
from tallydb.toolkit.convert import Wire

__all__ = ["Arithmetic", "Condition", "Function", "Operand", "Path", "Size", "operand"]

#: DynamoDB's type names for ``attribute_type``.
TYPE_NAMES = ("S", "SS", "N", "NS", "B", "BS", "BOOL", "NULL", "L", "M")


def operand(value: Any) -> x.OperandNode:
    """An operand node: builder objects as they are, anything else as a value."""
    if isinstance(value, Operand):
        return value._node()
    return x.value_node(value)


class Operand:
    """Something an expression can compute with: a path, ``size(path)``, a
    function call. Plain Python values are operands too (sent as values)."""

    __slots__ = ()
    __hash__ = None  # type: ignore[assignment]

    def _node(self) -> x.OperandNode:
        raise NotImplementedError

    def _compare(self, op: x.Comparator, other: Any) -> Condition:
        return Condition(x.CompareNode(op, self._node(), operand(other)))

    # Comparators build conditions (as PynamoDB's and boto3's Attr do).
    def __eq__(self, other: object) -> Condition:  # type: ignore[override]
        return self._compare("=", other)

    def __ne__(self, other: object) -> Condition:  # type: ignore[override]
        return self._compare("<>", other)

    def __lt__(self, other: Any) -> Condition:
        return self._compare("<", other)

    def __le__(self, other: Any) -> Condition:
        return self._compare("<=", other)

    def __gt__(self, other: Any) -> Condition:
        return self._compare(">", other)

    def __ge__(self, other: Any) -> Condition:
        return self._compare(">=", other)

    # The same as methods, for type checkers and for readers who prefer words.
    def eq(self, other: Any) -> Condition:
        """``self = other``"""
        return self._compare("=", other)

    def ne(self, other: Any) -> Condition:
        """``self <> other``"""
        return self._compare("<>", other)

    def lt(self, other: Any) -> Condition:
        """``self < other``"""
        return self._compare("<", other)

    def lte(self, other: Any) -> Condition:
        """``self <= other``"""
        return self._compare("<=", other)

    def gt(self, other: Any) -> Condition:
        """``self > other``"""
        return self._compare(">", other)

    def gte(self, other: Any) -> Condition:
        """``self >= other``"""
        return self._compare(">=", other)

    def between(self, low: Any, high: Any) -> Condition:
        """``self BETWEEN low AND high`` (both ends included)."""
        return Condition(x.BetweenNode(self._node(), operand(low), operand(high)))

    def is_in(self, *candidates: Any) -> Condition:
        """``self IN (a, b, ...)``; ``is_in([a, b])`` works too."""
        if len(candidates) == 1 and isinstance(candidates[0], list | tuple):
            candidates = tuple(candidates[0])
        if not candidates:
            raise ValueError("is_in() needs at least one candidate")
        return Condition(x.InNode(self._node(), tuple(operand(c) for c in candidates)))

    def __bool__(self) -> bool:
        raise TypeError(
            f"{self!r} has no truth value; compare it to build a Condition (==, <, ...)"
        )


class Path(Operand):
    """A document path: ``Path("stats.daily[3]")`` is the map key ``daily`` of
    ``stats``, element 3. For names that contain ``.`` or ``[``, build it
    element by element: ``Path.literal("a.b")`` is ONE attribute named ``a.b``,
    ``Path.literal("stats", "daily", 3)`` is ``stats.daily[3]``."""

    __slots__ = ("elements",)

    def __init__(self, path: str) -> None:
        if not isinstance(path, str):
            raise TypeError(f"Path takes a document path as text, got {path!r}; see Path.literal")
        self.elements: tuple[str | int, ...] = x.parse_path(path)

    @classmethod
    def literal(cls, *elements: str | int) -> Path:
        """A path from its elements, taken as they are: each ``str`` is one
        name (dots and brackets included), each ``int`` a list index."""
        if not elements:
            raise ValueError("a Path needs at least one element")
        if not isinstance(elements[0], str):
            raise ValueError("a Path starts with an attribute name, not a list index")
        for e in elements:
            if isinstance(e, bool) or not isinstance(e, str | int):
                raise TypeError(f"path elements are names (str) or list indexes (int): {e!r}")
            if isinstance(e, int) and e < 0:
                raise ValueError(f"list indexes are not negative: {e}")
            if isinstance(e, str) and not e:
                raise ValueError("attribute names are not empty")
        path = cls.__new__(cls)
        path.elements = tuple(elements)
        return path

    @classmethod
    def of(cls, path: str | Path) -> Path:
        """A path given as text or as a Path."""
        return path if isinstance(path, Path) else cls(path)

    def __getitem__(self, key: str | int) -> Path:
        """``Path("a")["b"][0]`` is ``a.b[0]`` (a ``str`` key is one name, as is)."""
        return Path.literal(*self.elements, key)

    def _node(self) -> x.PathNode:
        return x.PathNode(self.elements)

    def __repr__(self) -> str:
        if all(isinstance(e, int) or not any(c in e for c in ".[]") for e in self.elements):
            return f"Path({str(self)!r})"
        return f"Path.literal({', '.join(repr(e) for e in self.elements)})"

    def __str__(self) -> str:
        return x.show_path(self.elements)

    # -- functions on a path ---------------------------------------------------

    def exists(self) -> Condition:
        """``attribute_exists(self)``"""
        return Condition(x.FnNode("attribute_exists", (self._node(),)))

    def not_exists(self) -> Condition:
        """``attribute_not_exists(self)``"""
        return Condition(x.FnNode("attribute_not_exists", (self._node(),)))

    def attribute_type(self, type_name: str) -> Condition:
        """``attribute_type(self, :t)``; ``type_name`` is one of S SS N NS B BS BOOL NULL L M."""
        if type_name not in TYPE_NAMES:
            raise ValueError(f"unknown DynamoDB type {type_name!r}; one of {', '.join(TYPE_NAMES)}")
        return Condition(x.FnNode("attribute_type", (self._node(), x.value_node(type_name))))

    def begins_with(self, prefix: str | bytes) -> Condition:
        """``begins_with(self, :prefix)``"""
        return Condition(x.FnNode("begins_with", (self._node(), operand(prefix))))

    def contains(self, member: Any) -> Condition:
        """``contains(self, :member)``: a substring, or a member of a set or list."""
        return Condition(x.FnNode("contains", (self._node(), operand(member))))

    def size(self) -> Size:
        """``size(self)``, to compare: ``Path("tags").size() > 3``."""
        return Size(self)

    # -- update operands -------------------------------------------------------

    def __add__(self, other: Any) -> Arithmetic:
        return Arithmetic("+", self, other)

    def __radd__(self, other: Any) -> Arithmetic:
        return Arithmetic("+", other, self)

    def __sub__(self, other: Any) -> Arithmetic:
        return Arithmetic("-", self, other)

    def __rsub__(self, other: Any) -> Arithmetic:
        return Arithmetic("-", other, self)


class Size(Operand):
    """``size(path)``: the length of a string, binary, set, list or map."""

    __slots__ = ("path",)

    def __init__(self, path: Path) -> None:
        self.path = path

    def _node(self) -> x.FnNode:
        return x.FnNode("size", (self.path._node(),))

    def __repr__(self) -> str:
        return f"{self.path!r}.size()"


class Function(Operand):
    """A function in an update's value: ``if_not_exists(a, :v)``, ``list_append(a, b)``.

    Built by :func:`tallydb.toolkit.update.if_not_exists` and
    :func:`tallydb.toolkit.update.list_append`; ``+``/``-`` build an
    :class:`Arithmetic`.
    """

    __slots__ = ("args", "name")

    def __init__(self, name: str, *args: Any) -> None:
        self.name = name
        self.args = args

    def _node(self) -> x.FnNode:
        return x.FnNode(self.name, tuple(operand(a) for a in self.args))

    def __repr__(self) -> str:
        return f"{self.name}({', '.join(repr(a) for a in self.args)})"

    def __add__(self, other: Any) -> Arithmetic:
        return Arithmetic("+", self, other)

    def __radd__(self, other: Any) -> Arithmetic:
        return Arithmetic("+", other, self)

    def __sub__(self, other: Any) -> Arithmetic:
        return Arithmetic("-", self, other)

    def __rsub__(self, other: Any) -> Arithmetic:
        return Arithmetic("-", other, self)


class Arithmetic:
    """``left + right`` or ``left - right``, the whole value of one SET action.

    DynamoDB allows one ``+`` or ``-`` per SET action, so an Arithmetic
    cannot be added to again.
    """

    __slots__ = ("left", "op", "right")

    def __init__(self, op: Literal["+", "-"], left: Any, right: Any) -> None:
        self.op = op
        self.left = left
        self.right = right

    def _node(self) -> x.ArithNode:
        return x.ArithNode(self.op, operand(self.left), operand(self.right))

    def __repr__(self) -> str:
        return f"({self.left!r} {self.op} {self.right!r})"

    def __add__(self, other: Any) -> Arithmetic:
        raise TypeError("DynamoDB allows one + or - per SET action")

    __sub__ = __radd__ = __rsub__ = __add__


def _precedence(op: str, other: object) -> str:
    """What ``value & condition`` most likely means: a comparison written
    without parentheses (Python binds ``&`` and ``|`` before ``==``)."""
    return (
        f"{other!r} {op} a Condition: Python applies {op} before ==, <, >, so "
        f"Path('PK') == {other!r} {op} ... reads as Path('PK') == ({other!r} {op} ...); "
        f"put each comparison in parentheses: (Path('PK') == {other!r}) {op} ..."
    )


class Condition:
    """A condition over an item, for ConditionExpression, FilterExpression
    or KeyConditionExpression. Combine with ``&`` (AND), ``|`` (OR), ``~`` (NOT).

    Conditions are immutable values: equal when they mean the same tree.
    """

    __slots__ = ("node",)

    def __init__(self, node: x.ConditionNode) -> None:
        self.node = node

    def __and__(self, other: Condition) -> Condition:
        return Condition(x.AndNode(self.node, _condition(other).node))

    def __or__(self, other: Condition) -> Condition:
        return Condition(x.OrNode(self.node, _condition(other).node))

    def __invert__(self) -> Condition:
        return Condition(x.NotNode(self.node))

    def __rand__(self, other: object) -> NoReturn:
        raise TypeError(_precedence("&", other))

    def __ror__(self, other: object) -> NoReturn:
        raise TypeError(_precedence("|", other))

    def __bool__(self) -> bool:
        raise TypeError(
            "a Condition has no truth value: it is sent to DynamoDB, not evaluated here. "
            "Combine conditions with & (and), | (or), ~ (not); Python's and/or/not "
            "and `if` cannot be used on them"
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Condition) and self.node == other.node

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        rendered = self.render()
        return f"Condition({rendered['ConditionExpression']!r})"

    def render_into(self, placeholders: x.Placeholders) -> str:
        """The expression text, its placeholders allocated in ``placeholders``."""
        return placeholders.condition(self.node).render()

    def render(self, key: str = "ConditionExpression") -> dict[str, Any]:
        """``{"ConditionExpression": ..., "ExpressionAttributeNames": ...,
        "ExpressionAttributeValues": ...}`` (``key`` may be
        ``"FilterExpression"`` or ``"KeyConditionExpression"``)."""
        placeholders = x.Placeholders()
        text = self.render_into(placeholders)
        return {key: text, **placeholders.attributes()}

    @classmethod
    def parse(
        cls,
        expression: str,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Wire] | None = None,
    ) -> Condition:
        """The Condition a ConditionExpression means, with its placeholders
        bound to ``names`` and ``values`` (wire form, as in a request)."""
        return cls(x.Resolver(names, values).condition(x.parse_condition(expression)))

    def paths(self) -> Iterable[tuple[str | int, ...]]:
        """Every document path the condition reads."""
        yield from _paths_of(self.node)


def _paths_of(node: Any) -> Iterable[tuple[str | int, ...]]:
    if isinstance(node, x.PathNode):
        yield node.elements
    elif isinstance(node, x.ValueNode):
        return
    elif isinstance(node, x.FnNode):
        for a in node.args:
            yield from _paths_of(a)
    else:
        for name in node.__slots__:
            child = getattr(node, name)
            for c in child if isinstance(child, tuple) else (child,):
                if not isinstance(c, str):
                    yield from _paths_of(c)


def _condition(value: Any) -> Condition:
    if not isinstance(value, Condition):
        raise TypeError(f"expected a Condition, got {value!r}")
    return value
