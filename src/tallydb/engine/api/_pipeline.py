"""The steps of one request, in DynamoDB's order: the one place that decides
what is checked before a table is looked up.

An operation module defines ``<operation>(txn, request)``, or, when it has
checks that need no table, ``validate(request)`` and
``<operation>(txn, request, checked)`` with what ``validate`` returned.
:func:`steps_of` reads a module into its :class:`Steps`; ``api.run`` takes
them in order, and :func:`direct` joins them for a caller that runs an
operation on a request it built (PartiQL's statements).
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any, NamedTuple

from tallydb.engine.storage import Transaction

__all__ = ["Steps", "direct", "steps_of"]

Request = dict[str, Any]
Response = dict[str, Any]
Operation = Callable[[Transaction, Request], Response]


class Steps(NamedTuple):
    """An operation's table-free checks (None: it has none) and the rest of
    it, which looks up what the request names and does the work."""

    validate: Callable[[Request], Any] | None
    execute: Callable[..., Response]


def steps_of(module: ModuleType, name: str) -> Steps:
    """The steps of the operation module ``module`` (its handler ``name``)."""
    return Steps(getattr(module, "validate", None), getattr(module, name))


def direct(steps: Steps) -> Operation:
    """One callable running both steps (the request's shape is the caller's)."""
    validate, execute = steps
    if validate is None:
        return execute

    def operation(txn: Transaction, request: Request) -> Response:
        return execute(txn, request, validate(request))
    return operation
