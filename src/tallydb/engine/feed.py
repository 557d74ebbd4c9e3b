"""The change feed: every committed item change, in commit order.

The write path records each item change on the open transaction as a
``Change`` (in ``api/_indexes.write_item``, which every writer goes
through: PutItem, UpdateItem, DeleteItem, batches, transactions, the TTL
sweep) only while the feed has listeners (``record``); the engine publishes
a transaction's changes after its COMMIT returns and before the next
transaction starts, so listeners see changes in commit order and never one
that rolled back. A change that leaves the item as it was is not a change.
A run of writes to one item, one after another within one stretch of a
transaction (``Transaction.segment``: no savepoint began or ended in
between), that leaves the item in place is recorded as one change: the
image before the run's first write, the image after its last, and how
many writes it was (``writes``); a hot counter's batch of increments is
one change of that many ``writes``, and the write path holds one image pair
for it instead of one for each write. With no listener, the write path
pays one attribute test per transaction.

The feed lives below the server, so the embedded engine has it too; the web
console's live view and its hot-keys sketch are listeners. Listeners run on
the committing thread, holding the writer: they must be quick, must not
block, and must not change the images they are given (the same dicts are in
the responses).

A leaf module: it imports nothing of tallydb.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any, Final, NamedTuple, Protocol

Item = dict[str, Any]

log: Final = logging.getLogger("tallydb.engine.feed")

INSERT: Final = "INSERT"
MODIFY: Final = "MODIFY"
REMOVE: Final = "REMOVE"


class Table(Protocol):
    """What a change names its table by: the catalog's record of it."""

    @property
    def name(self) -> str: ...
    @property
    def description(self) -> dict[str, Any]: ...


class Change(NamedTuple):
    """One item's committed change: its table's record, its key as storage
    encodes it (``hk``/``rk``: bytes that identify the item within its
    table, cheaply hashed), its images (``old``/``new``; None: absent), and
    how many writes made it (``writes``: more than one for a run of writes
    that left the item in place, ``old`` before the first, ``new`` after
    the last).

    Built from the journal the write path fills as it writes (``record``),
    one per change once its transaction has committed; the rest is derived
    on demand."""

    record: Table
    hk: bytes
    rk: bytes
    old: Item | None
    new: Item | None
    writes: int = 1

    @property
    def table(self) -> str:
        return self.record.name

    @property
    def keys(self) -> Item:
        """The item's primary key, as DynamoDB JSON."""
        image = self.new if self.new is not None else self.old
        assert image is not None
        return {key["AttributeName"]: image[key["AttributeName"]]
                for key in self.record.description["KeySchema"]}

    @property
    def event(self) -> str:
        """DynamoDB Streams' eventName for this change."""
        if self.old is None:
            return INSERT
        return REMOVE if self.new is None else MODIFY


#: The segment the last change recorded (by any store) was recorded in:
#: segments are unique in the process, so a change recorded in the same
#: segment is the last one of the same transaction's journal.
_last_segment: Final = [0]


def record(journal: list[Any], segment: int, table: Table, hk: bytes, rk: bytes,
           old: Item | None, new: Item | None) -> None:
    """Record one item write on a transaction's ``journal``, in ``segment``
    (``Transaction.segment``): a write to the item the last change was
    recorded for, in the same segment, both leaving the item in place, joins
    that change (the journal holds no image of the writes in between);
    any other is a change of its own. A savepoint's rollback drops the
    journal's changes from its start, none of which began in an earlier
    segment, so a change never holds a write that rolled back.

    The journal holds each change as a list of ``Change``'s fields, which a
    write that joins it updates in place (no new object a write);
    ``changes_of`` makes them ``Change``s once the transaction has committed."""
    if _last_segment[0] == segment and new is not None and journal:
        last = journal[-1]
        if ((last[1] is hk or last[1] == hk) and (last[2] is rk or last[2] == rk)
                and last[0] is table and last[4] is not None):
            last[4] = new
            last[5] += 1
            return
    _last_segment[0] = segment
    journal.append([table, hk, rk, old, new, 1])


#: ``Change(...)`` without its Python-level ``__new__``.
_new_change: Final = tuple.__new__


def changes_of(journal: list[Any]) -> list[Change]:
    """A committed transaction's journal (``record``) as its changes."""
    return [_new_change(Change, fields) for fields in journal]


#: Called with the sequence number of the first change and a committed
#: transaction's changes (the i-th numbered ``first + i``).
Listener = Callable[[int, Sequence[Change]], None]


class ChangeFeed:
    """Listeners of committed changes; ``on_listening`` is told when the
    first listener arrives (True) and the last one leaves (False), so the
    write path records changes only while someone listens."""

    def __init__(self, on_listening: Callable[[bool], None] | None = None) -> None:
        self._listeners: tuple[Listener, ...] = ()
        self._lock = threading.Lock()
        self._on_listening = on_listening
        #: The sequence number of the last change published.
        self.seq = 0

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` with each committed transaction's changes from
        now on; returns the function that stops it."""
        with self._lock:
            was = bool(self._listeners)
            self._listeners = (*self._listeners, listener)
            if not was and self._on_listening is not None:
                self._on_listening(True)

        def unsubscribe() -> None:
            with self._lock:
                listeners = list(self._listeners)
                if listener in listeners:
                    listeners.remove(listener)
                    self._listeners = tuple(listeners)
                    if not listeners and self._on_listening is not None:
                        self._on_listening(False)

        return unsubscribe

    def skip(self) -> None:
        """Leave a gap in the numbers: changes were made that nobody saw."""
        self.seq += 1

    def publish(self, journal: list[Any]) -> None:
        """Number one transaction's changes (its journal, as ``record``
        kept it; in commit order: the caller holds the writer) and hand them
        to every listener. A listener that raises is logged and does not
        stop the others (the write committed)."""
        changes = changes_of(journal)
        first = self.seq + 1
        self.seq += len(changes)
        for listener in self._listeners:
            try:
                listener(first, changes)
            except Exception:
                log.exception("a change-feed listener failed")
