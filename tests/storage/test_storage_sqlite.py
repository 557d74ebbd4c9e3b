"""The store's own guarantees: one owner per data directory, all-or-nothing
transactions, and one operation undone alone inside a shared (group) commit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tallydb.api import Engine
from tallydb.errors import ConditionalCheckFailedException
from tallydb.storage import Store, StoreInUseError

TABLE = {
    "TableName": "tally",
    "BillingMode": "PAY_PER_REQUEST",
    "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
    "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
}


def _put(pk: str, n: int) -> dict[str, object]:
    return {"TableName": "tally", "Item": {"PK": {"S": pk}, "n": {"N": str(n)}}}


def test_a_data_directory_has_one_owner(tmp_path: Path) -> None:
    store = Store(tmp_path)
    other = subprocess.run(
        [sys.executable, "-c", f"from tallydb.storage import Store; Store({str(tmp_path)!r})"],
        capture_output=True, text=True, timeout=60)
    assert other.returncode != 0
    assert "is in use by another tallydb process" in other.stderr
    with pytest.raises(StoreInUseError):
        Store(tmp_path)  # a second store in the same process too
    store.close()
    Store(tmp_path).close()  # free again once closed


def test_a_failed_transaction_changes_nothing(tmp_path: Path) -> None:
    engine = Engine(Store(tmp_path))
    engine.call("CreateTable", TABLE)
    with pytest.raises(RuntimeError), engine.store.transaction() as txn:
        record = txn.table("tally")
        assert record is not None
        txn.put_item(record, b"a", b"", {"PK": {"S": "a"}})
        txn.delete_table(record)
        raise RuntimeError("a bug mid-transaction")
    assert engine.call("DescribeTable", {"TableName": "tally"})["Table"]["ItemCount"] == 0
    engine.close()


def test_a_failed_operation_in_a_batch_is_undone_alone(tmp_path: Path) -> None:
    engine = Engine(Store(tmp_path))
    engine.call("CreateTable", TABLE)
    engine.call("PutItem", _put("x", 1))
    with engine.batch() as call:
        call("PutItem", _put("a", 1))
        with pytest.raises(ConditionalCheckFailedException):
            call("PutItem", {**_put("x", 2), "ConditionExpression": "attribute_not_exists(PK)"})
        call("PutItem", _put("b", 1))
    engine.close()
    engine = Engine(Store(tmp_path))  # what was committed, read back from disk
    items = engine.call("Scan", {"TableName": "tally"})["Items"]
    assert sorted((i["PK"]["S"], i["n"]["N"]) for i in items) == [("a", "1"), ("b", "1"), ("x", "1")]
    engine.close()


def test_a_savepoint_undoes_its_own_writes_only(tmp_path: Path) -> None:
    engine = Engine(Store(tmp_path))
    engine.call("CreateTable", TABLE)
    with engine.store.transaction() as txn:
        record = txn.table("tally")
        assert record is not None
        txn.put_item(record, b"kept", b"", {"PK": {"S": "kept"}})
        with pytest.raises(RuntimeError), txn.savepoint():
            txn.put_item(record, b"undone", b"", {"PK": {"S": "undone"}})
            txn.create_table("other", dict(TABLE, TableName="other"))
            raise RuntimeError("an operation failing after it wrote")
        assert txn.table("other") is None
    items = engine.call("Scan", {"TableName": "tally"})["Items"]
    assert [i["PK"]["S"] for i in items] == ["kept"]
    assert engine.call("ListTables", {})["TableNames"] == ["tally"]
    engine.close()
