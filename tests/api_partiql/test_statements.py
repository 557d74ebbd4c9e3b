"""ExecuteStatement, BatchExecuteStatement and ExecuteTransaction through
boto3, against ``tallydb serve`` and in-process.

DynamoDB's behaviours pinned here were recorded against DynamoDB Local
(a driver's conformance notes, 2026): UPDATE of a missing item fails with
ConditionalCheckFailedException and DELETE of one succeeds; UPDATE and
DELETE answer ``{"Items": []}``; an INSERT of an existing key is
DuplicateItemException; too few parameters fail, extra ones are ignored; a
transaction holds reads only or writes only; BatchExecuteStatement answers
each failure in its slot with HTTP 200.
"""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError
from tallytest import error_of

KEY = "WHERE PK = 'VID#9f3a' AND SK = 'STATS#TOTAL'"


def _run(ddb: Any, statement: str, *parameters: dict[str, Any], **extra: Any) -> Any:
    return ddb.execute_statement(Statement=statement, Parameters=list(parameters), **extra) \
        if parameters else ddb.execute_statement(Statement=statement, **extra)


def _error(ddb: Any, statement: str, *parameters: dict[str, Any], **extra: Any
           ) -> tuple[str, str, int]:
    with pytest.raises(ClientError) as excinfo:
        _run(ddb, statement, *parameters, **extra)
    return error_of(excinfo)


def test_increment_counts_like_update_item_add(ddb: Any, videos: str) -> None:
    _run(ddb, f"INSERT INTO \"{videos}\" VALUE "
              "{'PK': 'VID#9f3a', 'SK': 'STATS#TOTAL', 'play_count': 0}")
    for _ in range(10):
        answer = _run(ddb, f'UPDATE "{videos}" SET play_count = play_count + 1 {KEY}')
        assert answer["Items"] == []
    ddb.update_item(TableName=videos, Key={"PK": {"S": "VID#9f3a"}, "SK": {"S": "STATS#TOTAL"}},
                    UpdateExpression="ADD play_count :one",
                    ExpressionAttributeValues={":one": {"N": "1"}})
    items = _run(ddb, f'SELECT play_count FROM "{videos}" {KEY}')["Items"]
    assert items == [{"play_count": {"N": "11"}}]


def test_update_of_a_missing_item_fails_and_creates_nothing(ddb: Any, videos: str) -> None:
    assert _error(ddb, f'UPDATE "{videos}" SET n = 1 {KEY}') == (
        "ConditionalCheckFailedException", "The conditional request failed", 400)
    assert _run(ddb, f'SELECT * FROM "{videos}"')["Items"] == []


def test_insert_of_an_existing_key_is_a_duplicate(ddb: Any, videos: str) -> None:
    insert = f"INSERT INTO \"{videos}\" VALUE {{'PK': ?, 'SK': ?, 'n': 1}}"
    _run(ddb, insert, {"S": "a"}, {"S": "b"})
    assert _error(ddb, insert, {"S": "a"}, {"S": "b"}) == (
        "DuplicateItemException", "Duplicate primary key exists in table", 400)


def test_delete_of_a_missing_item_succeeds(ddb: Any, videos: str) -> None:
    assert _run(ddb, f'DELETE FROM "{videos}" {KEY}')["Items"] == []


def test_where_conditions_and_returning(ddb: Any, videos: str) -> None:
    _run(ddb, f"INSERT INTO \"{videos}\" VALUE "
              "{'PK': 'VID#9f3a', 'SK': 'STATS#TOTAL', 'n': 5, 'tags': <<'a'>>}")
    code, _, status = _error(ddb, f'UPDATE "{videos}" SET n = 9 {KEY} AND n > 5',
                             ReturnValuesOnConditionCheckFailure="ALL_OLD")
    assert (code, status) == ("ConditionalCheckFailedException", 400)
    answer = _run(ddb, f'UPDATE "{videos}" SET n = n - 2 SET tags = set_add(tags, ?) '
                       f'{KEY} AND n >= 5 RETURNING MODIFIED NEW *', {"SS": ["b"]})
    assert answer["Items"] == [{"n": {"N": "3"}, "tags": {"SS": ["a", "b"]}}]
    answer = _run(ddb, f'DELETE FROM "{videos}" {KEY} RETURNING ALL OLD *')
    assert answer["Items"][0]["n"] == {"N": "3"}


