"""A row put under a key never written before (``fresh``: a change feed's
outbox row, keyed by a sequence number) and deleted before the overlay goes
into SQLite leaves no trace: it leaves the overlay (neither the next bulk
write nor a reader of the outbox goes over it), the item log replays its
put and its deletion in order, and a row deleted after it reached SQLite is
deleted there."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from outbox_rows import SHARD, TABLE, rows, sqlite_rows

from tallydb.engine.storage import Store, TableRecord


def _outbox(tmp_path: Path) -> tuple[Store, TableRecord]:
    store = Store(tmp_path)
    with store.transaction() as txn:
        record = txn.create_index(txn.create_table("t", TABLE), "$feed")
    return store, record


def test_a_fresh_row_deleted_in_memory_leaves_the_overlay(tmp_path: Path) -> None:
    store, record = _outbox(tmp_path)
    for rk in (b"\x01", b"\x02", b"\x03"):
        with store.transaction() as txn:
            txn.put_entry_encoded(record, "$feed", SHARD, rk, b"[%d]" % rk[0], fresh=True)
    with store.transaction() as txn:
        txn.put_entry_encoded(record, "$feed", SHARD, b"\x04", b"[4]")  # not fresh
    with store.transaction() as txn:
        for rk in (b"\x01", b"\x02", b"\x04"):
            txn.delete_entry(record, "$feed", SHARD, rk)
    source = record.index_table("$feed")
    assert (source, SHARD, b"\x01") not in store._overlay
    assert (source, SHARD, b"\x02") not in store._overlay
    assert store._overlay[(source, SHARD, b"\x04")] is None  # kept as a deletion
    with store.transaction() as txn:
        assert rows(txn, record) == [(b"\x03", b"[3]")]
    store.close()
    store = Store(tmp_path)  # reopened: the same rows
    with store.transaction() as txn:
        found = txn.table("t")
        assert found is not None
        assert rows(txn, found) == [(b"\x03", b"[3]")]
    assert sqlite_rows(store, found) == [b"\x03"]
    store.close()


def test_a_fresh_row_in_sqlite_is_deleted_there(tmp_path: Path) -> None:
    store, record = _outbox(tmp_path)
    with store.transaction() as txn:
        txn.put_entry_encoded(record, "$feed", SHARD, b"\x01", b"[1]", fresh=True)
        txn.put_entry_encoded(record, "$feed", SHARD, b"\x02", b"[2]", fresh=True)
    with store.settled():  # the overlay into SQLite
        assert sqlite_rows(store, record) == [b"\x01", b"\x02"]
    with store.transaction() as txn:
        txn.delete_entry(record, "$feed", SHARD, b"\x01")
    with store.transaction() as txn:
        assert rows(txn, record) == [(b"\x02", b"[2]")]
    store.close()
    store = Store(tmp_path)
    assert sqlite_rows(store, record) == [b"\x02"]
    store.close()


def test_a_fresh_row_put_in_a_transaction_rolled_back_is_not_fresh(tmp_path: Path) -> None:
    store, record = _outbox(tmp_path)
    try:
        with store.transaction() as txn:
            txn.put_entry_encoded(record, "$feed", SHARD, b"\x01", b"[1]", fresh=True)
            raise RuntimeError("rolled back")
    except RuntimeError:
        pass
    assert not store._fresh
    with store.transaction() as txn:
        txn.put_entry_encoded(record, "$feed", SHARD, b"\x02", b"[2]", fresh=True)
    assert store._fresh == {(record.index_table("$feed"), SHARD, b"\x02")}
    store.close()


_CHILD = """
import os, sys
from pathlib import Path
from tallydb.engine.storage import Store
store = Store(Path(sys.argv[1]))
with store.transaction() as txn:
    record = txn.create_index(txn.create_table("t", {"TableName": "t",
        "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}]}), "$feed")
for n in range(1, 201):
    with store.transaction() as txn:
        txn.put_entry_encoded(record, "$feed", b"outbox", n.to_bytes(8, "big"), b"[%d]" % n,
                              fresh=True)
    if n % 2 == 0:
        with store.transaction() as txn:
            txn.delete_entry(record, "$feed", b"outbox", (n - 1).to_bytes(8, "big"))
print("done", flush=True)
os.kill(os.getpid(), 9)
"""


def test_rows_deleted_in_memory_stay_deleted_across_kill_9(tmp_path: Path) -> None:
    child = subprocess.run([sys.executable, "-c", _CHILD, str(tmp_path)], capture_output=True,
                           text=True, env={**os.environ}, timeout=300, check=False)
    assert child.returncode == -signal.SIGKILL, child.stderr
    assert child.stdout.strip() == "done"
    store = Store(tmp_path)
    with store.transaction() as txn:
        record = txn.table("t")
        assert record is not None
        assert [int.from_bytes(rk, "big") for rk, _ in rows(txn, record)] == [
            n for n in range(1, 201) if n % 2 == 0]
    store.close()


def test_a_fresh_row_still_in_memory_is_put_again_longer(tmp_path: Path) -> None:
    """``fresh_entry``: a fresh row's committed JSON while only the overlay
    holds it (its writer then puts it again, longer, still fresh); None for
    a row not put fresh, one the open transaction wrote, or one in SQLite."""
    store, record = _outbox(tmp_path)
    source = record.index_table("$feed")
    with store.transaction() as txn:
        txn.put_entry_encoded(record, "$feed", SHARD, b"\x01", b"[1]", fresh=True)
        txn.put_entry_encoded(record, "$feed", SHARD, b"\x02", b"[2]")
        txn.put_entry_encoded(record, "$feed", SHARD, b"\x03", b"[3]", fresh=True)
        assert txn.fresh_entry(record, "$feed", SHARD, b"\x01") is None  # not committed yet
    with store.transaction() as txn:
        assert txn.fresh_entry(record, "$feed", SHARD, b"\x01") == b"[1]"
        assert txn.fresh_entry(record, "$feed", SHARD, b"\x02") is None  # not put fresh
        txn.put_entry_encoded(record, "$feed", SHARD, b"\x01", b"[1,11]", fresh=True)
        txn.put_entry_encoded(record, "$feed", SHARD, b"\x03", b"[3,33]", fresh=True)
        assert txn.fresh_entry(record, "$feed", SHARD, b"\x01") is None  # written by this one
    with store.transaction() as txn:
        assert txn.fresh_entry(record, "$feed", SHARD, b"\x01") == b"[1,11]"
        txn.delete_entry(record, "$feed", SHARD, b"\x03")
    assert (source, SHARD, b"\x03") not in store._overlay  # a fresh row, put again: gone
    with store.transaction() as txn, txn.savepoint():  # the overlay goes into SQLite
        assert txn.fresh_entry(record, "$feed", SHARD, b"\x01") is None
    with store.transaction() as txn:
        assert txn.fresh_entry(record, "$feed", SHARD, b"\x01") is None  # in SQLite now
        assert rows(txn, record) == [(b"\x01", b"[1,11]"), (b"\x02", b"[2]")]
    store.close()
    store = Store(tmp_path)
    with store.transaction() as txn:
        found = txn.table("t")
        assert found is not None
        assert rows(txn, found) == [(b"\x01", b"[1,11]"), (b"\x02", b"[2]")]
    store.close()


def test_a_fresh_row_put_again_replays_as_last_put(tmp_path: Path) -> None:
    """The item log holds each put of a row put again: a replay after kill -9
    keeps the last, and a deletion after them."""
    script = f"""
import os, signal
from tallydb.engine.storage import Store
store = Store({str(tmp_path)!r})
with store.transaction() as txn:
    record = txn.create_index(txn.create_table("t", {TABLE!r}), "$feed")
for n in range(1, 6):
    with store.transaction() as txn:
        txn.put_entry_encoded(record, "$feed", {SHARD!r}, b"\\x01",
                              ("[" + ",".join(map(str, range(n))) + "]").encode(), fresh=True)
with store.transaction() as txn:
    txn.put_entry_encoded(record, "$feed", {SHARD!r}, b"\\x02", b"[9]", fresh=True)
with store.transaction() as txn:
    txn.put_entry_encoded(record, "$feed", {SHARD!r}, b"\\x02", b"[9,10]", fresh=True)
with store.transaction() as txn:
    txn.delete_entry(record, "$feed", {SHARD!r}, b"\\x02")
os.kill(os.getpid(), signal.SIGKILL)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env={**os.environ}, timeout=300, check=False)
    assert done.returncode == -signal.SIGKILL, done.stderr
    store = Store(tmp_path)
    with store.transaction() as txn:
        found = txn.table("t")
        assert found is not None
        assert rows(txn, found) == [(b"\x01", b"[0,1,2,3,4]")]
    store.close()
