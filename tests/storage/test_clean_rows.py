"""The clean-row cache: rows read back from memory once SQLite holds them,
and never a stale one (after the overlay was put into SQLite for a read of
many rows, after a savepoint's own writes, after a rollback, past its budget)."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest
from tally_table import TABLE, values_on_disk

from tallydb.engine.api import Engine
from tallydb.engine.storage import Store, TableRecord
from tallydb.engine.storage import sqlite as store_module


def _add(pk: str, n: int = 1) -> dict[str, object]:
    return {"TableName": "tally", "Key": {"PK": {"S": pk}}, "UpdateExpression": "ADD n :n",
            "ExpressionAttributeValues": {":n": {"N": str(n)}}, "ReturnValues": "UPDATED_NEW"}


def _n(engine: Engine, pk: str) -> str:
    item = engine.call("GetItem", {"TableName": "tally", "Key": {"PK": {"S": pk}},
                                   "ConsistentRead": True}).get("Item")
    return "absent" if item is None else str(item["n"]["N"])


def _tally(engine: Engine) -> TableRecord:
    with engine.store.transaction() as txn:
        record = txn.table("tally")
    assert record is not None
    return record


def _selects(engine: Engine) -> list[str]:
    """Every SELECT of an item row the store runs from now on."""
    seen: list[str] = []
    engine.store._conn.set_trace_callback(
        lambda sql: seen.append(sql) if sql.startswith("SELECT item FROM") else None)
    return seen


@pytest.fixture
def engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Engine:
    monkeypatch.setattr(store_module, "OVERLAY_ROWS", 4)
    engine = Engine(Store(tmp_path))
    engine.call("CreateTable", TABLE)
    return engine


def test_a_row_written_into_sqlite_is_read_back_without_a_lookup(engine: Engine) -> None:
    for i in range(4):  # the fourth row puts the overlay into SQLite
        engine.call("UpdateItem", _add(f"k{i}", i + 1))
    assert not engine.store._overlay
    selects = _selects(engine)
    assert [_n(engine, f"k{i}") for i in range(4)] == ["1", "2", "3", "4"]
    assert engine.call("UpdateItem", _add("k0"))["Attributes"]["n"] == {"N": "2"}
    assert selects == []
    assert _n(engine, "never") == "absent"
    assert len(selects) == 1  # a row the cache never saw is looked up


def test_a_read_after_the_overlay_went_into_sqlite_sees_the_newest_write(
        engine: Engine) -> None:
    for i in range(4):
        engine.call("UpdateItem", _add(f"k{i}"))  # k0..k3 = 1, in SQLite and the cache
    engine.call("UpdateItem", _add("k0", 10))  # 11, in the overlay only
    record = _tally(engine)
    with engine.store.transaction() as txn:
        assert len(list(txn.items(record))) == 4  # the overlay into SQLite's transaction
        item = txn.get_item(record, _hk(engine, "k0"))
        assert item is not None and item["n"] == {"N": "11"}
    assert _n(engine, "k0") == "11"
    engine.close()


def _hk(engine: Engine, pk: str) -> bytes:
    with engine.store.transaction() as txn:
        table = txn.table("tally")
        assert table is not None
    from tallydb.engine.api._tables import Table

    hk, _ = Table(table).keys.encode({"PK": {"S": pk}})
    return hk


def test_a_savepoint_s_own_writes_are_read_and_then_not_trusted_from_the_cache(
        engine: Engine, tmp_path: Path) -> None:
    for i in range(4):
        engine.call("UpdateItem", _add(f"k{i}"))  # cached at 1
    with engine.batch() as call:
        # BatchWriteItem runs in a savepoint: its writes go straight to SQLite
        call("BatchWriteItem", {"RequestItems": {"tally": [
            {"PutRequest": {"Item": {"PK": {"S": "k1"}, "n": {"N": "50"}}}},
            {"DeleteRequest": {"Key": {"PK": {"S": "k2"}}}}]}})
        assert call("GetItem", {"TableName": "tally", "Key": {"PK": {"S": "k1"}}}
                    )["Item"]["n"] == {"N": "50"}
        assert "Item" not in call("GetItem", {"TableName": "tally",
                                              "Key": {"PK": {"S": "k2"}}})
        assert call("UpdateItem", _add("k1"))["Attributes"]["n"] == {"N": "51"}
    assert [_n(engine, f"k{i}") for i in range(4)] == ["1", "51", "absent", "1"]
    engine.close()
    assert values_on_disk(tmp_path) == {"k0": "1", "k1": "51", "k3": "1"}


def test_a_rolled_back_savepoint_leaves_the_cached_rows_true(engine: Engine) -> None:
    for i in range(4):
        engine.call("UpdateItem", _add(f"k{i}"))
    with engine.batch() as call:
        call("UpdateItem", _add("k0"))  # 2, kept in memory
        with pytest.raises(Exception):  # noqa: B017 - any refusal: the point is what stays
            call("TransactWriteItems", {"TransactItems": [
                {"Put": {"TableName": "tally", "Item": {"PK": {"S": "k1"}, "n": {"N": "9"}}}},
                {"ConditionCheck": {"TableName": "tally", "Key": {"PK": {"S": "k3"}},
                                    "ConditionExpression": "n = :nine",
                                    "ExpressionAttributeValues": {":nine": {"N": "9"}}}}]})
    assert [_n(engine, f"k{i}") for i in range(4)] == ["2", "1", "1", "1"]
    engine.close()


def test_a_table_deleted_and_made_again_has_none_of_the_old_rows(engine: Engine) -> None:
    for i in range(4):
        engine.call("UpdateItem", _add(f"k{i}"))
    assert engine.store._clean
    engine.call("DeleteTable", {"TableName": "tally"})
    engine.call("CreateTable", TABLE)
    assert [_n(engine, f"k{i}") for i in range(4)] == ["absent"] * 4
    engine.close()


def test_the_cache_keeps_within_its_budget_and_reads_stay_right(
        engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "CLEAN_BYTES", 3 * (store_module.ROW_OVERHEAD + 40))
    for round_ in range(3):
        for i in range(12):
            engine.call("UpdateItem", _add(f"k{i}"))
            assert engine.store._clean_bytes <= store_module.CLEAN_BYTES
            assert _n(engine, f"k{i}") == str(round_ + 1)
    assert engine.store._clean_bytes == sum(
        store_module.ROW_OVERHEAD + (0 if blob is None else len(blob))
        for blob in engine.store._clean.values())
    engine.close()


def test_rows_the_cache_held_go_into_sqlite_in_larger_bulks(
        engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "OVERLAY_ROWS_CACHED", 8)
    selects = _selects(engine)
    for i in range(8):  # new rows, each looked up in SQLite: in bulks of 4
        engine.call("UpdateItem", _add(f"k{i}"))
        assert len(engine.store._overlay) == (i + 1) % 4
    assert len(selects) == 8
    for i in range(8):  # the same rows again, read from the cache: in one bulk of 8
        engine.call("UpdateItem", _add(f"k{i}"))
        assert len(engine.store._overlay) == (i + 1) % 8
    assert len(selects) == 8
    assert [_n(engine, f"k{i}") for i in range(8)] == ["2"] * 8
    engine.close()
    assert values_on_disk(Path(engine.store.directory or "")) == {f"k{i}": "2" for i in range(8)}


def test_a_row_read_from_sqlite_leaves_no_read_open_after_its_transaction(
        engine: Engine) -> None:
    """The store reads rows by key on one kept cursor: once the transaction
    that read ends, no statement of it may still hold SQLite's read snapshot
    (a checkpoint could then never copy the WAL back and start it again)."""
    for i in range(4):
        engine.call("UpdateItem", _add(f"k{i}", i + 1))  # into SQLite
    engine.store._forget_clean()
    selects = _selects(engine)
    assert [_n(engine, "k2"), _n(engine, "never")] == ["3", "absent"]
    assert len(selects) == 2  # both read from SQLite on the kept cursor
    other = sqlite3.connect(engine.store.location, isolation_level=None)
    try:
        other.execute("INSERT INTO documents(kind, name, body) VALUES ('probe', 'p', x'')")
        # Busy while the store's checkpointer copies (SQLite then answers at
        # once), and for good while a reader holds a snapshot: tried until
        # it is not, for a generous while.
        deadline = time.monotonic() + 20
        while (busy := other.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
               ) and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        other.close()
    assert busy == 0
    engine.close()
