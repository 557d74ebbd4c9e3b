"""The toolkit's exceptions.

Whatever endpoint the toolkit talks to (the embedded engine, ``tallydb
serve``, Amazon DynamoDB, Alternator, moto), an error DynamoDB answers with
is raised as the *same* class the tallydb engine itself raises, from
:mod:`tallydb.engine.errors`, with DynamoDB's code and message kept as they came::

    try:
        table.update(key, u, condition=Path("stock") >= 3)
    except tallydb.ConditionalCheckFailedException as e:
        e.code()     # "ConditionalCheckFailedException"
        e.message    # "The conditional request failed"

A botocore ``ClientError`` never leaks out of the toolkit. Error codes that
:mod:`tallydb.engine.errors` does not name (a service-specific one) become a
subclass of :class:`~tallydb.engine.errors.DynamoDBError` named after the code.

On top of DynamoDB's own errors the toolkit adds a few that say what went
wrong in its terms; each subclasses the DynamoDB error it stands for where
there is one, so ``except ConditionalCheckFailedException`` still catches a
:class:`CounterLimitError`.
"""

from __future__ import annotations

import threading
from typing import Any

from tallydb.engine import errors
from tallydb.engine.errors import (
    ConditionalCheckFailedException,
    DynamoDBError,
    ResourceNotFoundException,
    TransactionCanceledException,
)

__all__ = [
    "BatchIncompleteError",
    "ConditionRefused",
    "ContentionError",
    "CounterLimitError",
    "IdempotencyKeyMismatchError",
    "ItemNotFoundError",
    "OutcomeUnknown",
    "SchemaMismatchError",
    "TableNotFoundError",
    "TallyError",
    "TransactionCancelled",
    "TransportError",
    "VersionConflictError",
    "error_from_engine",
    "error_from_response",
]


class TallyError(Exception):
    """Base of the toolkit's own errors that are not DynamoDB answers."""


class ConditionRefused(ConditionalCheckFailedException):
    """Base of the toolkit's refusals that are a failed DynamoDB condition.

    ``code()`` and ``message`` are DynamoDB's (``ConditionalCheckFailedException``,
    ``"The conditional request failed"``); ``explanation`` says what the
    condition was for, and ``str(e)`` shows both.
    """

    def __init__(
        self,
        message: str = "The conditional request failed",
        *,
        explanation: str = "",
        item: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message, item)
        self.explanation = explanation

    @classmethod
    def code(cls) -> str:
        return "ConditionalCheckFailedException"

    def __str__(self) -> str:
        if self.explanation:
            return f"{self.explanation} ({self.code()}: {self.message})"
        return self.message or ""


class CounterLimitError(ConditionRefused):
    """An ``add`` would have taken a bounded counter past its minimum or maximum.

    Raised when the conditional UpdateItem is refused: nothing was changed.
    ``attribute``, ``delta``, ``minimum`` and ``maximum`` say which limit.
    """

    def __init__(
        self,
        message: str = "The conditional request failed",
        *,
        explanation: str = "",
        attribute: str = "",
        delta: Any = None,
        minimum: Any = None,
        maximum: Any = None,
    ) -> None:
        super().__init__(message, explanation=explanation)
        self.attribute = attribute
        self.delta = delta
        self.minimum = minimum
        self.maximum = maximum


class VersionConflictError(ConditionRefused):
    """A model's version attribute no longer matches the stored item:
    someone else wrote it since it was read (optimistic locking)."""


class TableNotFoundError(ResourceNotFoundException):
    """DynamoDB's ResourceNotFoundException (same ``code()`` and ``message``),
    naming the table(s) the request was about, raised when the endpoint's
    message does not name them (a bare "Requested resource not found")."""

    def __init__(self, message: str | None, tables: list[str]) -> None:
        super().__init__(message)
        self.tables = tables

    @classmethod
    def code(cls) -> str:
        return "ResourceNotFoundException"

    def __str__(self) -> str:
        names = ", ".join(repr(t) for t in self.tables)
        what = "table" if len(self.tables) == 1 else "one of the tables"
        return f"{what} {names} does not exist (or is not ACTIVE) ({self.code()}: {self.message})"


def tables_of(request: dict[str, Any]) -> list[str]:
    """The tables a request names (TableName, RequestItems, TransactItems)."""
    if "TableName" in request:
        return [str(request["TableName"])]
    names = list(request.get("RequestItems") or ())
    for entry in request.get("TransactItems") or ():
        for action in entry.values():
            if isinstance(action, dict) and "TableName" in action:
                names.append(str(action["TableName"]))
    return list(dict.fromkeys(names))


class SchemaMismatchError(TallyError, ValueError):
    """``create_table(..., exist_ok=True)`` found the table different from
    what was asked for in a way no request can change (its keys, a local
    index, an index's keys or projection, TTL on another attribute, another
    stream view): it is not the table the code expects. The message names
    each difference."""


class BatchIncompleteError(TallyError):
    """A batch still had unprocessed requests (DynamoDB kept throttling it)
    after the toolkit's retries; ``unprocessed`` holds them (wire form).
    The rest of the batch was applied."""

    def __init__(self, message: str, unprocessed: list[Any]) -> None:
        super().__init__(message)
        self.unprocessed = unprocessed


