"""Capacity units for the multi-item operations, by DynamoDB's rules.

- Reads are charged per 4 KB, rounded up; an eventually consistent read costs
  half; a read that finds nothing still costs one unit (half a unit if
  eventually consistent).
- Query and Scan round the *sum* of the items read once; BatchGetItem and the
  transactions round each item on its own.
- Writes are charged per 1 KB, rounded up, per item.
- Transactions cost double: two write units per KB written, two read units per
  4 KB read.
- Indexes are charged on their own (``_indexes``): TOTAL adds their units
  to the table's; INDEXES also breaks them down into ``Table``,
  ``GlobalSecondaryIndexes`` and ``LocalSecondaryIndexes``.

An engine may keep a ``UnitsReport`` (``Engine.report_units``): while it
does, PutItem, UpdateItem and DeleteItem leave each request's units in it,
whether or not the request asked for them (``charged``), for a listener
that counts every request's units (the console's operational view) without
changing the request or its answer.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from tallydb.engine.values import Item
from tallydb.engine.values.size import item_size

#: ConsumedCapacity's member for each kind of index.
_INDEX_MEMBERS = {"GSI": "GlobalSecondaryIndexes", "LSI": "LocalSecondaryIndexes"}

READ_BLOCK = 4096
WRITE_BLOCK = 1024
TRANSACTIONAL = 2.0


def _blocks(nbytes: int, block: int) -> int:
    return max(1, -(-nbytes // block))


def read_units(nbytes: int, *, consistent: bool) -> float:
    """Units for one read of ``nbytes`` (Query/Scan: the bytes of all items read)."""
    return _blocks(nbytes, READ_BLOCK) * (1.0 if consistent else 0.5)


def write_units(nbytes: int) -> float:
    return float(_blocks(nbytes, WRITE_BLOCK))


def item_write_units(item: Item | None, encoded: bytes | None = None) -> float:
    """Units for writing ``item`` (None: nothing, still one unit), given its
    JSON if it is at hand. An item's JSON is never shorter than its size
    (``values.size.check_item_fits``), so an item whose JSON fits in a
    block costs one unit without counting its bytes."""
    if item is None:
        return 1.0
    if len(encoded if encoded is not None else orjson.dumps(item)) <= WRITE_BLOCK:
        return 1.0
    return write_units(item_size(item))


def item_read_units(item: Item | None, *, consistent: bool) -> float:
    """Units for reading ``item`` (None: nothing found), as ``item_write_units`` counts."""
    if item is None or len(orjson.dumps(item)) <= READ_BLOCK:
        return 1.0 if consistent else 0.5
    return read_units(item_size(item), consistent=consistent)


def wants_capacity(request: dict[str, Any]) -> bool:
    return request.get("ReturnConsumedCapacity") in ("TOTAL", "INDEXES")


class UnitsReport:
    """The units of the last item write an engine ran, what ConsumedCapacity
    TOTAL would have answered, until the listener takes it (and sets it
    back to None): ``last`` is ``(table, units)``, or for a write of one
    unit the table's name alone (``update_item``'s hot counter: no object
    made per write, and a run of them reports the very same string)."""

    __slots__ = ("last",)

    def __init__(self) -> None:
        self.last: tuple[str, float] | str | None = None


#: How many engines of the process keep a ``UnitsReport``: while none
#: does, a write that was not asked for its units pays one test for them.
REPORTING = [0]
_reporting_lock = threading.Lock()


def keep_report(integrations: Any, on: bool) -> UnitsReport | None:
    """Keep an engine's ``UnitsReport`` in its ``Integrations.units`` (or,
    not ``on``, drop it); the report kept."""
    with _reporting_lock:
        report: UnitsReport | None = integrations.units
        if on and report is None:
            report = integrations.units = UnitsReport()
            REPORTING[0] += 1
        elif not on and report is not None:
            integrations.units = None
            REPORTING[0] -= 1
            report = None
        return report


def charged(txn: Any, request: dict[str, Any], table: str, units: float,
            indexes: Mapping[tuple[str, str], float] | None) -> dict[str, Any] | None:
    """An item write's units (``units`` on the table, ``indexes`` on its
    indexes): the ConsumedCapacity entry the request asked for (None when
    it did not), and the engine's ``UnitsReport``'s, if it keeps one."""
    if REPORTING[0]:
        report: UnitsReport | None = txn.context.units
        if report is not None:
            report.last = (table, units + sum(indexes.values()) if indexes else units)
    mode = request.get("ReturnConsumedCapacity")
    if mode == "TOTAL" or mode == "INDEXES":
        return consumed(table, units, mode, indexes)
    return None


def consumed(
    table: str,
    units: float,
    mode: Any,
    indexes: Mapping[tuple[str, str], float] | None = None,
    *,
    kind: str | None = None,
) -> dict[str, Any]:
    """A ConsumedCapacity entry: ``units`` on the table itself, ``indexes``
    on each index by (kind, name); ``kind`` ("Read"/"Write") adds the
    ``ReadCapacityUnits``/``WriteCapacityUnits`` members transactions report."""
    total = units + sum(indexes.values()) if indexes else units
    entry: dict[str, Any] = {"TableName": table, "CapacityUnits": total}
    if kind is not None:
        entry[f"{kind}CapacityUnits"] = total
    if mode == "INDEXES":
        entry["Table"] = _capacity(units, kind)
        for (index_kind, name), spent in (indexes or {}).items():
            member = entry.setdefault(_INDEX_MEMBERS[index_kind], {})
            member[name] = _capacity(spent, kind)
    return entry


def _capacity(units: float, kind: str | None) -> dict[str, float]:
    capacity = {"CapacityUnits": units}
    if kind is not None:
        capacity[f"{kind}CapacityUnits"] = units
    return capacity


@dataclass
class Tally:
    """Units per table, in the order the tables were first charged; for the
    operations that answer with a list of ConsumedCapacity entries."""

    units: dict[str, float] = field(default_factory=dict)
    indexes: dict[str, dict[tuple[str, str], float]] = field(default_factory=dict)

    def add(self, table: str, units: float,
            indexes: Mapping[tuple[str, str], float] | None = None,
            factor: float = 1.0) -> None:
        self.units[table] = self.units.get(table, 0.0) + units
        if indexes:
            spent = self.indexes.setdefault(table, {})
            for key, index_units in indexes.items():
                spent[key] = spent.get(key, 0.0) + factor * index_units

    def entries(self, mode: Any, *, kind: str | None = None) -> list[dict[str, Any]]:
        """One entry per table; ``kind`` ("Read"/"Write") adds the
        ``ReadCapacityUnits``/``WriteCapacityUnits`` members transactions report."""
        return [consumed(table, units, mode, self.indexes.get(table), kind=kind)
                for table, units in self.units.items()]


def charge_each(sizes: Iterable[int], *, consistent: bool, factor: float = 1.0) -> float:
    """Units for items read one by one (BatchGetItem, TransactGetItems)."""
    return sum(read_units(size, consistent=consistent) * factor for size in sizes)
