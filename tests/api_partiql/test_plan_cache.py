"""The plan cache (``engine.partiql.cache``): a statement sent again is
neither parsed nor planned again, and a cached plan never outlives what it
was made against.

Through boto3, against ``tallydb serve`` and in-process: a statement
cached, its table deleted and created again with another key schema (or
the same one, or changed by UpdateTable) and the statement sent again gets
DynamoDB's answer for the table as it now is; parameters of another type
than the cached plan's are checked as such; an UPDATE of a missing item
fails as before however often it was sent. In-process: the cache's bounds,
and a hit that neither parses nor decides again.
"""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError
from tallytest import create_table, error_of

from tallydb.engine.api import Access, Engine
from tallydb.engine.api._statements import PLANS
from tallydb.engine.errors import AccessDeniedException
from tallydb.engine.partiql import parse_counted
from tallydb.engine.partiql.cache import PLANS_PER_STATEMENT, PlanCache
from tallydb.engine.partiql.messages import WHOLE_KEY
from tallydb.engine.storage import Store

FAILED = ("ConditionalCheckFailedException", "The conditional request failed", 400)
KEY_SCHEMA = ("ValidationException", "The provided key element does not match the schema", 400)


def _error(ddb: Any, **request: Any) -> tuple[str, str, int]:
    with pytest.raises(ClientError) as excinfo:
        ddb.execute_statement(**request)
    return error_of(excinfo)


def _item(ddb: Any, table: str, key: dict[str, Any]) -> dict[str, Any] | None:
    item: dict[str, Any] | None = ddb.get_item(TableName=table, Key=key,
                                               ConsistentRead=True).get("Item")
    return item


def _recreate(ddb: Any, table: str, hash: tuple[str, str],
              range: tuple[str, str] | None = None) -> None:
    ddb.delete_table(TableName=table)
    create_table(ddb, table, hash, range)


def test_a_plan_does_not_survive_its_table_recreated_with_another_key(
        ddb: Any, make_table: Any) -> None:
    table = make_table("cache", hash=("pk", "S"))
    ddb.put_item(TableName=table, Item={"pk": {"S": "a"}, "n": {"N": "0"}})
    increment = f"UPDATE \"{table}\" SET n = n + 1 WHERE pk = 'a'"
    for _ in range(3):  # alone, in a batch, in a transaction: each way planned and kept
        ddb.execute_statement(Statement=increment)
        ddb.batch_execute_statement(Statements=[{"Statement": increment}])
        ddb.execute_transaction(TransactStatements=[{"Statement": increment}])
    assert _item(ddb, table, {"pk": {"S": "a"}}) == {"pk": {"S": "a"}, "n": {"N": "9"}}

    # another HASH key: the cached plan's key names no key attribute now
    _recreate(ddb, table, ("id", "S"))
    ddb.put_item(TableName=table, Item={"id": {"S": "a"}, "pk": {"S": "a"}, "n": {"N": "0"}})
    assert _error(ddb, Statement=increment) == ("ValidationException", WHOLE_KEY, 400)
    answer = ddb.batch_execute_statement(Statements=[{"Statement": increment}])
    assert answer["Responses"][0]["Error"] == {"Code": "ValidationError", "Message": WHOLE_KEY}
    with pytest.raises(ClientError) as excinfo:
        ddb.execute_transaction(TransactStatements=[{"Statement": increment}])
    assert error_of(excinfo) == ("ValidationException", WHOLE_KEY, 400)
    assert _item(ddb, table, {"id": {"S": "a"}})["n"] == {"N": "0"}  # type: ignore[index]

    # the same name, now of another type: the key's type is checked again
    _recreate(ddb, table, ("pk", "N"))
    assert _error(ddb, Statement=increment) == KEY_SCHEMA

    # a RANGE key added: the statement no longer names the whole key
    _recreate(ddb, table, ("pk", "S"), ("sk", "S"))
    ddb.put_item(TableName=table, Item={"pk": {"S": "a"}, "sk": {"S": "b"}, "n": {"N": "7"}})
    assert _error(ddb, Statement=increment) == ("ValidationException", WHOLE_KEY, 400)
    whole = f"UPDATE \"{table}\" SET n = n + 1 WHERE pk = 'a' AND sk = 'b'"
    ddb.execute_statement(Statement=whole)
    ddb.execute_statement(Statement=whole)
    assert _item(ddb, table, {"pk": {"S": "a"}, "sk": {"S": "b"}})["n"] == {"N": "9"}  # type: ignore[index]


