"""Errors: DynamoDB's code and message, as tallydb exceptions, never a bare
botocore ClientError."""

from __future__ import annotations

import pytest
from botocore.exceptions import BotoCoreError, ClientError

import tallydb
from tallydb.engine import errors
from tallydb.toolkit.exceptions import error_from_response


def test_missing_table(db: tallydb.Database) -> None:
    table = db.table("no-such-table")
    with pytest.raises(tallydb.ResourceNotFoundException) as caught:
        table.get({"PK": "x"})
    assert not isinstance(caught.value, ClientError)
    assert caught.value.code() == "ResourceNotFoundException"
    assert caught.value.message  # DynamoDB's own words, whatever the store
    with pytest.raises(tallydb.ResourceNotFoundException):
        tallydb.Counter(table, {"PK": "x"}, "n").add()


def test_validation_from_the_store(videos: tallydb.Table) -> None:
    with pytest.raises(tallydb.ValidationException) as caught:
        videos.put({"PK": "only-the-hash-key"})
    assert caught.value.code() == "ValidationException"
    assert "key" in (caught.value.message or "").lower()
    with pytest.raises(tallydb.ValidationException):
        videos.update({"PK": "a", "SK": "b"}, "ADD s :v", values={":v": "text"})


def test_refused_before_sending() -> None:
    db = tallydb.connect(in_memory=True)
    try:
        with pytest.raises(tallydb.ValidationException) as caught:
            # botocore's own parameter check: Limit must be an integer
            list(db.table("videos").query({"PK": "x"}, page_size="ten"))  # type: ignore[arg-type]
        assert "Limit" in (caught.value.message or "")
    finally:
        db.close()


def test_unreachable_endpoint() -> None:
    with tallydb.connect("http://127.0.0.1:9") as db:  # nothing listens on port 9
        db.client.meta.config.retries = {"total_max_attempts": 1}
        with pytest.raises(tallydb.TransportError) as caught:
            db.list_tables()
    assert isinstance(caught.value.__cause__, BotoCoreError)
    assert isinstance(caught.value, tallydb.TallyError)


def test_error_from_response_keeps_code_message_and_extras() -> None:
    e = error_from_response(
        {
            "Error": {
                "Code": "ConditionalCheckFailedException",
                "Message": "The conditional request failed",
            },
            "Item": {"n": {"N": "1"}},
        }
    )
    assert type(e) is errors.ConditionalCheckFailedException
    assert e.message == "The conditional request failed"
    assert e.item == {"n": {"N": "1"}}
    reasons = [{"Code": "ConditionalCheckFailed", "Message": "The conditional request failed"}]
    e = error_from_response(
        {
            "Error": {"Code": "TransactionCanceledException", "Message": "Transaction cancelled"},
            "CancellationReasons": reasons,
        }
    )
    assert isinstance(e, errors.TransactionCanceledException)
    assert e.reasons == reasons and e.message == "Transaction cancelled"
    e = error_from_response({"Error": {"Code": "SomethingNew", "Message": "m"}})
    assert isinstance(e, errors.DynamoDBError)
    assert e.code() == "SomethingNew" and type(e).__name__ == "SomethingNew"
    assert type(error_from_response({"Error": {"Code": "SomethingNew"}})) is type(e)
    e = error_from_response({"Error": {"Code": "500", "Message": "<html>"}})
    assert isinstance(e, errors.InternalServerError)


def test_toolkit_errors_are_dynamodbs_where_they_stand_for_one() -> None:
    limit = tallydb.CounterLimitError(explanation="too low")
    assert isinstance(limit, tallydb.ConditionalCheckFailedException)
    assert limit.code() == "ConditionalCheckFailedException"
    assert limit.message == "The conditional request failed"
    assert str(limit) == "too low (ConditionalCheckFailedException: The conditional request failed)"
    assert issubclass(tallydb.VersionConflictError, tallydb.ConditionalCheckFailedException)
    assert issubclass(tallydb.ItemNotFoundError, LookupError)
    assert tallydb.ConditionalCheckFailed is tallydb.ConditionalCheckFailedException
    for name in ("ContentionError", "IdempotencyKeyMismatchError", "TransportError"):
        assert issubclass(getattr(tallydb, name), tallydb.TallyError)
