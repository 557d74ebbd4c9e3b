"""ExecuteTransaction's condition checks and refusals through boto3, against
``tallydb serve`` and in-process.

``EXISTS(SELECT ... WHERE <whole key> AND ...)`` is DynamoDB's PartiQL
ConditionCheck (the developer guide's "Using the EXISTS function"): it
holds when the SELECT finds its item, it may share a transaction with
writes, and it can only be used in transactions. The refusals' messages
were recorded against DynamoDB (the Parity Suite's PartiQL captures,
eu-west-2): RETURNING in a transaction ("Validation failed in
TransactStatements[i]: RETURNING clause is not supported in
ExecuteTransaction."), a read on an index, and DELETE's RETURNING other
than ALL OLD.
"""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError
from tallytest import error_of


def _put(ddb: Any, table: str, sk: str, qty: int) -> None:
    ddb.execute_statement(
        Statement=f"INSERT INTO \"{table}\" VALUE {{'PK': 'stock', 'SK': ?, 'qty': ?}}",
        Parameters=[{"S": sk}, {"N": str(qty)}])


def _qty(ddb: Any, table: str, sk: str) -> str | None:
    item = ddb.get_item(TableName=table, Key={"PK": {"S": "stock"}, "SK": {"S": sk}}).get("Item")
    return None if item is None else str(item["qty"]["N"])


def _take(table: str, sk: str, qty: int) -> dict[str, Any]:
    return {"Statement": f"UPDATE \"{table}\" SET qty = qty - ? WHERE PK = 'stock' AND SK = ?",
            "Parameters": [{"N": str(qty)}, {"S": sk}]}


def test_exists_lets_the_transaction_run_when_its_item_meets_the_condition(
        ddb: Any, videos: str) -> None:
    _put(ddb, videos, "A", 10)
    _put(ddb, videos, "gate", 1)
    ddb.execute_transaction(TransactStatements=[
        {"Statement": f"EXISTS(SELECT * FROM \"{videos}\" "
                      "WHERE PK = 'stock' AND SK = 'gate' AND qty > ?)",
         "Parameters": [{"N": "0"}]},
        _take(videos, "A", 3),
    ])
    assert _qty(ddb, videos, "A") == "7"
    assert _qty(ddb, videos, "gate") == "1"  # checked, not written


@pytest.mark.parametrize("check", [
    "EXISTS(SELECT * FROM \"{t}\" WHERE PK = 'stock' AND SK = 'gate' AND qty > 5)",
    "EXISTS(SELECT * FROM \"{t}\" WHERE PK = 'stock' AND SK = 'missing')",
])
def test_a_failed_exists_cancels_the_transaction(ddb: Any, videos: str, check: str) -> None:
    _put(ddb, videos, "A", 10)
    _put(ddb, videos, "gate", 1)
    with pytest.raises(ClientError) as excinfo:
        ddb.execute_transaction(TransactStatements=[
            _take(videos, "A", 3), {"Statement": check.format(t=videos)}])
    assert excinfo.value.response["Error"]["Code"] == "TransactionCanceledException"
    assert [r["Code"] for r in excinfo.value.response["CancellationReasons"]] == [
        "None", "ConditionalCheckFailed"]
    assert _qty(ddb, videos, "A") == "10"


def test_a_failed_exists_can_return_the_item(ddb: Any, videos: str) -> None:
    _put(ddb, videos, "gate", 1)
    with pytest.raises(ClientError) as excinfo:
        ddb.execute_transaction(TransactStatements=[{
            "Statement": f"EXISTS(SELECT * FROM \"{videos}\" "
                         "WHERE PK = 'stock' AND SK = 'gate' AND qty = 2)",
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}])
    reason = excinfo.value.response["CancellationReasons"][0]
    assert reason["Code"] == "ConditionalCheckFailed"
    assert reason["Item"]["qty"] == {"N": "1"}


def test_exists_needs_the_whole_key(ddb: Any, videos: str) -> None:
    with pytest.raises(ClientError) as excinfo:
        ddb.execute_transaction(TransactStatements=[
            {"Statement": f"EXISTS(SELECT * FROM \"{videos}\" WHERE PK = 'stock')"}])
    assert error_of(excinfo) == (
        "ValidationException",
        "Where clause does not contain a mandatory equality on all key attributes", 400)


@pytest.mark.parametrize("how", ["statement", "batch"])
def test_exists_outside_a_transaction_is_refused(ddb: Any, videos: str, how: str) -> None:
    statement = f"EXISTS(SELECT * FROM \"{videos}\" WHERE PK = 'stock' AND SK = 'A')"
    if how == "batch":
        error = ddb.batch_execute_statement(Statements=[{"Statement": statement}])[
            "Responses"][0]["Error"]
        assert error == {"Code": "ValidationError",
                         "Message": "EXISTS can only be used in transactions"}
        return
    with pytest.raises(ClientError) as excinfo:
        ddb.execute_statement(Statement=statement)
    assert error_of(excinfo) == (
        "ValidationException", "EXISTS can only be used in transactions", 400)


def test_returning_in_a_transaction_is_refused(ddb: Any, videos: str) -> None:
    _put(ddb, videos, "A", 10)
    with pytest.raises(ClientError) as excinfo:
        ddb.execute_transaction(TransactStatements=[
            _take(videos, "A", 1),
            {"Statement": f"UPDATE \"{videos}\" SET qty = 1 "
                          "WHERE PK = 'stock' AND SK = 'A' RETURNING ALL NEW *"}])
    assert error_of(excinfo) == (
        "ValidationException",
        "Validation failed in TransactStatements[1]: RETURNING clause is not supported in "
        "ExecuteTransaction.", 400)
    assert _qty(ddb, videos, "A") == "10"


def test_a_read_on_an_index_in_a_transaction_is_refused(ddb: Any, videos: str) -> None:
    with pytest.raises(ClientError) as excinfo:
        ddb.execute_transaction(TransactStatements=[
            {"Statement": f"SELECT * FROM \"{videos}\".\"byOwner\" WHERE owner = 'x'"}])
    assert error_of(excinfo) == (
        "ValidationException",
        "Validation failed in TransactStatements[0]: Reads on indices are not supported "
        "within transactions.", 400)


@pytest.mark.parametrize("returning", ["MODIFIED OLD", "ALL NEW", "MODIFIED NEW"])
def test_delete_returns_only_all_old(ddb: Any, videos: str, returning: str) -> None:
    with pytest.raises(ClientError) as excinfo:
        ddb.execute_statement(Statement=f"DELETE FROM \"{videos}\" "
                                        f"WHERE PK = 'a' AND SK = 'b' RETURNING {returning} *")
    assert error_of(excinfo) == (
        "ValidationException",
        f"Invalid returning clause: RETURNING {returning} *. Only RETURNING ALL OLD * is "
        "allowed in DELETE statements.", 400)


@pytest.mark.parametrize(("statement", "detail"), [
    ("SLECT * FROM \"t\" WHERE PK = 'a'", "Expected data manipulation"),
    ("SELECT * FROM \"t", ""),  # an unterminated quote: the lexer's, no detail
])
def test_syntax_errors_recorded_on_dynamodb(ddb: Any, statement: str, detail: str) -> None:
    with pytest.raises(ClientError) as excinfo:
        ddb.execute_statement(Statement=statement)
    assert error_of(excinfo) == (
        "ValidationException", f"Statement wasn't well formed, can't be processed: {detail}",
        400)