def test_a_plan_does_not_survive_its_table_recreated_alike(ddb: Any, make_table: Any) -> None:
    table = make_table("cache", hash=("pk", "S"))
    ddb.put_item(TableName=table, Item={"pk": {"S": "a"}, "n": {"N": "0"}})
    increment = f"UPDATE \"{table}\" SET n = n + 1 WHERE pk = 'a'"
    ddb.execute_statement(Statement=increment)
    ddb.execute_statement(Statement=increment)
    _recreate(ddb, table, ("pk", "S"))
    # the new table has no such item: the UPDATE fails, and writes nothing
    assert _error(ddb, Statement=increment) == FAILED
    assert _item(ddb, table, {"pk": {"S": "a"}}) is None
    ddb.put_item(TableName=table, Item={"pk": {"S": "a"}, "n": {"N": "100"}})
    ddb.execute_statement(Statement=increment)
    assert _item(ddb, table, {"pk": {"S": "a"}}) == {"pk": {"S": "a"}, "n": {"N": "101"}}


def test_a_decision_does_not_survive_a_new_index(ddb: Any, make_table: Any) -> None:
    table = make_table("cache", hash=("pk", "S"))
    ddb.put_item(TableName=table, Item={"pk": {"S": "a"}})
    statement = f"UPDATE \"{table}\" SET g = 5 WHERE pk = 'a'"
    ddb.execute_statement(Statement=statement)
    ddb.execute_statement(Statement=statement)
    ddb.update_table(
        TableName=table, AttributeDefinitions=[{"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexUpdates=[{"Create": {
            "IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"}}}])
    # g is now an index key of type S: a number there is refused, as UpdateItem refuses it
    code, message, status = _error(ddb, Statement=statement)
    assert (code, status) == ("ValidationException", 400)
    with pytest.raises(ClientError) as excinfo:
        ddb.update_item(TableName=table, Key={"pk": {"S": "a"}}, UpdateExpression="SET g = :g",
                        ConditionExpression="attribute_exists(pk)",
                        ExpressionAttributeValues={":g": {"N": "5"}})
    assert error_of(excinfo)[1] == message


def test_parameters_of_another_type_are_checked_as_such(ddb: Any, make_table: Any) -> None:
    table = make_table("cache", hash=("pk", "S"))
    ddb.put_item(TableName=table, Item={"pk": {"S": "1"}, "n": {"N": "0"}})
    by_key = f'UPDATE "{table}" SET n = n + ? WHERE pk = ?'
    for _ in range(2):
        ddb.execute_statement(Statement=by_key, Parameters=[{"N": "2"}, {"S": "1"}])
    assert _error(ddb, Statement=by_key, Parameters=[{"N": "2"}, {"N": "1"}]) == KEY_SCHEMA
    with pytest.raises(ClientError) as excinfo:
        ddb.update_item(TableName=table, Key={"pk": {"S": "1"}},
                        UpdateExpression="SET n = n + :v",
                        ConditionExpression="attribute_exists(pk)",
                        ExpressionAttributeValues={":v": {"S": "x"}})
    assert _error(ddb, Statement=by_key, Parameters=[{"S": "x"}, {"S": "1"}]) == error_of(excinfo)
    ddb.execute_statement(Statement=by_key, Parameters=[{"N": "3"}, {"S": "1"}])
    assert _item(ddb, table, {"pk": {"S": "1"}})["n"] == {"N": "7"}  # type: ignore[index]
    # a value of another type where any type goes: written as sent
    setter = f'UPDATE "{table}" SET v = ? WHERE pk = ?'
    for value in ({"N": "1"}, {"S": "one"}, {"L": [{"N": "1"}]}, {"N": "2"}):
        ddb.execute_statement(Statement=setter, Parameters=[value, {"S": "1"}])
        assert _item(ddb, table, {"pk": {"S": "1"}})["v"] == value  # type: ignore[index]


