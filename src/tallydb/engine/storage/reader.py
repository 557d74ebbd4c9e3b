"""A read view: one table's rows as they were at one moment, read on a
connection of their own while the writer goes on.

``Store.reader`` makes one, holding the writer only long enough to put every
committed write into SQLite and start a read transaction on a second
connection: SQLite's WAL then shows that connection the database as it was
at that moment for as long as the view stays open, whatever is written
after. A long job (an export) reads through it without holding the writer.
An in-memory store has no file a second connection could open (nor has a
store that keeps its WAL index in memory, on a full disk): its view is a
copy of the database, taken under the writer.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator

from tallydb.engine.storage.sqlite import Store, TableRecord

__all__ = ["ReadView", "read_view"]


def read_view(store: Store) -> ReadView:
    """A view of ``store`` as it is now (every committed write in it)."""
    with store.settled():
        if store.location == ":memory:" or store.exclusive:  # no second connection sees it
            conn = sqlite3.connect(":memory:", check_same_thread=False)
            conn.deserialize(store.database_bytes())
        else:
            conn = sqlite3.connect(store.location, check_same_thread=False)
            conn.execute("BEGIN")
            conn.execute("SELECT count(*) FROM sequence").fetchone()  # the snapshot starts here
        store.readers += 1

    def closed() -> None:
        store.readers -= 1

    return ReadView(conn, closed)


class ReadView:
    """Rows of the store as they were when the view was opened."""

    def __init__(self, conn: sqlite3.Connection, on_close: Callable[[], None]) -> None:
        self._conn = conn
        self._on_close = on_close
        self._closed = False

    def rows(self, record: TableRecord, index: str | None = None,
             after: tuple[bytes, bytes] | None = None) -> Iterator[tuple[bytes, bytes, bytes]]:
        """(hk, rk, the item's JSON as stored) of every row of the table (or
        of one of its indexes), in key order, strictly after ``after``."""
        source = record.items_table if index is None else record.index_table(index)
        sql = f"SELECT hk, rk, item FROM {source}"
        args: tuple[bytes, ...] = ()
        if after is not None:
            sql += " WHERE (hk, rk) > (?, ?)"
            args = after
        sql += " ORDER BY hk, rk"
        cursor = self._conn.execute(sql, args)
        while True:
            batch = cursor.fetchmany(1024)
            if not batch:
                return
            yield from batch

    def counts(self, record: TableRecord) -> tuple[int, int]:
        """(items, bytes of stored item JSON) of the table: DescribeTable's figures."""
        row = self._conn.execute("SELECT items, bytes FROM item_counts WHERE source = ?",
                                 (record.items_table,)).fetchone()
        return (0, 0) if row is None else (int(row[0]), int(row[1]))

    def get(self, record: TableRecord, hk: bytes, rk: bytes, index: str | None = None
            ) -> bytes | None:
        """One row's JSON as stored, or None."""
        source = record.items_table if index is None else record.index_table(index)
        row = self._conn.execute(
            f"SELECT item FROM {source} WHERE hk = ? AND rk = ?", (hk, rk)).fetchone()
        return None if row is None else bytes(row[0])

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            try:
                self._conn.close()
            finally:
                self._on_close()

    def __enter__(self) -> ReadView:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
