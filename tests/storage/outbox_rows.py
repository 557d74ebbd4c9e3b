"""A table with a change feed's outbox (the ``$feed`` index), and readers of
its rows as a transaction sees them and as SQLite holds them."""

from __future__ import annotations

from tallydb.engine.storage import Store, TableRecord
from tallydb.engine.storage.sqlite import Transaction

TABLE = {"TableName": "t", "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}]}
SHARD = b"outbox"


def rows(txn: Transaction, record: TableRecord) -> list[tuple[bytes, bytes]]:
    """The outbox's rows in SHARD as ``txn`` reads them, in key order."""
    return list(txn.appended_rows(record, "$feed", SHARD))


def sqlite_rows(store: Store, record: TableRecord) -> list[bytes]:
    """The range keys of the outbox's rows SQLite itself holds."""
    return [row[0] for row in store._conn.execute(
        f"SELECT rk FROM {record.index_table('$feed')} ORDER BY rk")]
