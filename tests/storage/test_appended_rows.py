"""A change feed's outbox is read as committed, the rows still in memory
merged with SQLite's in key order, without writing them into SQLite (a
reader that comes back every few milliseconds would otherwise make each
of its reads a SQLite commit)."""

from __future__ import annotations

from pathlib import Path

import pytest
from outbox_rows import SHARD, TABLE, rows, sqlite_rows

from tallydb.engine.storage import Store
from tallydb.engine.storage import sqlite as store_module


def test_rows_in_memory_and_in_sqlite_are_read_in_order_without_a_flush(tmp_path: Path
                                                                        ) -> None:
    store = Store(tmp_path)
    with store.transaction() as txn:
        record = txn.create_index(txn.create_table("t", TABLE), "$feed")
        for rk in (b"\x02", b"\x04"):  # committed to SQLite with the catalog
            txn.put_entry_encoded(record, "$feed", SHARD, rk, b"[%d]" % rk[0])
    for rk in (b"\x01", b"\x03", b"\x05"):  # each its own commit: the item log, the overlay
        with store.transaction() as txn:
            txn.put_entry_encoded(record, "$feed", SHARD, rk, b"[%d]" % rk[0])
            txn.put_entry_encoded(record, "$feed", b"another shard", rk, b"[0]")
    with store.transaction() as txn:
        txn.delete_entry(record, "$feed", SHARD, b"\x02")  # deleted in memory only
        txn.put_entry_encoded(record, "$feed", SHARD, b"\x04", b"[40]")  # replaced likewise
    with store.transaction() as txn:
        assert rows(txn, record) == [
            (b"\x01", b"[1]"), (b"\x03", b"[3]"), (b"\x04", b"[40]"), (b"\x05", b"[5]")]
    assert store._overlay  # nothing was written into SQLite for the read
    assert sqlite_rows(store, record) == [b"\x02", b"\x04"]
    store.close()
    store = Store(tmp_path)  # and the same once everything is in SQLite
    with store.transaction() as txn:
        record = txn.table("t")
        assert record is not None
        assert rows(txn, record) == [
            (b"\x01", b"[1]"), (b"\x03", b"[3]"), (b"\x04", b"[40]"), (b"\x05", b"[5]")]
    store.close()


def test_a_transaction_that_wrote_reads_its_ownrows(tmp_path: Path) -> None:
    store = Store(tmp_path)
    with store.transaction() as txn:
        record = txn.create_index(txn.create_table("t", TABLE), "$feed")
    with store.transaction() as txn:
        txn.put_entry_encoded(record, "$feed", SHARD, b"\x07", b"[7]")
        assert rows(txn, record) == [(b"\x07", b"[7]")]
    store.close()


def test_rows_of_a_frozen_overlay_are_read_between_sqlites_and_the_overlays(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """While a frozen overlay goes into SQLite a chunk a commit, its rows
    are merged too: newer than SQLite's, older than the overlay's."""
    monkeypatch.setattr(store_module, "OVERLAY_ROWS", 4)
    monkeypatch.setattr(store_module, "OVERLAY_ROWS_CACHED", 4)
    monkeypatch.setattr(store_module, "FLUSH_CHUNK", 1)
    store = Store(tmp_path)
    with store.transaction() as txn:
        record = txn.create_index(txn.create_table("t", TABLE), "$feed")
        txn.put_entry_encoded(record, "$feed", SHARD, b"\x09", b"[9]")  # in SQLite
    for rk in (b"\x01", b"\x02", b"\x03", b"\x09"):  # four rows: frozen, one in SQLite
        with store.transaction() as txn:
            txn.put_entry_encoded(record, "$feed", SHARD, rk, b"[%d0]" % rk[0])
    assert store._frozen is not None
    with store.transaction() as txn:  # a second chunk; the overlay's own rows
        txn.delete_entry(record, "$feed", SHARD, b"\x03")
        txn.put_entry_encoded(record, "$feed", SHARD, b"\x04", b"[40]")
    assert store._frozen is not None and sqlite_rows(store, record) == [b"\x01", b"\x02", b"\x09"]
    with store.transaction() as txn:
        assert rows(txn, record) == [
            (b"\x01", b"[10]"), (b"\x02", b"[20]"), (b"\x04", b"[40]"), (b"\x09", b"[90]")]
    store.close()