class TransactionCancelled(TransactionCanceledException):
    """DynamoDB's TransactionCanceledException (same ``code()``, ``message``
    and ``reasons``), saying which action failed and why: ``failures`` is a
    list of ``(index, action, code, message)`` for each action DynamoDB
    gave a reason for; nothing of the transaction was applied."""

    def __init__(
        self,
        message: str | None,
        reasons: list[dict[str, Any]],
        failures: list[tuple[int, str, str, str]],
    ) -> None:
        DynamoDBError.__init__(self, message)
        self.reasons = reasons
        self.failures = failures

    @classmethod
    def code(cls) -> str:
        return "TransactionCanceledException"

    @classmethod
    def from_reasons(
        cls, error: TransactionCanceledException, actions: list[str]
    ) -> TransactionCancelled:
        reasons = list(getattr(error, "reasons", None) or [])
        failures = [
            (i, actions[i] if i < len(actions) else "?", str(r["Code"]), str(r.get("Message", "")))
            for i, r in enumerate(reasons)
            if r.get("Code") not in (None, "None")
        ]
        cancelled = cls(error.message, reasons, failures)
        cancelled.response = getattr(error, "response", None)  # type: ignore[attr-defined]
        return cancelled

    def __str__(self) -> str:
        if not self.failures:
            return f"the transaction was cancelled ({self.code()}: {self.message})"
        told = "; ".join(
            f"action {i} ({action}) failed: {code}" + (f": {message}" if message else "")
            for i, action, code, message in self.failures
        )
        return f"the transaction was cancelled, nothing was applied: {told}"


class ItemNotFoundError(TallyError, LookupError):
    """``Model.get`` found no item with that key."""


class ContentionError(TallyError):
    """A compare-and-set retry loop gave up: every attempt lost to another
    writer. Nothing was changed by the last attempt."""


class IdempotencyKeyMismatchError(TallyError):
    """An idempotency key was reused for a different change (another delta):
    the first one was applied, this one was not."""


class TransportError(TallyError):
    """The endpoint could not be reached or answered with something that is
    not DynamoDB (connection refused, timeout, a malformed reply). The
    underlying botocore error is the ``__cause__``."""


class OutcomeUnknown(TransportError):
    """A write that is not idempotent (a plain counter ``add``, an update
    that adds) was sent, and no answer came back: the connection dropped or
    timed out after the request left. It may or may not have been applied,
    and it was *not* sent again, because a second copy would count twice.

    ``operation`` and ``table`` say which request. To make such a write safe
    to retry, give it an idempotency key (``counter.add(1, idempotency_key=...)``).
    """

    def __init__(self, operation: str, table: str, reason: str) -> None:
        self.operation = operation
        self.table = table
        super().__init__(
            f"{operation} on table {table!r}: {reason}; whether it was applied is unknown. "
            "It was not sent again because it is not idempotent (a second copy would "
            "count twice). Pass idempotency_key=... to make it safe to retry."
        )


_DYNAMODB_NAMESPACE = DynamoDBError.namespace
_dynamic_lock = threading.Lock()
_dynamic: dict[str, type[DynamoDBError]] = {}


def error_class(code: str) -> type[DynamoDBError]:
    """The :mod:`tallydb.engine.errors` class for a DynamoDB error code."""
    known = getattr(errors, code, None)
    if isinstance(known, type) and issubclass(known, DynamoDBError):
        return known
    with _dynamic_lock:
        cls = _dynamic.get(code)
        if cls is None:
            name = code if code.isidentifier() else "UnknownDynamoDBError"
            cls = type(name, (DynamoDBError,), {"__module__": __name__})
            cls.code = classmethod(lambda _cls, _c=code: _c)  # type: ignore[assignment]
            _dynamic[code] = cls
        return cls


def error_from_response(response: dict[str, Any]) -> DynamoDBError:
    """The tallydb exception for a botocore error response (``ClientError.response``).

    The code and message are DynamoDB's, unchanged; a failed condition keeps
    the ``Item`` DynamoDB sent back (wire form), a cancelled transaction its
    ``CancellationReasons``.
    """
    error = response.get("Error", {})
    code = str(error.get("Code", "InternalServerError"))
    message = error.get("Message")
    if code.isdigit():  # no DynamoDB error body, only an HTTP status
        status = int(code)
        cls: type[DynamoDBError] = (
            errors.InternalServerError if status >= 500 else error_class("UnknownDynamoDBError")
        )
        message = f"HTTP {status}: {message}" if message else f"HTTP {status}"
    else:
        cls = error_class(code)
    exc = cls.__new__(cls)
    DynamoDBError.__init__(exc, message)
    if isinstance(exc, ConditionalCheckFailedException):
        exc.item = response.get("Item")
    if isinstance(exc, TransactionCanceledException):
        exc.reasons = list(response.get("CancellationReasons") or [])
    exc.response = response  # type: ignore[attr-defined]
    return exc


def error_from_engine(error: DynamoDBError) -> DynamoDBError:
    """The exception :func:`error_from_response` gives for ``error`` once it
    has travelled the wire: what the embedded engine raises, as a botocore
    client talking to it would have raised it (same class, code, message,
    ``item``/``reasons`` with Binary values as ``bytes``, and a ``response``
    shaped as botocore parses one). A fresh exception: the engine's own is
    never handed out."""
    from tallydb.toolkit.convert import python_shape

    body: dict[str, Any] = python_shape(error.to_wire())
    code = str(body.pop("__type", "")).rpartition("#")[2] or error.code()
    message = body.get("message", body.get("Message", ""))
    response: dict[str, Any] = {
        "Error": {"Message": message, "Code": code},
        "ResponseMetadata": {"HTTPStatusCode": error.status, "RetryAttempts": 0},
    }
    if error.namespace == _DYNAMODB_NAMESPACE:
        # DynamoDB's model names these errors' shapes, so botocore copies
        # their fields (message, Item, CancellationReasons) into the response;
        # the coral service's errors (ValidationException...) it does not.
        response.update(body)
    return error_from_response(response)
