"""The checkpointer: SQLite's WAL copied back on a thread of its own.

The WAL must reach the database file without the writer running the
checkpoint, must not grow without bound under a steady stream of writes
(a passive checkpoint alone never catches up with them), and closing must
never wait on a checkpointer that waits for the writer.
"""

from __future__ import annotations

import random
import sqlite3
import threading
import time
from pathlib import Path

import pytest
from tally_table import TABLE, values_on_disk

from tallydb.engine.api import Engine
from tallydb.engine.storage import Store, checkpoint
from tallydb.engine.storage.checkpoint import Checkpointer


def _wal_database(path: Path, pages: int) -> sqlite3.Connection:
    """A WAL-mode database whose WAL holds about ``pages`` pages the
    database file does not (nothing checkpoints them)."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA page_size=1024")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA wal_autocheckpoint=0")
    conn.execute("CREATE TABLE t(k INTEGER PRIMARY KEY, v BLOB)")
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO t VALUES (?, ?)", [(i, b"x" * 900) for i in range(pages)])
    conn.execute("COMMIT")
    return conn


def _until(condition: object, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.01)


def test_a_woken_checkpointer_copies_the_wal_into_the_database_file(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    conn = _wal_database(path, pages=500)
    before = path.stat().st_size
    checkpointer = Checkpointer(str(path))
    try:
        checkpointer.wake()
        _until(lambda: 0 < checkpointer.frames[0] == checkpointer.frames[1])
    finally:
        checkpointer.close()
    assert path.stat().st_size >= before + 500 * 1024  # the pages are in the file now
    assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == 500
    conn.close()


def test_close_does_not_wait_for_a_restart_the_writer_never_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checkpoint, "RESTART_FRAMES", 1)  # every checkpoint asks for one
    path = tmp_path / "db.sqlite3"
    conn = _wal_database(path, pages=50)
    checkpointer = Checkpointer(str(path))
    checkpointer.wake()
    _until(lambda: checkpointer.restart_due)  # and waits for the writer
    closing = threading.Thread(target=checkpointer.close, daemon=True)
    closing.start()
    closing.join(timeout=5)
    assert not closing.is_alive(), "close() waited for the restart"
    conn.close()


def test_the_writer_restarts_a_wal_passive_checkpoints_could_not_finish(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checkpoint, "RESTART_FRAMES", 100)
    monkeypatch.setattr(checkpoint, "INTERVAL", 0.1)  # the checkpoint after the restart
    path = tmp_path / "db.sqlite3"
    conn = _wal_database(path, pages=300)
    reader = sqlite3.connect(path, isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM t").fetchone()  # pins the WAL at 300-odd frames
    conn.executemany("INSERT INTO t VALUES (?, ?)", [(i, b"y" * 900) for i in range(1000, 1050)])
    checkpointer = Checkpointer(str(path))
    try:
        checkpointer.wake()
        _until(lambda: checkpointer.restart_due)
        frames, copied = checkpointer.frames
        assert copied < frames  # the reader's snapshot stopped the passive checkpoints
        reader.execute("COMMIT")
        checkpointer.restart(conn)
        assert checkpointer.frames[0] == checkpointer.frames[1] >= frames
        conn.execute("INSERT INTO t VALUES (2000, x'00')")
        checkpointer.wake()
        # the insert went to the WAL's beginning: without the restart it would be frame 350-odd
        _until(lambda: 0 < checkpointer.frames[0] < 10)
    finally:
        checkpointer.close()
        reader.close()
    assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == 351
    conn.close()


def test_the_wal_stays_bounded_under_a_steady_stream_of_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checkpoint, "INTERVAL", 0.1)
    monkeypatch.setattr(checkpoint, "RESTART_FRAMES", 512)
    keys, batches = 20_000, 600
    engine = Engine(Store(tmp_path))
    rng = random.Random(5)
    writes: dict[str, int] = {}
    wal = tmp_path / "tallydb.sqlite3-wal"
    largest_wal = 0
    try:
        engine.call("CreateTable", TABLE)
        for _ in range(batches):
            with engine.batch() as call:  # 50 random keys a transaction, like a group commit
                for _ in range(50):
                    pk = f"k{rng.randrange(keys)}"
                    call("UpdateItem", {
                        "TableName": "tally", "Key": {"PK": {"S": pk}},
                        "UpdateExpression": "ADD n :one",
                        "ExpressionAttributeValues": {":one": {"N": "1"}},
                    })
                    writes[pk] = writes.get(pk, 0) + 1
            # A server's writer waits on its sockets between batches, and the
            # checkpointer's thread runs then; this loop would otherwise hold
            # the GIL throughout and starve it on a busy machine.
            time.sleep(0.001)
            largest_wal = max(largest_wal, wal.stat().st_size)
    finally:
        engine.close()
    assert len(writes) > 10_000  # enough distinct rows: about a WAL page each
    # Without restarts the WAL keeps a page per row written (16 to 24 MB
    # here); with them, about what the writer appends between checkpoints.
    assert largest_wal < 10 * 2**20, f"the WAL grew to {largest_wal:,} bytes"
    assert values_on_disk(tmp_path) == {pk: str(n) for pk, n in writes.items()}


def test_closing_the_store_leaves_no_wal_behind(tmp_path: Path) -> None:
    """Between checkpoints the WAL holds up to INTERVAL seconds of writes;
    a store that closes copies them back and removes it."""
    engine = Engine(Store(tmp_path))
    try:
        engine.call("CreateTable", TABLE)
        for i in range(300):  # more than the overlay holds: some reach SQLite's WAL
            engine.call("PutItem", {"TableName": "tally", "Item": {"PK": {"S": f"k{i}"}}})
        assert (tmp_path / "tallydb.sqlite3-wal").stat().st_size > 0
    finally:
        engine.close()
    assert not (tmp_path / "tallydb.sqlite3-wal").exists()
    assert len(values_on_disk(tmp_path)) == 300
