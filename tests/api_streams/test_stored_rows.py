"""A transaction's records are stored as one row, each record's old image
kept once (as the record before's new one, where it is): GetRecords gives
each record the images of its own change, whichever items a group commit's
changes take turns on and whatever kinds of change it mixes."""

from __future__ import annotations

from typing import Any

import pytest
from streamkit import read_all, table_with_stream
from tallytest import CLIENT_CONFIG

from tallydb.engine.api import Engine
from tallydb.engine.storage import Store
from tallydb.toolkit import inprocess


@pytest.fixture
def engine(tmp_path: Any) -> Any:
    engine = Engine(Store(tmp_path))
    yield engine
    engine.close()


def _add(table: str, pk: str, by: int = 1) -> dict[str, Any]:
    return {"TableName": table, "Key": {"PK": {"S": pk}, "SK": {"S": "1"}},
            "UpdateExpression": "ADD n :by", "ExpressionAttributeValues": {":by": {"N": str(by)}}}


def _images(record: dict[str, Any]) -> tuple[str, str, str | None, str | None]:
    change = record["dynamodb"]
    old, new = change.get("OldImage"), change.get("NewImage")
    return (record["eventName"], change["Keys"]["PK"]["S"],
            None if old is None else old["n"]["N"], None if new is None else new["n"]["N"])


def test_each_record_of_a_group_commit_has_the_images_of_its_own_change(engine: Engine) -> None:
    ddb = inprocess.client(engine, config=CLIENT_CONFIG)
    streams = inprocess.streams_client(engine, config=CLIENT_CONFIG)
    table, arn = table_with_stream(ddb)
    for pk in ("a", "b"):
        ddb.put_item(TableName=table, Item={"PK": {"S": pk}, "SK": {"S": "1"}, "n": {"N": "0"}})
    with engine.batch() as call:  # updates only: a run, two items taking turns
        for pk, by in (("a", 1), ("a", 2), ("b", 5), ("a", 4), ("b", 0), ("b", 1)):
            call("UpdateItem", _add(table, pk, by))
    with engine.batch() as call:  # an insert among the updates
        call("UpdateItem", _add(table, "a", 1))
        call("PutItem", {"TableName": table,
                         "Item": {"PK": {"S": "c"}, "SK": {"S": "1"}, "n": {"N": "9"}}})
        call("UpdateItem", _add(table, "c", 1))
        call("UpdateItem", _add(table, "a", 1))
    # (ADD 0 changes nothing: no record)
    assert [_images(r) for r in read_all(streams, arn)] == [
        ("INSERT", "a", None, "0"), ("INSERT", "b", None, "0"),
        ("MODIFY", "a", "0", "1"), ("MODIFY", "a", "1", "3"), ("MODIFY", "b", "0", "5"),
        ("MODIFY", "a", "3", "7"), ("MODIFY", "b", "5", "6"),
        ("MODIFY", "a", "7", "8"), ("INSERT", "c", None, "9"), ("MODIFY", "c", "9", "10"),
        ("MODIFY", "a", "8", "9")]
