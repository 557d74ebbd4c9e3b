"""The item log: item writes committed by one append, replayed at the next open.

A store killed without closing (the process gone, nothing flushed) must come
back with every committed write; a torn or foreign tail must cost only what
follows it; records SQLite already holds must never be applied twice.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from tally_table import TABLE, values_on_disk

from tallydb.engine.api import Engine
from tallydb.engine.storage import Store
from tallydb.engine.storage import sqlite as store_module
from tallydb.engine.storage.item_log import HEADER_SIZE, ItemLog


def _add(pk: str, n: int = 1) -> dict[str, object]:
    return {"TableName": "tally", "Key": {"PK": {"S": pk}}, "UpdateExpression": "ADD n :n",
            "ExpressionAttributeValues": {":n": {"N": str(n)}}, "ReturnValues": "UPDATED_NEW"}


def _killed_after(path: Path, script: str) -> None:
    """Run ``script`` with ``engine`` open on ``path``, then end the process
    at once (``os._exit``: no close, no flush), as ``kill -9`` would."""
    code = textwrap.dedent(f"""
        import os
        from tallydb.engine.api import Engine
        from tallydb.engine.storage import Store
        engine = Engine(Store({str(path)!r}))
    """) + textwrap.dedent(script) + "\nos._exit(0)\n"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_committed_item_writes_survive_a_process_that_never_closed(tmp_path: Path) -> None:
    _killed_after(tmp_path, f"""
        engine.call("CreateTable", {TABLE!r})
        for i in range(500):
            engine.call("UpdateItem", {_add("hot")!r})
        with engine.batch() as call:
            for i in range(64):
                call("UpdateItem", {_add("hot")!r})
            call("UpdateItem", {_add("cold", 7)!r})
        assert os.path.getsize({str(tmp_path / "tallydb.itemlog")!r}) > 0
    """)
    assert values_on_disk(tmp_path) == {"hot": "564", "cold": "7"}
    assert values_on_disk(tmp_path) == {"hot": "564", "cold": "7"}  # replayed once, not twice


def _ten_adds_then_killed(path: Path) -> None:
    """Ten one-row records (n = 1 .. 10) in the log of a process that never closed."""
    _killed_after(path, f"""
        engine.call("CreateTable", {TABLE!r})
        for i in range(10):
            engine.call("UpdateItem", {_add("hot")!r})
    """)


def test_a_torn_last_record_costs_that_record_only(tmp_path: Path) -> None:
    _ten_adds_then_killed(tmp_path)
    log = tmp_path / "tallydb.itemlog"
    with open(log, "r+b") as f:  # the last record cut short, as a crash mid-write leaves it
        f.truncate(os.path.getsize(log) - 3)
    assert values_on_disk(tmp_path) == {"hot": "9"}


def test_a_corrupt_record_ends_the_replay_there(tmp_path: Path) -> None:
    _ten_adds_then_killed(tmp_path)
    log = tmp_path / "tallydb.itemlog"
    assert len(_read(log)) == 10
    data = bytearray(log.read_bytes())
    data[_record_offsets(data)[6] + 20] ^= 0xFF  # a flipped bit in the 7th record
    log.write_bytes(bytes(data))
    assert values_on_disk(tmp_path) == {"hot": "6"}


def test_records_sqlite_holds_already_are_not_applied_again(tmp_path: Path) -> None:
    """A crash between the SQLite commit that took the overlay and the log's
    reset leaves records SQLite has: replaying them would undo later writes."""
    engine = Engine(Store(tmp_path))
    engine.call("CreateTable", TABLE)
    engine.call("UpdateItem", _add("hot"))
    engine.call("UpdateItem", _add("hot"))
    stale = tmp_path / "stale.itemlog"
    shutil.copy(tmp_path / "tallydb.itemlog", stale)  # records of n = 1 and n = 2
    engine.close()  # the overlay into SQLite (n = 2), the log reset
    engine = Engine(Store(tmp_path))
    engine.call("UpdateItem", _add("hot", 10))  # n = 12, through a new log
    engine.close()
    shutil.copy(stale, tmp_path / "tallydb.itemlog")
    assert values_on_disk(tmp_path) == {"hot": "12"}


def test_appends_after_a_failed_reset_are_replayed_past_the_old_records(tmp_path: Path) -> None:
    """Should the log fail to start afresh after a SQLite commit, later
    records follow ones SQLite already holds: those are skipped, not a stop."""
    engine = Engine(Store(tmp_path))
    engine.call("CreateTable", TABLE)
    engine.call("UpdateItem", _add("hot"))
    engine.call("UpdateItem", _add("hot"))
    old = tmp_path / "old.itemlog"
    shutil.copy(tmp_path / "tallydb.itemlog", old)  # LSNs 1 and 2
    engine.close()  # SQLite holds LSN 2
    table, hk = _hot_row(tmp_path)
    shutil.copy(old, tmp_path / "tallydb.itemlog")  # as if the reset had failed
    log = ItemLog(tmp_path / "tallydb.itemlog", fsync=False)
    log.append(3, {(table, hk, b""): b'{"PK":{"S":"hot"},"n":{"N":"50"}}'})
    log.close()
    assert values_on_disk(tmp_path) == {"hot": "50"}


def test_records_after_a_gap_are_not_this_history(tmp_path: Path) -> None:
    engine = Engine(Store(tmp_path))
    engine.call("CreateTable", TABLE)
    engine.call("UpdateItem", _add("hot"))
    engine.close()
    table, hk = _hot_row(tmp_path)
    log = ItemLog(tmp_path / "tallydb.itemlog", fsync=False)
    log.append(5, {(table, hk, b""): b'{"PK":{"S":"hot"},"n":{"N":"99"}}'})
    log.close()
    assert values_on_disk(tmp_path) == {"hot": "1"}


def test_the_overlay_goes_into_sqlite_in_bulk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                              ) -> None:
    """Past OVERLAY_ROWS rows the overlay is written into SQLite and the log
    starts afresh; reads see the same items before and after."""
    monkeypatch.setattr(store_module, "OVERLAY_ROWS", 8)
    engine = Engine(Store(tmp_path))
    engine.call("CreateTable", TABLE)
    log = tmp_path / "tallydb.itemlog"
    records = []
    for i in range(20):
        engine.call("UpdateItem", _add(f"k{i}", i))
        records.append(len(_read(log)))
        assert engine.call("GetItem", {"TableName": "tally", "Key": {"PK": {"S": f"k{i}"}}}
                           )["Item"]["n"] == {"N": str(i)}
    assert records[:9] == [1, 2, 3, 4, 5, 6, 7, 0, 1]  # a new log at 8 rows
    assert records[15] == 0  # and at 16 (the first one, started afresh in place)
    assert not (tmp_path / store_module.FROZEN_LOG).exists()  # (8 rows: one chunk)
    assert engine.call("Scan", {"TableName": "tally"})["Count"] == 20
    engine.close()
    assert values_on_disk(tmp_path) == {f"k{i}": str(i) for i in range(20)}


def test_a_rolled_back_transaction_leaves_the_committed_overlay(tmp_path: Path) -> None:
    """A transaction that wrote the overlay into SQLite and then failed rolls
    SQLite back: the overlay's writes, committed before, must stay."""
    engine = Engine(Store(tmp_path))
    engine.call("CreateTable", TABLE)
    engine.call("UpdateItem", _add("hot", 3))  # in the overlay
    with pytest.raises(RuntimeError), engine.store.transaction() as txn:
        record = txn.table("tally")
        assert record is not None
        assert len(list(txn.items(record))) == 1  # the overlay into SQLite's transaction
        txn.create_table("other", dict(TABLE, TableName="other"))
        raise RuntimeError("a bug mid-transaction")
    assert engine.call("GetItem", {"TableName": "tally", "Key": {"PK": {"S": "hot"}}}
                       )["Item"]["n"] == {"N": "3"}
    assert engine.call("ListTables", {})["TableNames"] == ["tally"]
    engine.close()
    assert values_on_disk(tmp_path) == {"hot": "3"}


