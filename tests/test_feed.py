"""The change feed (tallydb.engine.feed): every committed item change once, in
commit order, after COMMIT; nothing that rolled back, nothing that changed
nothing, and nothing recorded while nobody listens."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

import pytest
from botocore.exceptions import ClientError

from tallydb.engine.api import Engine
from tallydb.engine.feed import Change, changes_of, record
from tallydb.engine.storage import Store
from tallydb.toolkit import inprocess

ONE = {":one": {"N": "1"}}


@pytest.fixture
def engine() -> Iterator[Engine]:
    engine = Engine(Store(None))
    client = inprocess.client(engine)
    client.create_table(
        TableName="tbl", BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    yield engine
    engine.close()


class Seen(list[tuple[int, Change]]):
    """A listener keeping (sequence number, change) pairs."""

    def __call__(self, first: int, changes: Sequence[Change]) -> None:
        self.extend(enumerate(changes, first))


def listen(engine: Engine) -> Seen:
    got = Seen()
    engine.feed.subscribe(got)
    return got


def add(client: Any, key: str) -> None:
    client.update_item(TableName="tbl", Key={"pk": {"S": key}},
                       UpdateExpression="ADD n :one", ExpressionAttributeValues=ONE)


def test_each_committed_change_is_published_once_in_commit_order(engine: Engine) -> None:
    got = listen(engine)
    client = inprocess.client(engine)
    for _ in range(3):
        add(client, "a")
    client.delete_item(TableName="tbl", Key={"pk": {"S": "a"}})
    assert [(seq - got[0][0], c.event) for seq, c in got] == [
        (0, "INSERT"), (1, "MODIFY"), (2, "MODIFY"), (3, "REMOVE")]
    assert [c.new and c.new["n"] for _, c in got] == [{"N": "1"}, {"N": "2"}, {"N": "3"}, None]
    assert got[1][1].old == {"pk": {"S": "a"}, "n": {"N": "1"}}
    assert all(c.keys == {"pk": {"S": "a"}} and c.table == "tbl" for _, c in got)


def test_a_write_that_changes_nothing_is_no_change(engine: Engine) -> None:
    client = inprocess.client(engine)
    client.put_item(TableName="tbl", Item={"pk": {"S": "a"}, "v": {"S": "x"}})
    got = listen(engine)
    client.put_item(TableName="tbl", Item={"pk": {"S": "a"}, "v": {"S": "x"}})
    client.delete_item(TableName="tbl", Key={"pk": {"S": "missing"}})
    assert got == []


def test_failed_writes_publish_nothing(engine: Engine) -> None:
    got = listen(engine)
    client = inprocess.client(engine)
    with pytest.raises(ClientError):
        client.put_item(TableName="tbl", Item={"pk": {"S": "b"}},
                        ConditionExpression="attribute_exists(pk)")
    with pytest.raises(ClientError):  # the second action's condition cancels the first's put
        client.transact_write_items(TransactItems=[
            {"Put": {"TableName": "tbl", "Item": {"pk": {"S": "x"}}}},
            {"ConditionCheck": {"TableName": "tbl", "Key": {"pk": {"S": "y"}},
                                "ConditionExpression": "attribute_exists(pk)"}}])
    assert got == []


def test_a_transaction_publishes_one_change_per_item(engine: Engine) -> None:
    got = listen(engine)
    inprocess.client(engine).transact_write_items(TransactItems=[
        {"Put": {"TableName": "tbl", "Item": {"pk": {"S": "x"}}}},
        {"Update": {"TableName": "tbl", "Key": {"pk": {"S": "y"}},
                    "UpdateExpression": "ADD n :one", "ExpressionAttributeValues": ONE}}])
    assert [(c.keys["pk"]["S"], c.event) for _, c in got] == [("x", "INSERT"), ("y", "INSERT")]


def test_a_batch_publishes_after_its_commit_without_the_writes_that_failed(
        engine: Engine) -> None:
    seen_inside: list[int] = []
    got = listen(engine)
    with engine.batch() as call:
        call("UpdateItem", {"TableName": "tbl", "Key": {"pk": {"S": "a"}},
                            "UpdateExpression": "ADD n :one", "ExpressionAttributeValues": ONE})
        with pytest.raises(Exception):  # noqa: B017 - a failed write inside the batch
            call("BatchWriteItem", {"RequestItems": {"tbl": [
                {"PutRequest": {"Item": {"pk": {"S": "b"}}}},
                {"PutRequest": {"Item": {"pk": {"S": "c"}, "n": {"N": "x"}}}}]}})
        call("UpdateItem", {"TableName": "tbl", "Key": {"pk": {"S": "a"}},
                            "UpdateExpression": "ADD n :one", "ExpressionAttributeValues": ONE})
        seen_inside.append(len(got))
    assert seen_inside == [0]
    assert [(c.keys["pk"]["S"], c.new and c.new["n"]["N"], c.writes) for _, c in got] == [
        ("a", "2", 2)]


def test_a_run_of_writes_to_one_item_in_a_batch_is_one_change_of_that_many_writes(
        engine: Engine) -> None:
    got = listen(engine)
    update = {"TableName": "tbl", "Key": {"pk": {"S": "a"}},
              "UpdateExpression": "ADD n :one", "ExpressionAttributeValues": ONE}
    with engine.batch() as call:
        for _ in range(5):
            call("UpdateItem", update)
        call("UpdateItem", {**update, "Key": {"pk": {"S": "b"}}})
        call("UpdateItem", update)
    assert [(c.keys["pk"]["S"], c.old, c.new, c.writes, c.event) for _, c in got] == [
        ("a", None, {"pk": {"S": "a"}, "n": {"N": "5"}}, 5, "INSERT"),
        ("b", None, {"pk": {"S": "b"}, "n": {"N": "1"}}, 1, "INSERT"),
        ("a", {"pk": {"S": "a"}, "n": {"N": "5"}}, {"pk": {"S": "a"}, "n": {"N": "6"}}, 1,
         "MODIFY")]


def test_a_rolled_back_write_never_joins_a_change() -> None:
    store = Store(None)
    published: list[list[Change]] = []
    store.on_commit = lambda journal: published.append(changes_of(journal))

    class Table:
        name = "tbl"
        description: ClassVar[dict[str, Any]] = {
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}

    table = Table()

    def image(n: int) -> dict[str, Any]:
        return {"pk": {"S": "a"}, "n": {"N": str(n)}}

    with store.transaction() as txn:
        assert txn.journal is not None
        record(txn.journal, txn.segment, table, b"a", b"", None, image(1))
        record(txn.journal, txn.segment, table, b"a", b"", image(1), image(2))
        with pytest.raises(ValueError), txn.savepoint():  # an operation that fails
            record(txn.journal, txn.segment, table, b"a", b"", image(2), image(100))
            raise ValueError
        record(txn.journal, txn.segment, table, b"a", b"", image(2), image(3))
    store.close()
    assert [[(c.old and c.old["n"]["N"], c.new and c.new["n"]["N"], c.writes)
             for c in changes] for changes in published] == [[(None, "2", 2), ("2", "3", 1)]]


def test_nothing_is_recorded_while_nobody_listens(engine: Engine) -> None:
    client = inprocess.client(engine)
    assert engine.store.on_commit is None
    got = Seen()
    stop_first = engine.feed.subscribe(got)
    stop_second = engine.feed.subscribe(lambda first, changes: None)
    assert engine.store.on_commit is not None
    add(client, "a")
    stop_second()
    assert engine.store.on_commit is not None  # the first listener is still there
    stop_first()
    assert engine.store.on_commit is None
    add(client, "a")
    assert len(got) == 1


def test_positions_from_before_listening_began_are_never_reused(engine: Engine) -> None:
    client = inprocess.client(engine)
    got = Seen()
    stop = engine.feed.subscribe(got)
    add(client, "a")
    stop()
    add(client, "a")  # unseen: nobody listens
    engine.feed.subscribe(got)
    add(client, "a")
    assert got[1][0] > got[0][0] + 1  # a gap marks what went unseen


def test_listeners_see_concurrent_writers_in_commit_order(engine: Engine) -> None:
    got = Seen()
    engine.feed.subscribe(got)

    def writer() -> None:
        client = inprocess.client(engine)
        for _ in range(100):
            add(client, "hot")

    threads = [threading.Thread(target=writer) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [seq for seq, _ in got] == list(range(got[0][0], got[0][0] + 400))
    assert [int(c.new["n"]["N"]) for _, c in got if c.new] == list(range(1, 401))
