"""The store's own guarantees: one owner per data directory, all-or-nothing
transactions, and one operation undone alone inside a shared (group) commit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tally_table import TABLE, values_on_disk

from tallydb.engine.api import Engine, SpoiledBatchError
from tallydb.engine.errors import (
    ConditionalCheckFailedException,
    TransactionCanceledException,
    ValidationException,
)
from tallydb.engine.storage import Store, StoreInUseError, TableRecord


def _put(pk: str, n: int) -> dict[str, object]:
    return {"TableName": "tally", "Item": {"PK": {"S": pk}, "n": {"N": str(n)}}}


def test_a_data_directory_has_one_owner(tmp_path: Path) -> None:
    store = Store(tmp_path)
    other = subprocess.run(
        [sys.executable, "-c",
         f"from tallydb.engine.storage import Store; Store({str(tmp_path)!r})"],
        capture_output=True, text=True, timeout=60)
    assert other.returncode != 0
    assert "is in use by another tallydb process" in other.stderr
    with pytest.raises(StoreInUseError):
        Store(tmp_path)  # a second store in the same process too
    store.close()
    Store(tmp_path).close()  # free again once closed


def test_sqlites_memory_name_is_a_store_in_memory(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    store = Store(":memory:")
    assert store.directory is None
    engine = Engine(store)
    engine.call("CreateTable", TABLE)
    assert engine.call("ListTables", {})["TableNames"] == ["tally"]
    store.close()
    assert list(tmp_path.iterdir()) == []  # no directory named ":memory:"


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
    assert sorted((i["PK"]["S"], i["n"]["N"]) for i in items) == [
        ("a", "1"), ("b", "1"), ("x", "1")]
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


# -- the write-back of a group commit -------------------------------------------


def _update(pk: str) -> dict[str, object]:
    return {"TableName": "tally", "Key": {"PK": {"S": pk}}, "UpdateExpression": "ADD n :one",
            "ExpressionAttributeValues": {":one": {"N": "1"}}, "ReturnValues": "UPDATED_NEW"}


def _tally(engine: Engine) -> TableRecord:
    """The catalog's record of the tally table."""
    with engine.store.transaction() as txn:
        record = txn.table("tally")
    assert record is not None
    return record


def test_a_kept_write_is_read_back_before_it_reaches_sqlite(tmp_path: Path) -> None:
    engine = Engine(Store(tmp_path))
    engine.call("CreateTable", TABLE)
    record = _tally(engine)
    with engine.store.transaction() as txn:
        txn.put_item(record, b"a", b"", {"PK": {"S": "a"}, "n": {"N": "1"}})
        txn.put_item(record, b"a", b"", {"PK": {"S": "a"}, "n": {"N": "2"}})
        assert txn.get_item(record, b"a") == {"PK": {"S": "a"}, "n": {"N": "2"}}
        txn.put_item(record, b"b", b"", {"PK": {"S": "b"}})
        txn.delete_item(record, b"b")
        assert txn.get_item(record, b"b") is None
        assert txn.count_items(record)[0] == 1  # reads of many rows see kept writes
        txn.put_item(record, b"c", b"", {"PK": {"S": "c"}})
        assert [hk for hk, _, _ in txn.items(record)] == [b"a", b"c"]
    engine.close()
    assert values_on_disk(tmp_path) == {"a": "2", "c": "-"}


def test_a_rolled_back_write_back_writes_nothing(tmp_path: Path) -> None:
    engine = Engine(Store(tmp_path))
    engine.call("CreateTable", TABLE)
    engine.call("PutItem", _put("x", 1))
    record = _tally(engine)
    with pytest.raises(RuntimeError), engine.store.transaction() as txn:
        txn.put_item(record, b"a", b"", {"PK": {"S": "a"}})
        txn.delete_item(record, b"x")
        raise RuntimeError("a bug mid-batch")
    with engine.store.transaction() as txn:  # nothing kept leaks into the next
        pass
    engine.close()
    assert values_on_disk(tmp_path) == {"x": "1"}


def test_a_savepoint_after_kept_writes_undoes_only_its_own(tmp_path: Path) -> None:
    engine = Engine(Store(tmp_path))
    engine.call("CreateTable", TABLE)
    record = _tally(engine)
    with engine.store.transaction() as txn:
        txn.put_item(record, b"kept", b"", {"PK": {"S": "kept"}})
        with pytest.raises(RuntimeError), txn.savepoint():
            txn.put_item(record, b"kept", b"", {"PK": {"S": "kept"}, "n": {"N": "9"}})
            txn.put_item(record, b"undone", b"", {"PK": {"S": "undone"}})
            raise RuntimeError("an operation failing after it wrote")
        assert txn.get_item(record, b"kept") == {"PK": {"S": "kept"}}
        assert txn.get_item(record, b"undone") is None
    engine.close()
    assert values_on_disk(tmp_path) == {"kept": "-"}


def test_a_hot_counter_in_one_batch_counts_every_increment(tmp_path: Path) -> None:
    engine = Engine(Store(tmp_path))
    engine.call("CreateTable", TABLE)
    with engine.batch() as call:
        answers = [call("UpdateItem", _update("hot"))["Attributes"]["n"]["N"] for _ in range(100)]
        call("UpdateItem", _update("other"))
        with pytest.raises(ConditionalCheckFailedException):
            call("UpdateItem", {**_update("hot"), "ConditionExpression": "n < :one"})
        call("DeleteItem", {"TableName": "tally", "Key": {"PK": {"S": "other"}}})
        call("UpdateItem", _update("hot"))
    assert answers == [str(n) for n in range(1, 101)]
    engine.close()
    assert values_on_disk(tmp_path) == {"hot": "101"}


