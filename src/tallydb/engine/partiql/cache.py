"""The plan cache: what a statement's text parsed and planned into, kept for
the next request of the same statement, so that a hit neither parses nor
plans it again.

A statement's text maps to its parse, which depends on nothing else, and,
by how it is run (alone, in a batch, in a transaction) and the types of the
parameters sent with it, to its plans. A plan also depends on what it was
made against (the table's key schema, its indexes): it is kept with that
``scope``, an object its user replaces whenever any of it changes (the
table's catalog record), and is used only while the scope is the very same
object, so no plan outlives a DeleteTable and CreateTable of its table, or
any change to it.

The cache keeps at most ``statements`` statements and ``chars`` characters
of their texts, and ``PLANS_PER_STATEMENT`` plans for each way of running
each; beyond, the oldest statement is forgotten first (a plain bound: a
statement sent again costs one parse and one plan).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from tallydb.engine.partiql import ast
from tallydb.engine.partiql.plan import Planned

#: Plans kept for one statement (one per set of parameter types and scope).
PLANS_PER_STATEMENT = 8

#: A parameter's type, as its AttributeValue names it ("S", "N", "L"...).
Kinds = tuple[str, ...]


@dataclass(slots=True)
class CachedPlan:
    """One plan of a statement, for parameters of some types, made against
    ``scope`` (valid only while its user finds that very object again)."""

    scope: Any
    template: Planned | None  # None: planned with the parameters' values each time
    #: Whether a request of it has passed every check its user makes on the
    #: plan (``template`` filled): for a statement without parameters, the
    #: next one would pass them alike while the scope holds.
    passed: bool = False
    #: What the statement's runner worked out from the planned request once
    #: and may use again while the scope holds (an UpdateItem's checked
    #: request, for a statement without parameters); None until then.
    decided: Any = None


@dataclass(slots=True)
class CachedStatement:
    """A statement's text parsed, and its plans: one dict for each way of
    running it (``MODES``), by the types of the parameters sent with it."""

    statement: ast.Statement
    count: int  # its ``?`` parameters
    plans: tuple[dict[Kinds, CachedPlan], ...] = field(
        default_factory=lambda: tuple({} for _ in range(MODES)))


#: The ways a statement is run, each planned apart (``mode`` from 0).
MODES = 4


class PlanCache(dict[str, CachedStatement]):
    """Statements by text (a dict: a lookup is ``get``), bounded."""

    def __init__(self, statements: int, chars: int) -> None:
        super().__init__()
        self.statements = statements
        self.chars = chars
        self._chars = 0
        self._lock = threading.Lock()  # (lookups need none: a dict's get is atomic)

    def add(self, text: str, statement: ast.Statement, count: int) -> CachedStatement:
        """Keep a statement just parsed, forgetting the oldest beyond the bounds."""
        cached = CachedStatement(statement, count)
        with self._lock:
            if self.pop(text, None) is not None:
                self._chars -= len(text)
            while self and (len(self) >= self.statements
                            or self._chars + len(text) > self.chars):
                oldest = next(iter(self))
                del self[oldest]
                self._chars -= len(oldest)
            self[text] = cached
            self._chars += len(text)
        return cached

    @staticmethod
    def keep_plan(cached: CachedStatement, mode: int, kinds: Kinds, plan: CachedPlan) -> None:
        """Keep a plan of ``cached`` run in ``mode`` for parameters of
        ``kinds``, in place of the one before (a stale scope's), their
        number bounded."""
        plans = cached.plans[mode]
        if kinds not in plans and len(plans) >= PLANS_PER_STATEMENT:
            plans.clear()
        plans[kinds] = plan

    @property
    def text_chars(self) -> int:
        """The characters of the texts kept."""
        return self._chars
