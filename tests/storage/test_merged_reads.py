"""A read of many rows (a Query, a Scan, a stream's records) merges the
rows still in memory (the overlay, a frozen overlay on its way into
SQLite, and the reading transaction's own writes) with SQLite's, in the
read's order and range, without writing them into SQLite first. Checked against a model of the table
through many random commits, with overlays small enough to freeze, go
into SQLite a chunk a commit, and start again many times over."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tallydb.engine.storage import Store, TableRecord
from tallydb.engine.storage import sqlite as store_module
from tallydb.engine.storage.sqlite import Transaction

TABLE = {"TableName": "t", "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
                                         {"AttributeName": "SK", "KeyType": "RANGE"}]}
PARTITIONS = [b"a", b"b", b"c", b"c\x00", b"d"]
RANGE_KEYS = [bytes([n]) for n in range(0, 40, 3)] + [b"", b"\x05\x00", b"\xff"]

Model = dict[tuple[bytes, bytes], bytes]


def _expected(model: Model, hk: bytes | None, low: bytes | None, below: bytes | None,
              after: tuple[bytes, bytes] | None, forward: bool) -> list[tuple[bytes, bytes, bytes]]:
    rows = sorted(model.items(), reverse=not forward)
    return [(key[0], key[1], blob) for key, blob in rows
            if (hk is None or (key[0] == hk and (low is None or key[1] >= low)
                               and (below is None or key[1] < below)))
            and (after is None or (key > after if forward else key < after))]


def _read(txn: Transaction, record: TableRecord, rng: random.Random, model: Model) -> bool:
    """One read of a random shape, checked against the model; whether it
    read all partitions (a Scan's page: the only read that may write the
    overlays into SQLite first)."""
    hk = rng.choice([None, *PARTITIONS])
    low = rng.choice([None, *RANGE_KEYS]) if hk is not None else None
    below = rng.choice([None, *RANGE_KEYS]) if hk is not None else None
    after = (None if rng.random() < 0.5 else
             (rng.choice(PARTITIONS) if hk is None else hk, rng.choice(RANGE_KEYS)))
    forward = rng.random() < 0.5
    got = list(txn.items(record, hk, low=low, below=below, after=after, forward=forward,
                         decode=False))
    assert got == _expected(model, hk, low, below, after, forward), (hk, low, below, after,
                                                                      forward)
    return hk is None


@pytest.mark.parametrize(("overlay", "merged_rows"), [(6, 512), (40, 512), (40, 8)])
@pytest.mark.parametrize("seed", range(3))
def test_reads_of_many_rows_merge_the_overlays_in_order_through_many_freezes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int, overlay: int,
        merged_rows: int) -> None:
    """(With ``merged_rows`` below what the overlays hold, a read of all
    partitions writes them into SQLite first, and is checked the same; a
    read of one partition never does.)"""
    monkeypatch.setattr(store_module, "OVERLAY_ROWS", overlay)
    monkeypatch.setattr(store_module, "OVERLAY_ROWS_CACHED", overlay)
    monkeypatch.setattr(store_module, "MERGED_ROWS", merged_rows)
    monkeypatch.setattr(store_module, "FLUSH_CHUNK", 2)
    rng = random.Random(seed)
    store = Store(tmp_path)
    with store.transaction() as txn:
        record = txn.create_table("t", TABLE)
    model: Model = {}
    freezes = merged = 0
    scans_write = merged_rows < 2 * overlay  # (else the overlays never hold more)
    first_read = 100 + 7 * seed
    for step in range(400):
        scanned = False
        with store.transaction() as txn:
            for _ in range(rng.randint(1, 3)):
                key = (rng.choice(PARTITIONS), rng.choice(RANGE_KEYS))
                if rng.random() < 0.3:
                    txn.delete_item(record, *key)
                    model.pop(key, None)
                else:
                    blob = b'{"n":%d}' % step
                    txn.put_encoded(record, *key, blob)
                    model[key] = blob
                if step >= first_read and rng.random() < 0.3:  # (its own, not yet committed)
                    scanned |= _read(txn, record, rng, model)
            # (a merge wrote nothing into SQLite; only a Scan may write first)
            assert not store._in_sqlite or (scans_write and scanned)
        if step < first_read:  # (the first read finds both overlays full of rows)
            continue
        freezes += store._frozen is not None
        merged += bool(store._overlay)
        scanned = False
        with store.transaction() as txn:
            for _ in range(2):
                scanned |= _read(txn, record, rng, model)
            assert not store._in_sqlite or (scans_write and scanned)
    assert (freezes > 5 or scans_write) and merged > 150  # (reads met both overlays often)
    store.close()
    store = Store(tmp_path)  # what was read is what a restart finds
    with store.transaction() as txn:
        reopened = txn.table("t")
        assert reopened is not None
        assert list(txn.items(reopened, decode=False)) == _expected(
            model, None, None, None, None, True)
    store.close()


def test_a_read_inside_a_transaction_that_wrote_sees_its_writes(tmp_path: Path) -> None:
    store = Store(tmp_path)
    with store.transaction() as txn:
        record = txn.create_table("t", TABLE)
    with store.transaction() as txn:
        txn.put_encoded(record, b"a", b"\x01", b"[1]")
    with store.transaction() as txn:
        txn.put_encoded(record, b"a", b"\x02", b"[2]")
        txn.delete_item(record, b"a", b"\x01")
        assert list(txn.items(record, b"a", decode=False)) == [(b"a", b"\x02", b"[2]")]
    with store.transaction() as txn:
        assert list(txn.items(record, b"a", decode=False)) == [(b"a", b"\x02", b"[2]")]
    store.close()


def test_an_outbox_read_often_lists_only_its_rows_not_yet_deleted(tmp_path: Path) -> None:
    """A change feed's outbox rows are put fresh and deleted once sent:
    they leave the list a read of the partition goes through as they
    leave the overlay, so each read costs the rows waiting, not every row
    ever sent."""
    store = Store(tmp_path)
    with store.transaction() as txn:
        record = txn.create_index(txn.create_table("t", TABLE), "$feed")
    for n in range(1, 1001):
        with store.transaction() as txn:
            txn.put_entry_encoded(record, "$feed", b"outbox", n.to_bytes(4, "big"), b"[%d]" % n,
                                  fresh=True)
        with store.transaction() as txn:
            sent = [rk for _, rk, _ in txn.items(record, b"outbox", index="$feed",
                                                 decode=False)]
            assert sent == [n.to_bytes(4, "big")]
            txn.delete_entry(record, "$feed", b"outbox", sent[0])
    assert sum(map(len, store._partitions.values())) == 0
    store.close()
