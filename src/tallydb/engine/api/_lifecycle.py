"""DynamoDB's table lifecycle, when asked for: CREATING, UPDATING and DELETING
last a set time (``serve --table-delays CREATE,DELETE,UPDATE``, in
milliseconds, as dynalite's ``--createTableMs``); off by default, when a
table is ACTIVE as soon as CreateTable answers and gone as soon as
DeleteTable answers.

With delays, CreateTable, UpdateTable and DeleteTable put the table in its
state until a deadline (``_Pending`` in its description, so a restart keeps
it): DescribeTable and ListTables show it; the item operations answer
ResourceNotFoundException for a table CREATING or DELETING (DynamoDB's, as
architect/dynalite reproduces it: its item operations look a table up "with
its status checked"); DeleteTable and UpdateTable of a table CREATING or
UPDATING are ResourceInUseException (DeleteTable's API reference: "If table
is in CREATING or UPDATING states, then DynamoDB returns a
ResourceInUseException"), worded as dynalite words them; DeleteTable of a
table DELETING answers again without error (the same reference: "If table is
already in the DELETING state, no error is returned"). A table DELETING
past its deadline is gone: every lookup skips it, and the TTL sweeper's
loop (``_streams.settle``, or a CreateTable of its name) deletes it for
good. Its items stop
being readable when DeleteTable answers.
"""

from __future__ import annotations

import time
from typing import Any, NamedTuple

from tallydb.engine.errors import ResourceInUseException
from tallydb.engine.storage import TableRecord, Transaction

__all__ = ["PENDING", "TableDelays", "begin", "check_changeable", "gone", "status_of"]

PENDING = "_Pending"
CREATING, UPDATING, DELETING = "CREATING", "UPDATING", "DELETING"
#: DeleteTable's and UpdateTable's refusal of a table still changing (dynalite).
IN_USE = "Attempt to change a resource which is still in use: Table is being {}: {}"
_WORDS = {CREATING: "created", UPDATING: "updated", DELETING: "deleted"}


class TableDelays(NamedTuple):
    """How long (seconds) a table stays CREATING, DELETING and UPDATING."""

    create: float
    delete: float
    update: float

    @classmethod
    def parse(cls, text: str) -> TableDelays:
        """``CREATE,DELETE,UPDATE`` in milliseconds (each 0 or more)."""
        parts = text.split(",")
        if len(parts) != 3:
            raise ValueError("three delays, CREATE,DELETE,UPDATE in milliseconds")
        values = [float(part) for part in parts]
        if any(value < 0 or value != value for value in values):
            raise ValueError("a delay is 0 milliseconds or more")
        create, delete, update = (value / 1000 for value in values)
        return cls(create, delete, update)


def begin(txn: Transaction, description: dict[str, Any], status: str, now: float) -> bool:
    """Put a table about to be stored in ``status`` until its deadline, when
    the engine has delays; whether it has one."""
    delays: TableDelays | None = txn.table_delays
    if delays is None:
        return False
    delay = {CREATING: delays.create, UPDATING: delays.update, DELETING: delays.delete}[status]
    if delay <= 0:
        description.pop(PENDING, None)
        return False
    description[PENDING] = {"TableStatus": status, "until": now + delay}
    return True


def status_of(description: dict[str, Any], now: float | None = None) -> str | None:
    """The state a table is in until its deadline, or None (ACTIVE, or gone
    once DELETING has passed: see :func:`gone`)."""
    pending = description.get(PENDING)
    if pending is None:
        return None
    if (time.time() if now is None else now) >= pending["until"]:
        return None
    return str(pending["TableStatus"])


def gone(description: dict[str, Any], now: float | None = None) -> bool:
    """Whether a table was DELETING and its deadline has passed."""
    pending = description.get(PENDING)
    return (pending is not None and pending["TableStatus"] == DELETING
            and (time.time() if now is None else now) >= pending["until"])


def check_changeable(record: TableRecord, *, deleting_too: bool = False) -> None:
    """ResourceInUseException for a table still CREATING or UPDATING (or,
    for UpdateTable, DELETING)."""
    status = status_of(record.description)
    if status in (CREATING, UPDATING) or (deleting_too and status == DELETING):
        raise ResourceInUseException(IN_USE.format(_WORDS[status], record.name))