def test_the_whole_key_is_required(ddb: Any, videos: str) -> None:
    assert _error(ddb, f"UPDATE \"{videos}\" SET n = 1 WHERE PK = 'x'") == (
        "ValidationException",
        "Where clause does not contain a mandatory equality on all key attributes", 400)


def test_errors_for_bad_statements(ddb: Any, videos: str) -> None:
    code, message, status = _error(ddb, f'SELEC * FROM "{videos}"')
    assert (code, status) == ("ValidationException", 400)
    assert message.startswith("Statement wasn't well formed, can't be processed: ")
    assert _error(ddb, f'SELECT * FROM "{videos}" WHERE PK = ?') == (
        "ValidationException", "Number of parameters in request and statement don't match.",
        400)
    assert _error(ddb, 'SELECT * FROM "no-such-table"') == (
        "ResourceNotFoundException", "Requested resource not found", 400)
    # extra parameters are ignored
    assert _run(ddb, f'SELECT * FROM "{videos}"', {"S": "x"})["Items"] == []


def test_select_pages_with_limit_and_next_token(ddb: Any, videos: str) -> None:
    for n in range(7):
        _run(ddb, f"INSERT INTO \"{videos}\" VALUE {{'PK': 'p', 'SK': ?, 'n': ?}}",
             {"S": f"s{n}"}, {"N": str(n)})
    seen: list[str] = []
    token = None
    while True:
        extra = {"NextToken": token} if token else {}
        page = _run(ddb, f"SELECT SK FROM \"{videos}\" WHERE PK = 'p' AND n <> 3",
                    Limit=2, **extra)
        seen += [item["SK"]["S"] for item in page["Items"]]
        token = page.get("NextToken")
        if token is None:
            break
    assert seen == ["s0", "s1", "s2", "s4", "s5", "s6"]
    backwards = _run(ddb, f"SELECT SK FROM \"{videos}\" WHERE PK = 'p' "
                          "AND begins_with(SK, 's') ORDER BY SK DESC")["Items"]
    assert [i["SK"]["S"] for i in backwards][:2] == ["s6", "s5"]