def test_an_operation_failing_after_its_write_rolls_the_batch_back(tmp_path: Path) -> None:
    """Put/Update/DeleteItem run without a savepoint because they raise every
    client error before writing; should one ever fail after writing, the batch
    must not commit half of it. (The failure is injected after a real write.)"""
    engine = Engine(Store(tmp_path))
    engine.call("CreateTable", TABLE)
    engine.call("PutItem", _put("x", 1))
    real = engine._run

    def update_fails_after_writing(txn: object, operation: str, request: dict[str, object],
                                   access: object = None) -> object:
        response = real(txn, operation, request, access)  # type: ignore[arg-type]
        if operation == "UpdateItem":
            raise ConditionalCheckFailedException()
        return response

    engine._run = update_fails_after_writing  # type: ignore[assignment]
    with pytest.raises(SpoiledBatchError), engine.batch() as call:
        call("PutItem", _put("a", 1))
        with pytest.raises(ConditionalCheckFailedException):
            call("UpdateItem", _update("x"))
        call("PutItem", _put("b", 1))
    engine._run = real
    assert engine.call("GetItem", {"TableName": "tally", "Key": {"PK": {"S": "x"}}})["Item"][
        "n"] == {"N": "1"}  # the store is usable and nothing of the batch was committed
    engine.close()
    assert values_on_disk(tmp_path) == {"x": "1"}


def _batch_write(*puts: tuple[str, int]) -> dict[str, object]:
    return {"RequestItems": {"tally": [{"PutRequest": {"Item": _put(pk, n)["Item"]}}
                                       for pk, n in puts]}}


def test_a_batch_write_raises_every_client_error_before_it_writes(tmp_path: Path) -> None:
    """BatchWriteItem runs in a batch without a savepoint, as PutItem does: a
    refused one wrote nothing, so the batch's other writes commit alone."""
    engine = Engine(Store(tmp_path))
    engine.call("CreateTable", TABLE)
    with engine.batch() as call:
        call("PutItem", _put("a", 1))
        with pytest.raises(ValidationException, match="duplicates"):
            call("BatchWriteItem", _batch_write(("b", 1), ("c", 1), ("c", 2)))
        wrong_key = _batch_write(("d", 1), ("e", 1))
        wrong_key["RequestItems"]["tally"][1]["PutRequest"]["Item"]["PK"] = {"N": "1"}  # type: ignore[index]
        with pytest.raises(ValidationException, match="key element does not match"):
            call("BatchWriteItem", wrong_key)
        call("BatchWriteItem", _batch_write(("f", 1), ("g", 2)))
    engine.close()
    assert values_on_disk(tmp_path) == {"a": "1", "f": "1", "g": "2"}


def test_a_batch_write_failing_after_it_wrote_rolls_the_batch_back(tmp_path: Path) -> None:
    engine = Engine(Store(tmp_path))
    engine.call("CreateTable", TABLE)
    real = engine._run

    def fails_after_writing(txn: object, operation: str, request: dict[str, object],
                            access: object = None) -> object:
        response = real(txn, operation, request, access)  # type: ignore[arg-type]
        if operation == "BatchWriteItem":
            raise RuntimeError("failed after writing")
        return response

    engine._run = fails_after_writing  # type: ignore[assignment]
    with pytest.raises(SpoiledBatchError), engine.batch() as call:
        call("PutItem", _put("a", 1))
        with pytest.raises(RuntimeError):
            call("BatchWriteItem", _batch_write(("b", 1), ("c", 1)))
    engine._run = real
    engine.close()
    assert values_on_disk(tmp_path) == {}


def test_savepointed_and_paged_operations_see_the_kept_writes(tmp_path: Path) -> None:
    """Kept writes are written out before a savepoint (a transaction) and a
    Scan, so both see them, and a transaction that fails undoes only itself."""
    engine = Engine(Store(tmp_path))
    engine.call("CreateTable", TABLE)

    def transact(expected: str) -> dict[str, object]:
        return {"TransactItems": [{"Update": {
            **{k: v for k, v in _update("hot").items() if k != "ReturnValues"},
            "ConditionExpression": "n = :seen",
            "ExpressionAttributeValues": {":one": {"N": "1"}, ":seen": {"N": expected}}}}]}

    with engine.batch() as call:
        for _ in range(3):
            call("UpdateItem", _update("hot"))
        call("TransactWriteItems", transact("3"))  # saw n = 3, made it 4
        with pytest.raises(TransactionCanceledException):
            call("TransactWriteItems", transact("3"))
        assert call("UpdateItem", _update("hot"))["Attributes"]["n"] == {"N": "5"}
        call("UpdateItem", _update("other"))
        assert call("Scan", {"TableName": "tally"})["Count"] == 2
        assert call("DescribeTable", {"TableName": "tally"})["Table"]["ItemCount"] == 2
    engine.close()
    assert values_on_disk(tmp_path) == {"hot": "5", "other": "1"}
