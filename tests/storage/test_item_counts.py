"""DescribeTable's ItemCount and TableSizeBytes are kept as items are
written, not counted by a scan: exact after every kind of write, after a
rollback, after a crash and replay, for indexes too, and for a database
made before counts were kept."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from tally_table import TABLE

from tallydb.engine.api import Engine
from tallydb.engine.errors import DynamoDBError
from tallydb.engine.storage import Store

INDEXED = {
    **TABLE,
    "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"},
                             {"AttributeName": "kind", "AttributeType": "S"}],
    "GlobalSecondaryIndexes": [{
        "IndexName": "by_kind", "KeySchema": [{"AttributeName": "kind", "KeyType": "HASH"}],
        "Projection": {"ProjectionType": "ALL"}}],
}


def scanned(engine: Engine, index: str | None = None) -> tuple[int, int]:
    """What a full scan of the stored rows says (the figures to match)."""
    with engine.store.transaction() as txn:
        record = txn.table("tally")
        assert record is not None
        source = record.items_table if index is None else record.index_table(index)
        txn._store._sync_items()
        row = txn._conn.execute(
            f"SELECT count(*), coalesce(sum(length(item)), 0) FROM {source}").fetchone()
        return int(row[0]), int(row[1])


def described(engine: Engine) -> dict[str, Any]:
    table: dict[str, Any] = engine.call("DescribeTable", {"TableName": "tally"})["Table"]
    return table


def counted_exactly(engine: Engine) -> dict[str, Any]:
    """DescribeTable's answer, once its figures (and its index's) are
    checked against a scan of the stored rows."""
    table = described(engine)
    assert (table["ItemCount"], table["TableSizeBytes"]) == scanned(engine)
    for index in table.get("GlobalSecondaryIndexes", []):
        assert (index["ItemCount"], index["IndexSizeBytes"]) == scanned(
            engine, index["IndexName"])
    return table


def put(engine: Engine, pk: str, **attributes: str) -> None:
    item = {"PK": {"S": pk}, **{k: {"S": v} for k, v in attributes.items()}}
    engine.call("PutItem", {"TableName": "tally", "Item": item})


def test_counts_follow_puts_updates_and_deletes(tmp_path: Path) -> None:
    engine = Engine(Store(tmp_path))
    engine.call("CreateTable", INDEXED)
    assert (described(engine)["ItemCount"], described(engine)["TableSizeBytes"]) == (0, 0)
    for i in range(200):
        put(engine, f"p{i}", kind="odd" if i % 2 else "even")
    for i in range(0, 200, 3):
        engine.call("UpdateItem", {"TableName": "tally", "Key": {"PK": {"S": f"p{i}"}},
                                   "UpdateExpression": "SET extra = :x REMOVE kind",
                                   "ExpressionAttributeValues": {":x": {"S": "x" * i}}})
    for i in range(0, 200, 7):
        engine.call("DeleteItem", {"TableName": "tally", "Key": {"PK": {"S": f"p{i}"}}})
    engine.call("BatchWriteItem", {"RequestItems": {"tally": [
        {"PutRequest": {"Item": {"PK": {"S": f"b{i}"}, "kind": {"S": "odd"}}}}
        for i in range(25)]}})
    table = counted_exactly(engine)
    assert table["ItemCount"] == 200 - len(range(0, 200, 7)) + 25
    engine.close()


def test_a_rolled_back_write_is_not_counted(tmp_path: Path) -> None:
    engine = Engine(Store(tmp_path))
    engine.call("CreateTable", TABLE)
    put(engine, "a")
    with engine.batch() as call:
        call("PutItem", {"TableName": "tally", "Item": {"PK": {"S": "b"}}})
        with pytest.raises(DynamoDBError):  # its first put is undone with its savepoint
            call("BatchWriteItem", {"RequestItems": {"tally": [
                {"PutRequest": {"Item": {"PK": {"S": "c"}}}},
                {"PutRequest": {"Item": {"PK": {"S": "d"}, "n": {"N": "x"}}}}]}})
    with pytest.raises(RuntimeError), engine.store.transaction():
        engine.call("PutItem", {"TableName": "tally", "Item": {"PK": {"S": "e"}}})
        raise RuntimeError("roll back")
    assert described(engine)["ItemCount"] == 2
    assert (described(engine)["ItemCount"], described(engine)["TableSizeBytes"]) == scanned(
        engine)
    engine.close()


def test_counts_survive_a_crash_and_the_log_replay(tmp_path: Path) -> None:
    engine = Engine(Store(tmp_path))
    engine.call("CreateTable", TABLE)
    engine.close()
    # A process that commits to the item log (below the overlay's flush)
    # and dies without closing the store.
    script = textwrap.dedent(f"""
        import os
        from tallydb.engine.api import Engine
        from tallydb.engine.storage import Store
        engine = Engine(Store({str(tmp_path)!r}))
        for i in range(40):
            engine.call("PutItem", {{"TableName": "tally", "Item": {{"PK": {{"S": f"k{{i}}"}}}}}})
        engine.call("DeleteItem", {{"TableName": "tally", "Key": {{"PK": {{"S": "k3"}}}}}})
        os._exit(0)
    """)
    subprocess.run([sys.executable, "-c", script], check=True)
    engine = Engine(Store(tmp_path))
    assert described(engine)["ItemCount"] == 39
    assert (described(engine)["ItemCount"], described(engine)["TableSizeBytes"]) == scanned(
        engine)
    engine.close()


def test_a_database_made_before_counts_were_kept_is_counted_once_at_open(
        tmp_path: Path) -> None:
    engine = Engine(Store(tmp_path))
    engine.call("CreateTable", INDEXED)
    for i in range(30):
        put(engine, f"p{i}", kind="k")
    engine.close()
    with sqlite3.connect(tmp_path / "tallydb.sqlite3") as conn:
        conn.execute("DELETE FROM item_counts")
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"
                                    ).fetchall():
            conn.execute(f'DROP TRIGGER "{name}"')
    engine = Engine(Store(tmp_path))
    table = described(engine)
    assert table["ItemCount"] == 30
    assert table["GlobalSecondaryIndexes"][0]["ItemCount"] == 30
    put(engine, "later", kind="k")
    assert described(engine)["ItemCount"] == 31
    engine.close()


def test_deleting_a_table_forgets_its_counts(tmp_path: Path) -> None:
    engine = Engine(Store(tmp_path))
    engine.call("CreateTable", INDEXED)
    put(engine, "a", kind="k")
    engine.call("DeleteTable", {"TableName": "tally"})
    engine.call("CreateTable", TABLE)
    assert described(engine)["ItemCount"] == 0
    with engine.store.transaction() as txn:
        sources = [row[0] for row in txn._conn.execute("SELECT source FROM item_counts")]
        record = txn.table("tally")
        assert record is not None
        assert sources == [record.items_table]
    engine.close()


def add(engine: Engine, pk: str, by: int) -> None:
    engine.call("UpdateItem", {"TableName": "tally", "Key": {"PK": {"S": pk}},
                               "UpdateExpression": "ADD n :by",
                               "ExpressionAttributeValues": {":by": {"N": str(by)}}})


def test_a_counter_rewritten_at_its_old_length_or_a_new_one_keeps_the_figures_exact(
        tmp_path: Path) -> None:
    engine = Engine(Store(tmp_path))
    engine.call("CreateTable", TABLE)
    for _ in range(12):  # 1..12: "9" to "10" makes each row longer
        for i in range(40):
            add(engine, f"c{i}", 1)
        described(engine)  # (its count puts every row written so far into SQLite)
    add(engine, "c0", -100)  # 12 to -88: longer by one
    add(engine, "c1", -2)  # 12 to 10: as long
    counted_exactly(engine)
    engine.close()
    engine = Engine(Store(tmp_path))
    assert (described(engine)["ItemCount"], described(engine)["TableSizeBytes"]) == scanned(
        engine)
    engine.close()


def test_a_database_with_the_earlier_update_trigger_gets_todays_at_open(tmp_path: Path) -> None:
    engine = Engine(Store(tmp_path))
    engine.call("CreateTable", INDEXED)
    for i in range(30):
        put(engine, f"p{i}", kind="k")
    engine.close()
    with sqlite3.connect(tmp_path / "tallydb.sqlite3") as conn:  # the trigger before WHEN
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' "
                                    "AND name LIKE '%updated'").fetchall():
            source = name.removesuffix("_updated")
            conn.execute(f'DROP TRIGGER "{name}"')
            conn.execute(f"""CREATE TRIGGER "{name}" AFTER UPDATE OF item ON {source} BEGIN
                UPDATE item_counts SET bytes = bytes + length(NEW.item) - length(OLD.item)
                WHERE source = '{source}'; END""")
    engine = Engine(Store(tmp_path))
    with sqlite3.connect(tmp_path / "tallydb.sqlite3") as conn:
        triggers = dict(conn.execute("SELECT name, sql FROM sqlite_master "
                                     "WHERE type = 'trigger' AND name LIKE '%updated'"))
    assert len(triggers) == 2  # the table's and the index's
    assert all("WHEN length(NEW.item) != length(OLD.item)" in sql for sql in triggers.values())
    for i in range(30):
        put(engine, f"p{i}", kind="k" * (i % 3 + 1))  # index entries longer or as long
    counted_exactly(engine)
    engine.close()


def test_a_bulk_write_of_new_keys_among_held_ones_counts_each_new_one_once(
        tmp_path: Path) -> None:
    engine = Engine(Store(tmp_path))
    engine.call("CreateTable", INDEXED)
    for i in range(10):
        put(engine, f"held{i}", kind="k")
    described(engine)  # (its count puts every row written so far into SQLite)
    with engine.batch() as call:  # one bulk write: new keys first, then held ones, then new
        for i in range(5):
            call("PutItem", {"TableName": "tally", "Item": {
                "PK": {"S": f"new{i}"}, "kind": {"S": "k"}}})
        for i in range(5):  # longer, and the first of them as long as it was
            call("PutItem", {"TableName": "tally", "Item": {
                "PK": {"S": f"held{i}"}, "kind": {"S": "k" * (1 + i)}}})
        for i in range(5, 10):
            call("PutItem", {"TableName": "tally", "Item": {
                "PK": {"S": f"new{i}"}, "kind": {"S": "kk"}}})
        call("DeleteItem", {"TableName": "tally", "Key": {"PK": {"S": "held9"}}})
    table = counted_exactly(engine)
    assert table["ItemCount"] == 19
    engine.close()


def test_writes_inside_a_savepoint_count_new_and_held_keys(tmp_path: Path) -> None:
    engine = Engine(Store(tmp_path))
    engine.call("CreateTable", TABLE)
    put(engine, "held", n="1")
    described(engine)
    with engine.batch() as call:  # (in a group commit, an operation of its own savepoint)
        call("TransactWriteItems", {"TransactItems": [
            {"Put": {"TableName": "tally", "Item": {"PK": {"S": "held"}, "n": {"S": "12345"}}}},
            {"Put": {"TableName": "tally", "Item": {"PK": {"S": "fresh"}, "n": {"S": "1"}}}},
            {"Update": {"TableName": "tally", "Key": {"PK": {"S": "other"}},
                        "UpdateExpression": "SET n = :n",
                        "ExpressionAttributeValues": {":n": {"S": "22"}}}},
        ]})
    table = counted_exactly(engine)
    assert table["ItemCount"] == 3
    engine.close()


def test_tables_restored_or_copied_are_counted(tmp_path: Path) -> None:
    engine = Engine(Store(tmp_path))
    engine.call("CreateTable", INDEXED)
    engine.call("UpdateContinuousBackups", {
        "TableName": "tally",
        "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True}})
    for i in range(20):
        put(engine, f"p{i}", kind="k" * (i % 4 + 1))
    arn = engine.call("CreateBackup", {"TableName": "tally", "BackupName": "kept"}
                      )["BackupDetails"]["BackupArn"]
    engine.call("RestoreTableFromBackup", {"TargetTableName": "from_backup", "BackupArn": arn})
    engine.call("RestoreTableToPointInTime", {
        "SourceTableName": "tally", "TargetTableName": "in_time",
        "UseLatestRestorableTime": True})
    expected = described(engine)
    assert expected["ItemCount"] == 20
    for name in ("from_backup", "in_time"):
        table = engine.call("DescribeTable", {"TableName": name})["Table"]
        assert (table["ItemCount"], table["TableSizeBytes"]) == (
            expected["ItemCount"], expected["TableSizeBytes"])
        index = table["GlobalSecondaryIndexes"][0]
        assert (index["ItemCount"], index["IndexSizeBytes"]) == scanned(engine, "by_kind")
    engine.close()


def test_a_database_with_the_earlier_insert_trigger_loses_it_and_keeps_its_figures(
        tmp_path: Path) -> None:
    engine = Engine(Store(tmp_path))
    engine.call("CreateTable", INDEXED)
    for i in range(30):
        put(engine, f"p{i}", kind="k")
    engine.close()
    with sqlite3.connect(tmp_path / "tallydb.sqlite3") as conn:  # as the data was written before
        sources = [row[0] for row in conn.execute("SELECT source FROM item_counts")]
        assert len(sources) == 2
        for source in sources:
            conn.execute(f"""CREATE TRIGGER "{source}_inserted" AFTER INSERT ON {source} BEGIN
                UPDATE item_counts SET items = items + 1, bytes = bytes + length(NEW.item)
                WHERE source = '{source}'; END""")
    engine = Engine(Store(tmp_path))
    with sqlite3.connect(tmp_path / "tallydb.sqlite3") as conn:
        names = [row[0] for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger'")]
    assert not [name for name in names if name.endswith("_inserted")]
    assert len(names) == 4  # each source's update and delete triggers
    assert described(engine)["ItemCount"] == 30
    for i in range(25, 40):  # some held, some new: each new one counted once
        put(engine, f"p{i}", kind="kk")
    table = counted_exactly(engine)
    assert table["ItemCount"] == 40
    engine.close()


def test_rows_read_from_sqlite_then_rewritten_among_new_ones_are_counted_once(
        tmp_path: Path) -> None:
    engine = Engine(Store(tmp_path))
    engine.call("CreateTable", TABLE)
    for i in range(10):
        add(engine, f"held{i}", 9)
    engine.close()
    engine = Engine(Store(tmp_path))  # nothing cached: each held row is read from SQLite
    with engine.batch() as call:
        for name in [f"new{i}" for i in range(5)] + [f"held{i}" for i in range(10)] + [
                f"new{i}" for i in range(5, 10)]:
            call("UpdateItem", {"TableName": "tally", "Key": {"PK": {"S": name}},
                                "UpdateExpression": "ADD n :by",
                                "ExpressionAttributeValues": {":by": {"N": "1"}}})
    table = counted_exactly(engine)
    assert table["ItemCount"] == 20
    engine.close()