def test_update_of_a_missing_item_fails_however_often_sent(ddb: Any, make_table: Any) -> None:
    table = make_table("cache", hash=("pk", "S"))
    ddb.put_item(TableName=table, Item={"pk": {"S": "a"}, "n": {"N": "0"}})
    increment = f"UPDATE \"{table}\" SET n = n + 1 WHERE pk = 'a'"
    ddb.execute_statement(Statement=increment)
    ddb.execute_statement(Statement=increment)
    ddb.delete_item(TableName=table, Key={"pk": {"S": "a"}})
    for _ in range(2):
        assert _error(ddb, Statement=increment) == FAILED
        with pytest.raises(ClientError) as excinfo:
            ddb.execute_statement(Statement=increment,
                                  ReturnValuesOnConditionCheckFailure="ALL_OLD")
        assert "Item" not in excinfo.value.response
    assert _item(ddb, table, {"pk": {"S": "a"}}) is None
    # WHERE's other terms are still the condition, on an item that exists
    ddb.put_item(TableName=table, Item={"pk": {"S": "a"}, "n": {"N": "5"}})
    guarded = f"UPDATE \"{table}\" SET n = n + 1 WHERE pk = 'a' AND n < 6"
    ddb.execute_statement(Statement=guarded)
    with pytest.raises(ClientError) as excinfo:
        ddb.execute_statement(Statement=guarded, ReturnValuesOnConditionCheckFailure="ALL_OLD")
    assert error_of(excinfo) == FAILED
    assert excinfo.value.response["Item"] == {"pk": {"S": "a"}, "n": {"N": "6"}}
    # the same statement in a batch and a transaction: the same outcome
    ddb.delete_item(TableName=table, Key={"pk": {"S": "a"}})
    answer = ddb.batch_execute_statement(Statements=[{"Statement": increment}])
    assert answer["Responses"][0]["Error"]["Code"] == "ConditionalCheckFailed"
    with pytest.raises(ClientError) as excinfo:
        ddb.execute_transaction(TransactStatements=[{"Statement": increment}])
    assert excinfo.value.response["CancellationReasons"][0]["Code"] == "ConditionalCheckFailed"
    assert _item(ddb, table, {"pk": {"S": "a"}}) is None


def test_the_cache_keeps_its_bounds() -> None:
    cache = PlanCache(statements=3, chars=20)
    statement, count = parse_counted('SELECT * FROM "abc"')
    for text in ("a" * 5, "b" * 5, "c" * 5):
        cache.add(text, statement, count)
    cache.add("d" * 5, statement, count)  # a fourth: the oldest goes
    assert list(cache) == ["b" * 5, "c" * 5, "d" * 5]
    cache.add("e" * 12, statement, count)  # over 20 characters: the oldest go until it fits
    assert list(cache) == ["d" * 5, "e" * 12] and cache.text_chars == 17
    cached = cache["d" * 5]
    for mode in (0, 3):
        for kinds in range(PLANS_PER_STATEMENT + 3):
            PlanCache.keep_plan(cached, mode, (str(kinds),), object())  # type: ignore[arg-type]
        assert 0 < len(cached.plans[mode]) <= PLANS_PER_STATEMENT


