"""The update builder: an UpdateExpression built in Python.

::

    from tallydb import Update, Path, if_not_exists, list_append

    u = (Update()
         .add("play_count", 1)                          # ADD play_count :v
         .set("last_played", "2026-11-21")              # SET last_played = :v
         .set("views", if_not_exists("views", 0) + 1)   # SET views = if_not_exists(views, :a) + :b
         .set("stats.daily[3]", Path("stats.total"))    # nested paths; a Path value is read
         .set(Path.literal("a.b"), 1)                   # an attribute named "a.b"
         .set("log", list_append("log", ["played"]))    # append to a list
         .remove("draft")                               # REMOVE draft
         .delete("tags", {"old"}))                      # DELETE tags :v (from a set)
    u.render()  # {"UpdateExpression": ..., "ExpressionAttributeNames": ...,
                #  "ExpressionAttributeValues": ...}

Values are plain Python values (see :mod:`tallydb.toolkit.convert`); a ``str`` where
a *path* is expected (the first argument of every method, the first of
``if_not_exists``, either of ``list_append``) is parsed as a document path
(``"a.b[2]"``), as ``Path("a.b[2]")`` would; ``Path.literal("a.b")`` is one
attribute named ``a.b``. To use an attribute's value
on the right of ``set``, pass a ``Path``: ``.set("a", Path("b") + 1)``.

An Update is an immutable value: every method returns a new Update, equal
updates compare equal, and :meth:`Update.parse` gives back an equal Update
from its rendered form. Clauses are written in the order each was first
used; placeholders are allocated when rendering, one per name (``#name``,
or ``#n0`` for names that are not plain identifiers) and one per value
(``:v0``), never colliding with each other or with a hand-written
condition sent alongside, so reserved words never need escaping by hand.

Paths that overlap (``a`` and ``a.b``, or ``a`` twice) or conflict (``a.b``
and ``a[0]``) are refused before anything is sent, with DynamoDB's own
:class:`~tallydb.engine.errors.ValidationException` message.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tallydb.toolkit import _expr as x
from tallydb.toolkit.conditions import Arithmetic, Function, Operand, Path
from tallydb.toolkit.convert import Wire

__all__ = ["Update", "if_not_exists", "list_append"]


def _path(path: str | Path) -> x.PathNode:
    return Path.of(path)._node()


def _path_or_value(value: Any) -> Any:
    """For list_append: a ``str`` names a path (a list value is never a str)."""
    return Path(value) if isinstance(value, str) else value


def if_not_exists(path: str | Path, default: Any) -> Function:
    """``if_not_exists(path, :default)``: the attribute if it exists, else ``default``.

    ``Update().set("n", if_not_exists("n", 0) + 1)`` counts from 0.
    """
    return Function("if_not_exists", Path.of(path), default)


def list_append(first: Any, second: Any) -> Function:
    """``list_append(first, second)``: the two lists joined.

    Each argument is a path (``str`` or ``Path``) or a Python list:
    ``list_append("log", ["new"])`` appends, ``list_append(["new"], "log")``
    prepends.
    """
    return Function("list_append", _path_or_value(first), _path_or_value(second))


def _accumulates(value: x.SetValueNode) -> bool:
    """A SET value that builds on what is stored (``n + 1``, ``list_append``)."""
    if isinstance(value, x.ArithNode):
        return True
    return isinstance(value, x.FnNode) and (
        value.name == "list_append" or any(_accumulates(a) for a in value.args)
    )


def _set_value(value: Any) -> x.SetValueNode:
    if isinstance(value, Arithmetic):
        return value._node()
    if isinstance(value, Operand):
        return value._node()
    return x.value_node(value)


class Update:
    """An UpdateExpression: SET, REMOVE, ADD and DELETE actions.

    Build it with :meth:`set`, :meth:`add`, :meth:`remove`, :meth:`delete`
    (each returns a new Update), combine two with :meth:`merge`, send it with
    ``table.update(key, update)`` or look at it with :meth:`render`.
    """

    __slots__ = ("_actions",)

    def __init__(self, actions: tuple[x.ActionNode, ...] = ()) -> None:
        self._actions = actions

    # -- building --------------------------------------------------------------

    def _with(self, *actions: x.ActionNode) -> Update:
        return Update(self._actions + actions)

    def set(self, path: str | Path, value: Any) -> Update:
        """``SET path = value``. ``value`` is a Python value, a ``Path``, or
        built with :func:`if_not_exists`, :func:`list_append`, ``+``, ``-``."""
        return self._with(x.SetNode(_path(path), _set_value(value)))

    def set_default(self, path: str | Path, value: Any) -> Update:
        """``SET path = if_not_exists(path, value)``: set it unless it is set."""
        return self.set(path, if_not_exists(path, value))

    def add(self, path: str | Path, value: Any) -> Update:
        """``ADD path value``: add a number (a missing attribute counts as 0)
        or add members to a set."""
        return self._with(x.AddNode(_path(path), x.value_node(value)))

    def remove(self, *paths: str | Path) -> Update:
        """``REMOVE path, ...``: delete attributes (or list elements, map keys)."""
        return self._with(*(x.RemoveNode(_path(p)) for p in paths))

    def delete(self, path: str | Path, members: Any) -> Update:
        """``DELETE path :members``: remove ``members`` (a set) from a set attribute."""
        return self._with(x.DeleteNode(_path(path), x.value_node(members)))

    def merge(self, *others: Update) -> Update:
        """This update's actions followed by the others'. Overlapping paths
        are refused at once, with DynamoDB's message."""
        merged = Update(self._actions + tuple(a for o in others for a in o._actions))
        merged.check()
        return merged

    # -- looking at it ---------------------------------------------------------

    def clauses(self) -> tuple[tuple[x.Keyword, tuple[x.ActionNode, ...]], ...]:
        """The actions grouped by clause, clauses in order of first use."""
        groups: dict[x.Keyword, list[x.ActionNode]] = {}
        for action in self._actions:
            groups.setdefault(x.KEYWORD[type(action)], []).append(action)
        return tuple((kw, tuple(acts)) for kw, acts in groups.items())

    def actions(self) -> tuple[x.ActionNode, ...]:
        """Every action in the order it is written in the expression."""
        return tuple(a for _, acts in self.clauses() for a in acts)

    def paths(self) -> Iterator[tuple[str | int, ...]]:
        """The path each action writes, in written order."""
        for action in self.actions():
            yield action.path.elements

    def idempotent(self) -> bool:
        """Whether applying this update twice leaves the item as applying it
        once does: no ``ADD`` of a number, no ``+``/``-``, no ``list_append``.
        A write that is not is never re-sent by the toolkit (see
        :class:`~tallydb.toolkit.exceptions.OutcomeUnknown`)."""
        for action in self._actions:
            if isinstance(action, x.AddNode) and "N" in action.value.wire:
                return False
            if isinstance(action, x.SetNode) and _accumulates(action.value):
                return False
        return True

    def check(self) -> None:
        """Raise DynamoDB's ValidationException if two paths overlap or conflict."""
        x.check_paths(self.paths())

    def __bool__(self) -> bool:
        return bool(self._actions)

    def __len__(self) -> int:
        return len(self._actions)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Update) and self.clauses() == other.clauses()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        if not self._actions:
            return "Update()"
        return f"Update({self.render()['UpdateExpression']!r})"

    # -- rendering -------------------------------------------------------------

    def render_into(self, placeholders: x.Placeholders) -> str:
        """The UpdateExpression text, placeholders allocated in ``placeholders``
        (shared with the condition of the same request)."""
        if not self._actions:
            raise ValueError("an empty Update: add at least one action")
        self.check()
        return placeholders.update(self.clauses()).render()

    def render(self) -> dict[str, Any]:
        """``{"UpdateExpression": ..., "ExpressionAttributeNames": ...,
        "ExpressionAttributeValues": ...}``, ready to pass to UpdateItem."""
        placeholders = x.Placeholders()
        text = self.render_into(placeholders)
        return {"UpdateExpression": text, **placeholders.attributes()}

    @classmethod
    def parse(
        cls,
        expression: str,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Wire] | None = None,
    ) -> Update:
        """The Update an UpdateExpression means, parsed by tallydb's own
        parser (the server's), placeholders bound to ``names`` and ``values``
        (wire form, as in a request). For every Update ``u``::

            r = u.render()
            Update.parse(r["UpdateExpression"], r.get("ExpressionAttributeNames"),
                         r.get("ExpressionAttributeValues")) == u
        """
        tree = x.parse_update(expression)
        resolver = x.Resolver(names, values)
        return cls(tuple(resolver.action(a) for a in tree.actions()))