def test_select_from_an_index(ddb: Any, make_table: Any) -> None:
    table = make_table("idx")
    ddb.update_table(
        TableName=table,
        AttributeDefinitions=[{"AttributeName": "owner", "AttributeType": "S"}],
        GlobalSecondaryIndexUpdates=[{"Create": {
            "IndexName": "byOwner", "KeySchema": [{"AttributeName": "owner", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"}}}])
    _run(ddb, f"INSERT INTO \"{table}\" VALUE {{'PK': 'a', 'owner': 'ann'}}")
    _run(ddb, f"INSERT INTO \"{table}\" VALUE {{'PK': 'b', 'owner': 'bob'}}")
    items = _run(ddb, f"SELECT PK FROM \"{table}\".\"byOwner\" WHERE owner = 'bob'")["Items"]
    assert items == [{"PK": {"S": "b"}}]


def test_batch_answers_each_statement_in_its_slot(ddb: Any, videos: str) -> None:
    answer = ddb.batch_execute_statement(Statements=[
        {"Statement": f"INSERT INTO \"{videos}\" VALUE {{'PK': 'a', 'SK': 'b', 'n': 1}}"},
        {"Statement": f"INSERT INTO \"{videos}\" VALUE {{'PK': 'a', 'SK': 'b', 'n': 2}}"},
        {"Statement": f"UPDATE \"{videos}\" SET n = n + 1 WHERE PK = 'a' AND SK = 'b'"},
    ])
    assert answer["ResponseMetadata"]["HTTPStatusCode"] == 200
    responses = answer["Responses"]
    assert "Error" not in responses[0]
    assert responses[1]["Error"] == {"Code": "DuplicateItem",
                                     "Message": "Duplicate primary key exists in table"}
    assert "Error" not in responses[2]
    reads = ddb.batch_execute_statement(Statements=[
        {"Statement": f"SELECT n FROM \"{videos}\" WHERE PK = 'a' AND SK = 'b'"},
        {"Statement": f"SELECT n FROM \"{videos}\" WHERE PK = 'a' AND SK = 'zz'"},
    ])["Responses"]
    assert reads[0]["Item"] == {"n": {"N": "2"}}
    assert "Item" not in reads[1] and "Error" not in reads[1]


def test_transaction_is_all_or_nothing(ddb: Any, videos: str) -> None:
    _run(ddb, f"INSERT INTO \"{videos}\" VALUE {{'PK': 'stock', 'SK': 'A', 'qty': 10}}")
    _run(ddb, f"INSERT INTO \"{videos}\" VALUE {{'PK': 'stock', 'SK': 'B', 'qty': 0}}")
    move = [
        {"Statement": f"UPDATE \"{videos}\" SET qty = qty - 3 "
                      "WHERE PK = 'stock' AND SK = 'A' AND qty >= 3"},
        {"Statement": f"UPDATE \"{videos}\" SET qty = qty + 3 WHERE PK = 'stock' AND SK = 'B'"},
    ]
    ddb.execute_transaction(TransactStatements=move, ClientRequestToken="move-1")
    ddb.execute_transaction(TransactStatements=move, ClientRequestToken="move-1")  # replayed
    failing = [move[1], {"Statement": f"UPDATE \"{videos}\" SET qty = 1 "
                                      "WHERE PK = 'stock' AND SK = 'missing'"}]
    with pytest.raises(ClientError) as excinfo:
        ddb.execute_transaction(TransactStatements=failing)
    assert excinfo.value.response["Error"]["Code"] == "TransactionCanceledException"
    assert [r["Code"] for r in excinfo.value.response["CancellationReasons"]] == [
        "None", "ConditionalCheckFailed"]
    reads = ddb.execute_transaction(TransactStatements=[
        {"Statement": f"SELECT qty FROM \"{videos}\" WHERE PK = 'stock' AND SK = 'A'"},
        {"Statement": f"SELECT qty FROM \"{videos}\" WHERE PK = 'stock' AND SK = 'B'"},
    ])["Responses"]
    assert reads == [{"Item": {"qty": {"N": "7"}}}, {"Item": {"qty": {"N": "3"}}}]


def test_transaction_of_reads_and_writes_is_refused(ddb: Any, videos: str) -> None:
    with pytest.raises(ClientError) as excinfo:
        ddb.execute_transaction(TransactStatements=[
            {"Statement": f"SELECT * FROM \"{videos}\" WHERE PK = 'a' AND SK = 'b'"},
            {"Statement": f"DELETE FROM \"{videos}\" WHERE PK = 'a' AND SK = 'b'"},
        ])
    assert error_of(excinfo) == (
        "ValidationException",
        "ExecuteTransaction API does not support both read and write operations in the "
        "same request.", 400)


def test_transaction_insert_of_an_existing_key(ddb: Any, videos: str) -> None:
    insert = {"Statement": f"INSERT INTO \"{videos}\" VALUE {{'PK': 'a', 'SK': 'b'}}"}
    ddb.execute_transaction(TransactStatements=[insert])
    with pytest.raises(ClientError) as excinfo:
        ddb.execute_transaction(TransactStatements=[insert])
    assert excinfo.value.response["CancellationReasons"] == [
        {"Code": "DuplicateItem", "Message": "Duplicate primary key exists in table"}]