def test_the_engine_cache_is_bounded_and_a_forgotten_statement_runs_again() -> None:
    engine = Engine(Store(None))
    try:
        engine.call("CreateTable", {
            "TableName": "bounded", "BillingMode": "PAY_PER_REQUEST",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]})
        engine.call("PutItem", {"TableName": "bounded", "Item": {"pk": {"S": "a"}}})
        first = "UPDATE \"bounded\" SET n = 1 WHERE pk = 'a'"
        engine.call("ExecuteStatement", {"Statement": first})
        for i in range(PLANS.statements + 10):
            engine.call("ExecuteStatement", {
                "Statement": f"SELECT * FROM \"bounded\" WHERE pk = 'k{i}'"})
            assert len(PLANS) <= PLANS.statements and PLANS.text_chars <= PLANS.chars
        assert first not in PLANS
        engine.call("ExecuteStatement", {"Statement": first.replace("= 1", "= 2")})
        engine.call("ExecuteStatement", {"Statement": first})
        item = engine.call("GetItem", {"TableName": "bounded", "Key": {"pk": {"S": "a"}}})
        assert item["Item"]["n"] == {"N": "1"}
    finally:
        engine.close()


def test_a_hit_neither_parses_nor_decides_again() -> None:
    engine = Engine(Store(None))
    try:
        engine.call("CreateTable", {
            "TableName": "hits", "BillingMode": "PAY_PER_REQUEST",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]})
        engine.call("PutItem", {"TableName": "hits", "Item": {"pk": {"S": "a"},
                                                               "n": {"N": "0"}}})
        increment = "UPDATE \"hits\" SET n = n + 1 WHERE pk = 'a'"
        engine.call("ExecuteStatement", {"Statement": increment})
        engine.call("ExecuteStatement", {"Statement": increment})
        plan = PLANS[increment].plans[0][()]
        decided, parses = plan.decided, parse_counted.cache_info()
        assert decided is not None and plan.passed
        for _ in range(5):
            engine.call("ExecuteStatement", {"Statement": increment})
        assert parse_counted.cache_info() == parses
        assert PLANS[increment].plans[0][()] is plan and plan.decided is decided
        item = engine.call("GetItem", {"TableName": "hits", "Key": {"pk": {"S": "a"}}})
        assert item["Item"]["n"] == {"N": "7"}
    finally:
        engine.close()


def test_a_refused_statement_is_refused_again(ddb: Any, make_table: Any) -> None:
    table = make_table("cache", hash=("pk", "S"))
    insert = f"INSERT INTO \"{table}\" VALUE {{'pk': 1, 'n': 0}}"
    partial = f"UPDATE \"{table}\" SET n = 1 WHERE n = 0"
    with pytest.raises(ClientError) as excinfo:
        ddb.put_item(TableName=table, Item={"pk": {"N": "1"}, "n": {"N": "0"}})
    for _ in range(3):
        assert _error(ddb, Statement=insert) == error_of(excinfo)
        assert _error(ddb, Statement=partial) == ("ValidationException", WHOLE_KEY, 400)
    assert ddb.scan(TableName=table)["Items"] == []


def test_a_cached_statement_is_still_refused_to_a_key_limited_elsewhere() -> None:
    engine = Engine(Store(None))
    try:
        for name in ("mine", "yours"):
            engine.call("CreateTable", {
                "TableName": name, "BillingMode": "PAY_PER_REQUEST",
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]})
        engine.call("PutItem", {"TableName": "yours", "Item": {"pk": {"S": "a"},
                                                                "n": {"N": "0"}}})
        request = {"Statement": "UPDATE \"yours\" SET n = n + 1 WHERE pk = 'a'"}
        for _ in range(3):  # cached, and its decision kept
            engine.call("ExecuteStatement", dict(request))
        limited = Access("AKID", "us-east-1", tables=frozenset({"mine"}))
        with pytest.raises(AccessDeniedException):
            engine.call("ExecuteStatement", dict(request), access=limited)
        allowed = Access("AKID", "us-east-1", tables=frozenset({"yours"}))
        engine.call("ExecuteStatement", dict(request), access=allowed)
        item = engine.call("GetItem", {"TableName": "yours", "Key": {"pk": {"S": "a"}}})
        assert item["Item"]["n"] == {"N": "4"}
    finally:
        engine.close()
