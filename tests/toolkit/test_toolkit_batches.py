"""Batches on every store: batch_writer (25 a request) and batch_get (100 a request)."""

from __future__ import annotations

from typing import Any

import pytest
import tallydb.aio
from toolkit_stores import unique

import tallydb
from tallydb.toolkit.batch import p_batch_write


class Requests:
    """Counts the requests a database's transport sends, by operation."""

    def __init__(self, db: Any) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []
        transport = db.transport
        original = transport.send

        def send(step: Any) -> Any:
            self.sent.append((step.operation, step.request))
            return original(step)

        transport.send = send

    def of(self, operation: str) -> list[dict[str, Any]]:
        return [r for op, r in self.sent if op == operation]


def test_batch_writer_puts_and_deletes_25_a_request(
    db: tallydb.Database, videos: tallydb.Table
) -> None:
    videos.put({"PK": "gone", "SK": "0"})
    requests = Requests(db)
    with videos.batch_writer() as batch:
        for i in range(60):
            batch.put({"PK": "v", "SK": f"{i:03}", "n": i})
        batch.delete({"PK": "gone", "SK": "0"})
    sizes = [len(r["RequestItems"][videos.name]) for r in requests.of("BatchWriteItem")]
    assert sizes == [25, 25, 11]
    assert videos.count({"PK": "v"}, consistent=True) == 60
    assert videos.get({"PK": "gone", "SK": "0"}, consistent=True) is None


def test_batch_writer_keeps_the_last_write_of_a_key(videos: tallydb.Table) -> None:
    """DynamoDB refuses two writes of one key in a BatchWriteItem ("Provided
    list of item keys contains duplicates"); the writer keeps the last, as
    boto3's overwrite_by_pkeys does."""
    with videos.batch_writer() as batch:
        batch.put({"PK": "v", "SK": "1", "title": "first"})
        batch.put({"PK": "v", "SK": "1", "title": "second"})
        batch.put({"PK": "v", "SK": "2"})
        batch.delete({"PK": "v", "SK": "2"})
    assert videos.get({"PK": "v", "SK": "1"}, consistent=True) == {
        "PK": "v", "SK": "1", "title": "second"}
    assert videos.get({"PK": "v", "SK": "2"}, consistent=True) is None


def test_batch_writer_refuses_an_item_without_its_key(videos: tallydb.Table) -> None:
    with videos.batch_writer() as batch, pytest.raises(ValueError, match="SK"):
        batch.put({"PK": "v"})


def test_duplicate_keys_in_one_request_are_dynamodbs_error(videos: tallydb.Table) -> None:
    """What the writer avoids: DynamoDB's own answer to duplicates."""
    put = {"PutRequest": {"Item": {"PK": {"S": "v"}, "SK": {"S": "1"}}}}
    with pytest.raises(tallydb.ValidationException, match="duplicates"):
        videos.transport.run(p_batch_write(videos.name, [put, put]))


def test_batch_get_100_a_request_in_the_order_asked(
    db: tallydb.Database, videos: tallydb.Table
) -> None:
    with videos.batch_writer() as batch:
        for i in range(150):
            batch.put({"PK": "v", "SK": f"{i:03}", "n": i})
    keys = [{"PK": "v", "SK": f"{i:03}"} for i in reversed(range(160))]
    keys.append({"PK": "v", "SK": "005"})  # asked twice, sent once
    requests = Requests(db)
    items = videos.batch_get(keys, consistent=True)
    assert [item["n"] for item in items] == list(reversed(range(150)))
    sizes = [len(r["RequestItems"][videos.name]["Keys"]) for r in requests.of("BatchGetItem")]
    assert sizes == [100, 60]
    projected = videos.batch_get([{"PK": "v", "SK": "001"}], projection=["n"])
    assert projected == [{"PK": "v", "SK": "001", "n": 1}]


def test_unprocessed_items_are_sent_again(db: tallydb.Database, videos: tallydb.Table) -> None:
    """DynamoDB answers a throttled batch with UnprocessedItems; here the
    first answer is made to leave some out, and they are sent again."""
    transport = db.transport
    original = transport.send
    answers: list[dict[str, Any]] = []

    def send(step: Any) -> Any:
        if step.operation == "BatchWriteItem" and not answers:
            ((table, requests),) = step.request["RequestItems"].items()
            done = original(type(step)(step.operation, {"RequestItems": {table: requests[:3]}}))
            answers.append(done)
            return {"UnprocessedItems": {table: requests[3:]}}
        return original(step)

    transport.send = send  # type: ignore[method-assign]
    with videos.batch_writer() as batch:
        for i in range(10):
            batch.put({"PK": "v", "SK": str(i)})
    assert videos.count({"PK": "v"}, consistent=True) == 10


def test_async_batches(store: str, request: pytest.FixtureRequest) -> None:
    from test_toolkit_aio import run

    async def body(db: Any) -> None:
        table = await db.create_table(unique("batch"), hash_key=("id", "S"))
        async with table.batch_writer() as batch:
            for i in range(30):
                await batch.put({"id": str(i), "n": i})
            await batch.delete({"id": "0"})
        items = await table.batch_get([{"id": str(i)} for i in range(30)])
        assert [item["n"] for item in items] == list(range(1, 30))
        await db.delete_table(table.name)

    run(store, request, body)
