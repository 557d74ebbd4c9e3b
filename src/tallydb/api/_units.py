"""Capacity units for the multi-item operations, by DynamoDB's rules.

- Reads are charged per 4 KB, rounded up; an eventually consistent read costs
  half; a read that finds nothing still costs one unit (half a unit if
  eventually consistent).
- Query and Scan round the *sum* of the items read once; BatchGetItem and the
  transactions round each item on its own.
- Writes are charged per 1 KB, rounded up, per item.
- Transactions cost double: two write units per KB written, two read units per
  4 KB read.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

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


def wants_capacity(request: dict[str, Any]) -> bool:
    return request.get("ReturnConsumedCapacity") in ("TOTAL", "INDEXES")


def consumed(table: str, units: float, mode: Any) -> dict[str, Any]:
    """A ConsumedCapacity entry for a plain read or write."""
    entry: dict[str, Any] = {"TableName": table, "CapacityUnits": units}
    if mode == "INDEXES":
        entry["Table"] = {"CapacityUnits": units}
    return entry


@dataclass
class Tally:
    """Units per table, in the order the tables were first charged; for the
    operations that answer with a list of ConsumedCapacity entries."""

    units: dict[str, float] = field(default_factory=dict)

    def add(self, table: str, units: float) -> None:
        self.units[table] = self.units.get(table, 0.0) + units

    def entries(self, mode: Any, *, kind: str | None = None) -> list[dict[str, Any]]:
        """One entry per table; ``kind`` ("Read"/"Write") adds the
        ``ReadCapacityUnits``/``WriteCapacityUnits`` members transactions report."""
        out = []
        for table, units in self.units.items():
            entry = consumed(table, units, mode)
            if kind is not None:
                entry[f"{kind}CapacityUnits"] = units
                if "Table" in entry:
                    entry["Table"][f"{kind}CapacityUnits"] = units
            out.append(entry)
        return out


def charge_each(sizes: Iterable[int], *, consistent: bool, factor: float = 1.0) -> float:
    """Units for items read one by one (BatchGetItem, TransactGetItems)."""
    return sum(read_units(size, consistent=consistent) * factor for size in sizes)
