"""The embedded store: SQLite in WAL mode, one connection, one writer."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

import orjson

Item = dict[str, Any]


class Sync(str, Enum):
    """How far a commit goes before it is acknowledged.

    off: handed to the OS at commit; survives the server being killed
      (even ``kill -9``), not an OS crash or power loss, which may also
      corrupt the database.
    normal (default): as off, and the database stays intact through an OS
      crash or power loss, which may lose the last moments of commits.
    full: the WAL is fsynced before every (group) commit is acknowledged;
      survives power loss.
    """

    OFF = "off"
    NORMAL = "normal"
    FULL = "full"


@dataclass
class TableRecord:
    """A table as the catalog keeps it: its id and its DescribeTable body."""

    id: int
    name: str
    description: dict[str, Any]

    @property
    def items_table(self) -> str:
        return f"items_{self.id}"


_SCHEMA = """
CREATE TABLE IF NOT EXISTS catalog (
    name TEXT PRIMARY KEY,
    id INTEGER NOT NULL UNIQUE,
    description BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sequence (name TEXT PRIMARY KEY, value INTEGER NOT NULL)
    WITHOUT ROWID;
"""


class Store:
    """One data directory (or one in-memory database) and its single writer."""

    def __init__(self, path: Path | str | None = None, sync: Sync | str = Sync.NORMAL) -> None:
        self.sync = Sync(sync)
        if path is None:
            self.location = ":memory:"
        else:
            directory = Path(path)
            directory.mkdir(parents=True, exist_ok=True)
            self.location = str(directory / "tallydb.sqlite3")
        self._lock = threading.RLock()
        self._conn = sqlite3.connect(
            self.location, isolation_level=None, check_same_thread=False, cached_statements=512
        )
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute(f"PRAGMA synchronous={self.sync.value.upper()}")
        self._conn.execute("PRAGMA temp_store=MEMORY")
        self._conn.executescript(_SCHEMA)
        self._tables: dict[str, TableRecord] = {}
        for name, table_id, description in self._conn.execute(
            "SELECT name, id, description FROM catalog"
        ):
            self._tables[name] = TableRecord(table_id, name, orjson.loads(description))
        self._depth = 0
        self._closed = False

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """Hold the writer: everything done inside commits together or not at all.

        Re-entrant: a transaction opened inside another joins it.
        """
        with self._lock:
            if self._closed:
                raise RuntimeError("the store is closed")
            if self._depth:
                self._depth += 1
                try:
                    yield Transaction(self)
                finally:
                    self._depth -= 1
                return
            tables_before = dict(self._tables)
            self._conn.execute("BEGIN IMMEDIATE")
            self._depth = 1
            try:
                yield Transaction(self)
            except BaseException:
                self._conn.execute("ROLLBACK")
                self._tables = tables_before
                raise
            else:
                self._conn.execute("COMMIT")
            finally:
                self._depth = 0

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self._conn.close()


class Transaction:
    """What one writer may do while it holds the store."""

    __slots__ = ("_conn", "_store")

    def __init__(self, store: Store) -> None:
        self._store = store
        self._conn = store._conn

    # -- the catalog -------------------------------------------------------

    def table(self, name: str) -> TableRecord | None:
        return self._store._tables.get(name)

    def tables(self) -> list[TableRecord]:
        return sorted(self._store._tables.values(), key=lambda t: t.name)

    def create_table(self, name: str, description: dict[str, Any]) -> TableRecord:
        row = self._conn.execute("SELECT value FROM sequence WHERE name = 'table'").fetchone()
        table_id = (row[0] if row else 0) + 1
        self._conn.execute(
            "INSERT INTO sequence(name, value) VALUES ('table', ?) "
            "ON CONFLICT(name) DO UPDATE SET value = excluded.value",
            (table_id,),
        )
        record = TableRecord(table_id, name, description)
        self._conn.execute(
            "INSERT INTO catalog(name, id, description) VALUES (?, ?, ?)",
            (name, table_id, orjson.dumps(description)),
        )
        self._conn.execute(
            f"CREATE TABLE {record.items_table} ("
            "hk BLOB NOT NULL, rk BLOB NOT NULL, item BLOB NOT NULL, PRIMARY KEY (hk, rk)"
            ") WITHOUT ROWID"
        )
        self._store._tables[name] = record
        return record

    def update_table(self, record: TableRecord) -> None:
        self._conn.execute(
            "UPDATE catalog SET description = ? WHERE name = ?",
            (orjson.dumps(record.description), record.name),
        )
        self._store._tables[record.name] = record

    def delete_table(self, record: TableRecord) -> None:
        self._conn.execute("DELETE FROM catalog WHERE name = ?", (record.name,))
        self._conn.execute(f"DROP TABLE IF EXISTS {record.items_table}")
        del self._store._tables[record.name]

    def count_items(self, record: TableRecord) -> tuple[int, int]:
        """(ItemCount, bytes of stored item JSON): DescribeTable's figures."""
        row = self._conn.execute(
            f"SELECT count(*), coalesce(sum(length(item)), 0) FROM {record.items_table}"
        ).fetchone()
        return int(row[0]), int(row[1])

    # -- items -------------------------------------------------------------

    def get_item(self, record: TableRecord, hk: bytes, rk: bytes = b"") -> Item | None:
        row = self._conn.execute(
            f"SELECT item FROM {record.items_table} WHERE hk = ? AND rk = ?", (hk, rk)
        ).fetchone()
        return None if row is None else orjson.loads(row[0])  # type: ignore[no-any-return]

    def put_item(self, record: TableRecord, hk: bytes, rk: bytes, item: Item) -> None:
        self._conn.execute(
            f"INSERT OR REPLACE INTO {record.items_table}(hk, rk, item) VALUES (?, ?, ?)",
            (hk, rk, orjson.dumps(item)),
        )

    def delete_item(self, record: TableRecord, hk: bytes, rk: bytes = b"") -> None:
        self._conn.execute(
            f"DELETE FROM {record.items_table} WHERE hk = ? AND rk = ?", (hk, rk)
        )

    def items(
        self,
        record: TableRecord,
        hk: bytes | None = None,
        *,
        after: tuple[bytes, bytes] | None = None,
        low: bytes | None = None,
        high: bytes | None = None,
        forward: bool = True,
    ) -> Iterator[tuple[bytes, bytes, Item]]:
        """Items in key order: one partition (``hk``) with the sort key within
        [low, high], or the whole table; resuming strictly after ``after``."""
        where: list[str] = []
        args: list[Any] = []
        if hk is not None:
            where.append("hk = ?")
            args.append(hk)
            if low is not None:
                where.append("rk >= ?")
                args.append(low)
            if high is not None:
                where.append("rk <= ?")
                args.append(high)
        if after is not None:
            where.append("(hk, rk) > (?, ?)" if forward else "(hk, rk) < (?, ?)")
            args.extend(after)
        order = "ASC" if forward else "DESC"
        sql = f"SELECT hk, rk, item FROM {record.items_table}"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += f" ORDER BY hk {order}, rk {order}"
        for row_hk, row_rk, blob in self._conn.execute(sql, args):
            yield row_hk, row_rk, orjson.loads(blob)
