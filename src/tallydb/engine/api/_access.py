"""Who may do what: the resources an operation will touch, and a caller's
access checked against them.

Every operation module declares ``ACCESS``, a function that resolves its
request into what it will read or write (``Touch``: an action in DynamoDB's
IAM words, a table, and the part of it: an index, a stream, a backup). It
reads the request as the operation itself reads it, with the same helpers:
the PartiQL statements through the parser the operation runs, a shard
iterator through its verified contents, a backup through its stored record.
The request pipeline (``run`` in ``api/__init__.py``) resolves and checks
after the request's shape is checked and before the operation runs, so no
member the operation ignores can decide anything, and nothing runs that
was not allowed.

A caller's ``Access`` may be read-only, or limited to some tables; a key
with neither is not resolved at all (nothing to decide). An operation
without ``ACCESS`` is refused to every limited key.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from tallydb.engine.errors import AccessDeniedException
from tallydb.engine.storage import Transaction

__all__ = ["ACCOUNT", "Access", "Resolver", "Touch", "bucket", "caller_sees",
           "denied_message", "named", "on_table", "touching"]

ACCOUNT = "000000000000"


@dataclass(frozen=True, slots=True)
class Touch:
    """One thing an operation will do: ``action`` (DynamoDB's IAM action:
    ``GetItem``, ``PartiQLUpdate``, ``GetRecords``) on ``table`` (None: no
    table, as ListTables), reading or writing; ``part`` is the resource under
    the table's ARN (``/index/NAME``, ``/stream/LABEL``, ``/backup/ID``)."""

    action: str
    table: str | None
    write: bool = False
    part: str = ""
    #: The ARN of a resource that is no table's (an S3 bucket an export
    #: writes or an import reads): only a key with every table may use one.
    other: str = ""

    def resource(self, region: str) -> str:
        """The resource's ARN as an AccessDeniedException names it ("*": none)."""
        if self.other:
            return self.other
        if self.table is None:
            return "*"
        return f"arn:aws:dynamodb:{region}:{ACCOUNT}:table/{self.table}{self.part}"


def bucket(action: str, name: Any, *, write: bool) -> Touch:
    """An S3 bucket an export writes or an import reads."""
    return Touch(action, None, write, other=f"arn:aws:s3:::{name}")


Resolver = Callable[[Transaction, dict[str, Any]], Iterable[Touch]]


def denied_message(caller: str, action: str, resource: str) -> str:
    """DynamoDB's AccessDeniedException message for an identity-based policy
    (``caller``: the principal's ARN)."""
    return (
        f"User: {caller} is not authorized to perform: "
        f"dynamodb:{action} on resource: {resource} because no identity-based policy "
        f"allows the dynamodb:{action} action"
    )


@dataclass(slots=True)
class Access:
    """What the caller of one request may do, and (``touched``) what the
    pipeline resolved the request to touch.

    ``key`` is the access key id that signed the request; ``region`` the one
    it was signed for. ``record``: resolve even when nothing is limited, so
    that ``touched`` can be reported (the access log). ``principal``: the
    ARN the key's requests are made as (resource policies name it), by
    default the key's user, ``arn:aws:iam::000000000000:user/KEY``.
    """

    key: str | None
    region: str = "us-east-1"
    read_only: bool = False
    tables: frozenset[str] | None = None  # None: every table
    record: bool = False
    touched: tuple[Touch, ...] = ()
    principal: str | None = None

    @property
    def caller(self) -> str:
        """The ARN this caller's requests are made as."""
        return self.principal or f"arn:aws:iam::{ACCOUNT}:user/{self.key or 'anonymous'}"

    @property
    def limited(self) -> bool:
        return self.read_only or self.tables is not None

    def visible(self, table: str) -> bool:
        """Whether a listing shows this table (or its streams and backups)."""
        return self.tables is None or table in self.tables

    def allows(self, touch: Touch) -> bool:
        if touch.write and self.read_only:
            return False
        if touch.other:
            return self.tables is None
        return touch.table is None or self.tables is None or touch.table in self.tables

    def check(self, touches: Iterable[Touch]) -> None:
        """AccessDeniedException for the first touch this caller may not make."""
        for touch in touches:
            if not self.allows(touch):
                raise AccessDeniedException(
                    denied_message(self.caller, touch.action,
                                   touch.resource(self.region)))


def refused(action: str) -> tuple[Touch, ...]:
    """What an operation that declares no ACCESS touches, for a limited
    key: a resource no policy can name, written."""
    return (Touch(action, "*", write=True),)


# --- what an operation's list shows ------------------------------------------------------

_CALLER: ContextVar[Access | None] = ContextVar("tallydb_caller", default=None)


def caller_sees(table: str) -> bool:
    """Whether the running operation's caller may see ``table`` (ListTables,
    ListStreams and ListBackups show only those)."""
    access = _CALLER.get()
    return access is None or access.visible(table)


def touching(access: Access) -> Any:
    """Make ``access`` the running operation's caller (a context variable
    token, for ``_CALLER.reset``)."""
    return _CALLER.set(access)


def done(token: Any) -> None:
    _CALLER.reset(token)


# --- declarations the operations share ---------------------------------------------------


def named(name: Any) -> str | None:
    """A table named by an item operation, as ``get_table`` reads it."""
    return name if isinstance(name, str) else None


def on_table(action: str, *, write: bool, read: Callable[[Any], str | None] = named,
             index: bool = False, member: str = "TableName", outside: str = "") -> Resolver:
    """``ACCESS`` of an operation on the one table its ``TableName`` (or
    ``member``) names, read by ``read``, the function the operation reads it
    with; with ``index`` on the index its ``IndexName`` names; with
    ``outside``, also writing the resource no table's (a Kinesis stream)
    whose ARN that member holds."""
    def resolve(txn: Transaction, request: dict[str, Any]) -> tuple[Touch, ...]:
        table = read(request.get(member))
        part = ""
        if index and isinstance(request.get("IndexName"), str):
            part = f"/index/{request['IndexName']}"
        touch = Touch(action, table if table is not None else "*", write, part)
        if not outside:
            return (touch,)
        return (touch, Touch(action, None, write, other=str(request.get(outside))))
    return resolve


def on_nothing(action: str) -> Resolver:
    """``ACCESS`` of an operation that touches no table (DescribeLimits)."""
    touches = (Touch(action, None),)

    def resolve(txn: Transaction, request: dict[str, Any]) -> tuple[Touch, ...]:
        return touches
    return resolve
