"""A counter updated again and again in one group commit starts each update
from the item the one before made (not a parse of its JSON): the item any
other write leaves, or a rollback restores, is the one the next update sees."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tallydb.engine.api import Engine
from tallydb.engine.errors import ConditionalCheckFailedException
from tallydb.engine.storage import Store

TABLE = {
    "TableName": "hits", "BillingMode": "PAY_PER_REQUEST",
    "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
}
KEY = {"pk": {"S": "hot"}}
ADD = {"TableName": "hits", "Key": KEY, "UpdateExpression": "ADD n :one",
       "ExpressionAttributeValues": {":one": {"N": "1"}}}


def _count(engine: Engine) -> Any:
    return engine.call("GetItem", {"TableName": "hits", "Key": KEY})["Item"]


@pytest.fixture(params=["memory", "directory"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    engine = Engine(Store(None if request.param == "memory" else tmp_path))
    engine.call("CreateTable", TABLE)
    yield engine
    engine.close()


def test_an_update_after_another_writer_starts_from_that_writers_item(engine: Engine) -> None:
    with engine.batch() as call:
        call("UpdateItem", ADD)
        call("UpdateItem", ADD)
        call("PutItem", {"TableName": "hits", "Item": {**KEY, "n": {"N": "40"}, "tag": {"S": "p"}}})
        call("UpdateItem", ADD)
        call("UpdateItem", {**ADD, "UpdateExpression": "ADD n :one REMOVE tag"})
        call("UpdateItem", ADD)
    assert _count(engine) == {**KEY, "n": {"N": "43"}}
    with engine.batch() as call:
        call("UpdateItem", ADD)
        call("DeleteItem", {"TableName": "hits", "Key": KEY})
        call("UpdateItem", ADD)
        call("UpdateItem", ADD)
    assert _count(engine) == {**KEY, "n": {"N": "2"}}


def test_an_item_a_caller_was_given_is_never_the_next_updates_start(engine: Engine) -> None:
    with engine.batch() as call:
        call("UpdateItem", ADD)
        given = call("UpdateItem", {**ADD, "ReturnValues": "ALL_NEW"})["Attributes"]
        given["n"]["N"] = "1000"  # the caller's to change
        call("UpdateItem", ADD)
        call("UpdateItem", ADD)
        with pytest.raises(ConditionalCheckFailedException) as refused:
            call("UpdateItem", {**ADD, "ConditionExpression": "n = :one",
                                "ReturnValuesOnConditionCheckFailure": "ALL_OLD"})
        refused.value.item["n"]["N"] = "2000"  # type: ignore[attr-defined]
        call("UpdateItem", ADD)
    assert _count(engine) == {**KEY, "n": {"N": "5"}}


def test_a_rolled_back_batch_leaves_the_next_update_the_committed_item(engine: Engine) -> None:
    engine.call("UpdateItem", ADD)
    with pytest.raises(RuntimeError), engine.batch() as call:
        call("UpdateItem", ADD)
        call("UpdateItem", ADD)
        raise RuntimeError("the batch fails")
    engine.call("UpdateItem", ADD)
    with engine.batch() as call:
        call("UpdateItem", ADD)
        call("UpdateItem", ADD)
    assert _count(engine) == {**KEY, "n": {"N": "4"}}
