"""A change feed's outbox read from past the rows its reader deleted
(``appended_rows(..., after=rk)``): the partition's committed rows after
that key, wherever they are (the overlay, a frozen overlay, SQLite), while
SQLite may still hold the deleted ones until their deletions reach it."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tallydb.engine.storage import Store
from tallydb.engine.storage import sqlite as store_module

TABLE = {"TableName": "t", "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}]}
FEED = "$feed"
PARTITIONS = [b"outbox", b"other"]


@pytest.mark.parametrize("seed", range(4))
def test_rows_after_a_key_are_the_committed_rows_after_it_through_freezes_and_sqlite_writes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    monkeypatch.setattr(store_module, "OVERLAY_ROWS", 12)
    monkeypatch.setattr(store_module, "OVERLAY_ROWS_CACHED", 12)
    monkeypatch.setattr(store_module, "FLUSH_CHUNK", 3)
    rng = random.Random(seed)
    store = Store(tmp_path)
    with store.transaction() as txn:
        record = txn.create_index(txn.create_table("t", TABLE), FEED)
    model: dict[bytes, dict[bytes, bytes]] = {hk: {} for hk in PARTITIONS}
    deleted_through: dict[bytes, bytes] = {}
    next_rk = 0
    seen_sqlite = 0
    for step in range(600):
        with store.transaction() as txn:
            choice = rng.random()
            if choice < 0.45:  # rows appended (as a capture puts them: fresh)
                for _ in range(rng.randint(1, 3)):
                    hk = rng.choice(PARTITIONS)
                    next_rk += 1
                    rk, blob = next_rk.to_bytes(8, "big"), b"[%d]" % step
                    txn.put_entry_encoded(record, FEED, hk, rk, blob, fresh=True)
                    model[hk][rk] = blob
            elif choice < 0.75:  # the oldest rows sent and deleted
                hk = rng.choice(PARTITIONS)
                for rk in sorted(model[hk])[:rng.randint(1, 4)]:
                    txn.delete_entry(record, FEED, hk, rk)
                    del model[hk][rk]
                    deleted_through[hk] = rk
            elif choice < 0.85:  # anything that writes SQLite (the overlay goes with it)
                with txn.savepoint():
                    txn.put_item(record, b"item%d" % step, b"", {"n": {"N": str(step)}})
            hk = rng.choice(PARTITIONS)
            after = rng.choice([deleted_through.get(hk), None,  # (or any key: the rows after it)
                                rng.randint(0, next_rk + 1).to_bytes(8, "big")])
            expected = sorted((rk, blob) for rk, blob in model[hk].items()
                              if after is None or rk > after)
            assert list(txn.appended_rows(record, FEED, hk, after)) == expected, (step, hk)
            if after is not None and store._conn.execute(
                    f"SELECT 1 FROM {record.index_table(FEED)} WHERE hk = ? AND rk <= ? LIMIT 1",
                    (hk, after)).fetchall():
                seen_sqlite += 1  # (rows up to ``after`` that SQLite holds still)
    assert seen_sqlite > 10  # (reads often started past rows SQLite still held)
    store.close()
