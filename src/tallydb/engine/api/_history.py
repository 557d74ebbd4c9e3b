"""Point-in-time recovery's history: what each item was before it changed,
kept so that a table can be rebuilt as it was at any second of its window.

While a table's point-in-time recovery is on (``PITR`` in its description),
``write_item`` calls :func:`record` for every change. The history is an
items table of the table's own (``HISTORY_SOURCE``) with one row per item
and per second in which that item changed: keyed by the second (hk, 8
bytes big-endian) and the item's key (rk: the length of the item's hk in 2
bytes, its hk, its rk), holding the item as it was when that second began,
before its first change in it (its JSON, ``null`` for an item that did not
exist). The row is written in the same transaction as the change, so it
commits in the same item-log append: exactly as durable as the write.

The table as it was when second ``P`` began is then the table as it is now,
with every item that changed at or after ``P`` put back to what its first
row at or after ``P`` holds (:func:`as_of`, :func:`items_at`). The items
that changed between two seconds, with what they were at each, come from the
rows between them and the first rows after (:func:`changes_between`): an
incremental export reads that. Restoring costs the changes since ``P``, not
the table's history.

One row per item and second, not per change: a hot counter changed
thousands of times a second keeps one row a second, and its writes cost one
set lookup each. Restores are to the second, DynamoDB's granularity. Seconds
come from the sequence clock (``_stream_records``), which never goes back
and is raised at start past every second stored (:func:`recover`).

Rows older than the recovery period are trimmed by the TTL sweeper's loop
(:func:`trim`), a bounded number at a time, as stream records are.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import orjson

from tallydb.engine.api._stream_records import now_ns, raise_clock
from tallydb.engine.storage import TableRecord, Transaction
from tallydb.engine.values import Item

__all__ = [
    "HISTORY_SOURCE", "PITR", "as_of", "changes_between", "disable", "earliest", "enable",
    "items_at", "latest", "record", "recover", "set_period", "stored_as_of", "trim",
]

#: The storage name of a table's history (``$`` takes no user index name).
HISTORY_SOURCE = "$history"
#: In a description while point-in-time recovery is on: {"Enabled": epoch
#: seconds, "Since": the first whole second restorable, "RecoveryPeriodInDays": n}.
PITR = "_PointInTimeRecovery"
DAY = 86_400
_NS = 1_000_000_000
_NULL = b"null"

Key = tuple[bytes, bytes]


def _second(second: int) -> bytes:
    return second.to_bytes(8, "big")


def _row_key(hk: bytes, rk: bytes) -> bytes:
    return len(hk).to_bytes(2, "big") + hk + rk


def _item_key(row_rk: bytes) -> Key:
    length = int.from_bytes(row_rk[:2], "big")
    return row_rk[2:2 + length], row_rk[2 + length:]


# --- recording ------------------------------------------------------------------------


class _Recorder:
    """The items of one table already given a row in the current second.

    ``complete``: no item outside ``keys`` has a row for this second. It
    stops being so when a rollback may have taken away a row this set
    remembers (the store counts rollbacks), and in the first second after
    a start, which may hold rows of the life before; items outside ``keys``
    are then looked up. ``start``/``until``: the second in ns, so that a
    change within it is known by one comparison."""

    __slots__ = ("complete", "enabled", "keys", "rollbacks", "second", "start", "until")

    def __init__(self, enabled: float) -> None:
        self.enabled = enabled
        self.second = -1
        self.start = self.until = 0
        self.keys: set[Key] = set()
        self.complete = True
        self.rollbacks = -1


_recorders: dict[int, _Recorder] = {}
#: The last second the history holds rows of, at start (``recover``).
_stored_until = -1


def record(txn: Transaction, table: TableRecord, pitr: dict[str, Any], hk: bytes, rk: bytes,
           old: Item | None) -> None:
    """Keep what an item was before its change (``old``; None: it did not
    exist), once per second it changes in."""
    recorder = _recorders.get(table.id)
    now = now_ns()
    rollbacks = txn.rollbacks
    if (recorder is None or not recorder.start <= now < recorder.until
            or recorder.rollbacks != rollbacks or recorder.enabled != pitr["Enabled"]):
        recorder = _turn(table, pitr, rollbacks)
    key = (hk, rk)
    keys = recorder.keys
    if key in keys:
        return
    keys.add(key)
    row_hk, row_rk = _second(recorder.second), _row_key(hk, rk)
    if not recorder.complete and txn.get_entry_blob(table, HISTORY_SOURCE, row_hk, row_rk
                                                    ) is not None:
        return
    txn.put_entry_encoded(table, HISTORY_SOURCE, row_hk, row_rk,
                          _NULL if old is None else orjson.dumps(old))


def _turn(table: TableRecord, pitr: dict[str, Any], rollbacks: int) -> _Recorder:
    """The table's recorder, brought to the clock's current second (a new
    set of keys), or told of a rollback (a set that may be wrong)."""
    recorder = _recorders.get(table.id)
    if recorder is None or recorder.enabled != pitr["Enabled"]:
        if len(_recorders) > 1024:
            _recorders.clear()
        recorder = _recorders[table.id] = _Recorder(pitr["Enabled"])
    second = now_ns() // _NS  # (the sequence clock: never behind a second used before)
    if recorder.second != second:
        recorder.second = second
        recorder.start, recorder.until = second * _NS, (second + 1) * _NS
        recorder.keys = set()
        recorder.complete = second > _stored_until
    elif recorder.rollbacks != rollbacks:
        recorder.keys = set()
        recorder.complete = False
    recorder.rollbacks = rollbacks
    return recorder


# --- switching ---------------------------------------------------------------------------


def enable(txn: Transaction, table: TableRecord, days: int) -> TableRecord:
    """Turn point-in-time recovery on (with an empty history); the new record."""
    enabled = now_ns() / _NS
    description = {**table.description, PITR: {
        "Enabled": enabled, "Since": math.ceil(enabled), "RecoveryPeriodInDays": days}}
    table = table.with_description(description)
    txn.update_table(table)
    if HISTORY_SOURCE in table.indexes:  # (one left by an older version of tallydb)
        table = txn.drop_index(table, HISTORY_SOURCE)
    return txn.create_index(table, HISTORY_SOURCE)


def set_period(txn: Transaction, table: TableRecord, days: int) -> TableRecord:
    """A new recovery period for a table whose recovery is on. A longer one
    reaches back no further than the history kept under the shorter one."""
    pitr = dict(table.description[PITR])
    if pitr["RecoveryPeriodInDays"] == days:
        return table
    pitr["Since"] = max(pitr["Since"], math.ceil(now_ns() / _NS
                                                 - pitr["RecoveryPeriodInDays"] * DAY))
    pitr["RecoveryPeriodInDays"] = days
    table = table.with_description({**table.description, PITR: pitr})
    txn.update_table(table)
    return table


def disable(txn: Transaction, table: TableRecord) -> TableRecord:
    """Turn point-in-time recovery off: its history goes (as DynamoDB's does)."""
    description = {k: v for k, v in table.description.items() if k != PITR}
    table = table.with_description(description)
    txn.update_table(table)
    if HISTORY_SOURCE in table.indexes:
        table = txn.drop_index(table, HISTORY_SOURCE)
    return table


# --- the window ---------------------------------------------------------------------------


def latest() -> float:
    """LatestRestorableDateTime: now (every acknowledged write is in the history)."""
    return now_ns() / _NS


def earliest(pitr: dict[str, Any], now: float) -> int:
    """EarliestRestorableDateTime: the first whole second both in the
    recovery period and in the history kept."""
    days: int = pitr["RecoveryPeriodInDays"]
    return max(int(pitr["Since"]), math.ceil(now - days * DAY))


# --- reading -------------------------------------------------------------------------------


def _rows_from(txn: Transaction, table: TableRecord, second: int, decode: bool = True
               ) -> Iterator[tuple[int, Key, Any]]:
    """(second, item key, what the item was) of the history's rows from
    ``second`` on, oldest first; with ``decode`` false, the item's JSON
    (``null``: it did not exist)."""
    for row_hk, row_rk, item in txn.items(table, index=HISTORY_SOURCE,
                                          after=(_second(second), b""), decode=decode):
        yield int.from_bytes(row_hk, "big"), _item_key(row_rk), item


def as_of(txn: Transaction, table: TableRecord, second: int) -> dict[Key, Item | None]:
    """What each item that changed at or after ``second`` was when that
    second began (None: it did not exist), by key; every other item is now
    as it was then."""
    then: dict[Key, Item | None] = {}
    for _, key, item in _rows_from(txn, table, second):
        if key not in then:
            then[key] = item
    return then


def stored_as_of(txn: Transaction, table: TableRecord, second: int) -> dict[Key, bytes | None]:
    """``as_of`` with each item as its JSON, as the table stores it (None:
    it did not exist); the first row of each item is picked inside SQLite."""
    then: dict[Key, bytes | None] = {}
    for row_rk, _, blob in txn.first_rows(table, HISTORY_SOURCE, _second(second)):
        then[_item_key(row_rk)] = None if blob == _NULL else bytes(blob)
    return then


def items_at(txn: Transaction, table: TableRecord, second: int
             ) -> Iterator[tuple[bytes, bytes, Item]]:
    """(hk, rk, item) of every item of the table as it was when ``second``
    began: those unchanged since in key order, then those changed since."""
    then = as_of(txn, table, second)
    for hk, rk, item in txn.items(table):
        if (hk, rk) not in then:
            yield hk, rk, item
    for (hk, rk), was in then.items():
        if was is not None:
            yield hk, rk, was


def changes_between(txn: Transaction, table: TableRecord, start: int, end: int
                    ) -> Iterator[tuple[bytes, bytes, Item | None, Item | None]]:
    """(hk, rk, what it was when ``start`` began, what it was when ``end``
    began) of every item changed in between (an image is None where the
    item did not exist), in the order of their first change; an item changed
    and changed back is included."""
    before: dict[Key, Item | None] = {}
    after: dict[Key, Item | None] = {}
    for second, key, item in _rows_from(txn, table, start):
        if second < end:
            before.setdefault(key, item)
        elif key in before and key not in after:
            after[key] = item
    for key, old in before.items():
        new = after[key] if key in after else txn.get_item(table, *key)
        yield key[0], key[1], old, new


# --- upkeep ----------------------------------------------------------------------------------


def recover(txn: Transaction) -> None:
    """At start: raise the clock to the last second stored, and know that
    the first second after it may already hold rows. A table whose recovery
    was switched on by a tallydb that kept no history starts one now."""
    global _stored_until
    for table in txn.all_tables():
        pitr = table.description.get(PITR)
        if pitr is not None and "Since" not in pitr:
            enable(txn, table, pitr["RecoveryPeriodInDays"])
        if HISTORY_SOURCE not in table.indexes:
            continue
        last = None
        for row_hk, _, _ in txn.items(table, index=HISTORY_SOURCE, forward=False):
            last = int.from_bytes(row_hk, "big")
            break
        if last is not None:
            raise_clock(last * _NS)
            _stored_until = max(_stored_until, last)


def trim(txn: Transaction, now: float, limit: int) -> int:
    """Delete history rows older than each table's recovery period (up to
    about ``limit`` of them); how many were deleted."""
    deleted = 0
    for table in txn.all_tables():
        pitr = table.description.get(PITR)
        if pitr is None or HISTORY_SOURCE not in table.indexes:
            continue
        cutoff = math.floor(now - pitr["RecoveryPeriodInDays"] * DAY)
        old = []
        for row_hk, row_rk, _ in txn.items(table, index=HISTORY_SOURCE):
            if int.from_bytes(row_hk, "big") >= cutoff or deleted >= limit:
                break
            old.append((row_hk, row_rk))
            deleted += 1
        for row_hk, row_rk in old:
            txn.delete_entry(table, HISTORY_SOURCE, row_hk, row_rk)
        if deleted >= limit:
            break
    return deleted