def _read(log_path: Path) -> list[tuple[int, object]]:
    log = ItemLog(log_path, fsync=False)
    try:
        return list(log.records())
    finally:
        log.close()


def _record_offsets(data: bytes) -> list[int]:
    """Where each record of a log file starts (each begins with its length)."""
    offsets = []
    at = HEADER_SIZE
    while at < len(data):
        offsets.append(at)
        at += 8 + int.from_bytes(data[at : at + 4], "little")
    return offsets


def _hot_row(path: Path) -> tuple[str, bytes]:
    """The SQLite table and encoded hash key of the item "hot"."""
    store = Store(path)
    try:
        with store.transaction() as txn:
            record = txn.table("tally")
            assert record is not None
            [(hk, _, _)] = txn.items(record)
            return record.items_table, hk
    finally:
        store.close()


def _count(engine: Engine) -> int:
    return int(engine.call("DescribeTable", {"TableName": "tally"})["Table"]["ItemCount"])


def test_a_frozen_overlay_goes_in_a_chunk_a_commit_and_reads_stay_right(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past OVERLAY_ROWS the overlay is frozen with its log, and goes into
    SQLite FLUSH_CHUNK rows after each commit: meanwhile every read sees
    the newest write, whether it is in the overlay, the frozen one or SQLite."""
    monkeypatch.setattr(store_module, "OVERLAY_ROWS", 8)
    monkeypatch.setattr(store_module, "FLUSH_CHUNK", 1)
    engine = Engine(Store(tmp_path))
    engine.call("CreateTable", TABLE)
    frozen = tmp_path / store_module.FROZEN_LOG
    seen_frozen = 0
    values: dict[str, int] = {}
    for i in range(60):
        # back and forth over ten keys: rows of a frozen overlay are written
        # again before and after their chunk went in; deleted now and then
        pk = f"k{(*range(10), *range(9, -1, -1))[i % 20]}"
        if i % 11 == 10:
            engine.call("DeleteItem", {"TableName": "tally", "Key": {"PK": {"S": pk}}})
            values.pop(pk, None)
        else:
            values[pk] = values.get(pk, 0) + i
            if i % 4:  # (an update that returns nothing reads the item its own way)
                engine.call("UpdateItem", {**_add(pk, i), "ReturnValues": "NONE"})
            else:
                assert engine.call("UpdateItem", _add(pk, i))["Attributes"]["n"] == {
                    "N": str(values[pk])}
        seen_frozen += frozen.exists()
        for key in {f"k{j}" for j in range(10)}:
            item = engine.call("GetItem", {"TableName": "tally", "Key": {"PK": {"S": key}}}
                               ).get("Item")
            assert (None if item is None else int(item["n"]["N"])) == values.get(key), key
    assert seen_frozen > 10  # (overlays of 8, a row a commit: frozen across commits)
    assert _count(engine) == len(values)  # (a Scan would write every row into SQLite)
    assert engine.call("Scan", {"TableName": "tally"})["Count"] == len(values)
    assert not frozen.exists()  # in SQLite now
    engine.close()
    assert values_on_disk(tmp_path) == {pk: str(n) for pk, n in values.items()}


def test_a_process_killed_while_an_overlay_is_frozen_loses_nothing(tmp_path: Path) -> None:
    """Killed with a frozen overlay half in SQLite and newer commits in the
    new log: the next open replays both logs, the frozen one first."""
    _killed_after(tmp_path, f"""
        from tallydb.engine.storage import sqlite as store_module
        store_module.OVERLAY_ROWS = 8
        store_module.FLUSH_CHUNK = 1
        engine.call("CreateTable", {TABLE!r})
        for i in range(12):
            engine.call("UpdateItem", {_add("k0")!r} | {{"Key": {{"PK": {{"S": f"k{{i % 9}}"}}}}}})
        assert os.path.exists({str(tmp_path / store_module.FROZEN_LOG)!r})
    """)
    assert (tmp_path / store_module.FROZEN_LOG).exists()
    expected = {f"k{i}": str(2 if i < 3 else 1) for i in range(9)}
    assert values_on_disk(tmp_path) == expected
    assert not (tmp_path / store_module.FROZEN_LOG).exists()
    engine = Engine(Store(tmp_path))
    assert _count(engine) == 9
    engine.close()
    assert values_on_disk(tmp_path) == expected  # replayed once, not twice


def test_a_row_a_frozen_chunk_deleted_and_then_put_again_is_counted_new(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A row known to be in SQLite, deleted by a chunk of a frozen overlay,
    is no longer there: put again and written by a transaction that takes
    the rest (a table made), it counts as a new item."""
    monkeypatch.setattr(store_module, "OVERLAY_ROWS", 8)
    monkeypatch.setattr(store_module, "OVERLAY_ROWS_CACHED", 8)
    monkeypatch.setattr(store_module, "FLUSH_CHUNK", 1)
    engine = Engine(Store(tmp_path))
    engine.call("CreateTable", TABLE)
    key = {"PK": {"S": "k"}}
    engine.call("PutItem", {"TableName": "tally", "Item": key | {"n": {"N": "1"}}})
    engine.call("CreateTable", dict(TABLE, TableName="other"))  # k into SQLite, cache emptied
    engine.call("UpdateItem", _add("k"))  # k read from SQLite: known to be there
    engine.call("DeleteItem", {"TableName": "tally", "Key": key})
    for i in range(7):
        engine.call("PutItem", {"TableName": "tally", "Item": {"PK": {"S": f"a{i}"}}})
    assert (tmp_path / store_module.FROZEN_LOG).exists()  # k's deletion in SQLite, a chunk
    # a0 (in SQLite after the next chunk) before k in the overlay: k is
    # written after a row that exists, as a row SQLite may already hold
    engine.call("UpdateItem", _add("a0"))
    engine.call("PutItem", {"TableName": "tally", "Item": key | {"n": {"N": "5"}}})
    engine.call("CreateTable", dict(TABLE, TableName="third"))  # the rest, k with it
    assert not (tmp_path / store_module.FROZEN_LOG).exists()
    assert _count(engine) == 8
    engine.close()


def test_an_overlay_whose_log_cannot_move_aside_stays_and_goes_in_later(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "OVERLAY_ROWS", 4)
    monkeypatch.setattr(store_module, "OVERLAY_ROWS_CACHED", 4)
    monkeypatch.setattr(store_module, "FLUSH_RETRY", 0.0)
    engine = Engine(Store(tmp_path))
    engine.call("CreateTable", TABLE)
    replace = os.replace

    def refused(*args: object) -> None:
        raise PermissionError("not now")

    monkeypatch.setattr(store_module.os, "replace", refused)
    for i in range(6):
        engine.call("UpdateItem", _add(f"k{i}", i))
    assert not (tmp_path / store_module.FROZEN_LOG).exists()
    monkeypatch.setattr(store_module.os, "replace", replace)
    engine.call("UpdateItem", _add("k0", 10))  # moves aside now, all in one chunk
    assert _read(tmp_path / "tallydb.itemlog") == []
    assert _count(engine) == 6
    engine.close()
    assert values_on_disk(tmp_path) == {f"k{i}": str(i + (10 if i == 0 else 0)) for i in range(6)}


def test_a_log_started_afresh_in_place_never_reads_its_earlier_life(tmp_path: Path) -> None:
    """A reset rewrites the header without truncating (no block is freed on
    the write path): the earlier life's bytes after the new records fail
    their CRC, and an append after a reopen goes after the last whole
    record, not after them."""
    path = tmp_path / "log"
    row = {("items_1", b"k", b""): b'{"n":{"N":"1"}}' * 20}
    log = ItemLog(path, fsync=False)
    for lsn in range(1, 11):
        log.append(lsn, row)
    old_size = log.size
    log.reset()
    log.append(11, row)
    log.append(12, row)
    log.close()
    assert os.path.getsize(path) == old_size  # (not truncated)
    assert [lsn for lsn, _ in _read(path)] == [11, 12]
    log = ItemLog(path, fsync=False)
    log.append(13, row)
    log.close()
    assert [lsn for lsn, _ in _read(path)] == [11, 12, 13]


def test_a_log_opened_fresh_starts_a_new_life_over_an_earlier_one(tmp_path: Path) -> None:
    """A freeze reuses the spent log's file opened ``fresh``: its records
    are in SQLite already, so none is read back, and the next appends are
    the only records in it."""
    path = tmp_path / "log"
    row = {("items_1", b"k", b""): b'{"n":{"N":"1"}}'}
    log = ItemLog(path, fsync=False)
    for lsn in range(1, 6):
        log.append(lsn, row)
    log.close()
    reads: list[int] = []
    pread = os.pread

    def counted(fd: int, length: int, offset: int) -> bytes:
        reads.append(length)
        return pread(fd, length, offset)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "pread", counted)
        log = ItemLog(path, fsync=False, fresh=True)
    assert reads == []  # (opened without reading its earlier life)
    assert list(log.records()) == []
    log.append(6, row)
    log.close()
    assert [lsn for lsn, _ in _read(path)] == [6]


def test_a_record_whose_rows_do_not_fit_it_ends_the_replay_and_the_appends_go_there(
        tmp_path: Path) -> None:
    """A record whose CRC holds but whose rows overrun it (written so by a
    bug, never by a torn write) is read as the end of the log: the replay
    stops before it, and the next append takes its place, so that no
    acknowledged record hides behind it."""
    import struct
    import zlib

    path = tmp_path / "log"
    row = {("items_1", b"k", b""): b'{"n":{"N":"1"}}'}
    log = ItemLog(path, fsync=False)
    log.append(1, row)
    log.close()
    with open(path, "rb") as file:
        seed = zlib.crc32(file.read(HEADER_SIZE))
    lsn = struct.pack("<Q", 2)
    overrun = struct.pack("<HIII", 7, 1, 0, 100) + b"items_1" + b"k" + b"short"
    body = lsn + overrun
    with open(path, "ab") as file:
        file.write(struct.pack("<II", len(body), zlib.crc32(body, seed)) + body)
    log = ItemLog(path, fsync=False)
    assert [lsn for lsn, _ in log.records()] == [1]
    log.append(2, row)
    log.close()
    assert [lsn for lsn, _ in _read(path)] == [1, 2]
