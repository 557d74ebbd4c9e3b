"""A property: a PartiQL statement and the JSON request it stands for leave
the same items and the same stream records.

Random runs of INSERT / UPDATE (SET n = n + k, SET s = v, REMOVE) / DELETE,
with parameters or with the values written in (so a statement sent again
runs what its cached plan kept), go to one table as PartiQL and to a twin
table as PutItem (conditioned on the key being absent), UpdateItem
(conditioned on the item existing) and DeleteItem; each step must succeed
or fail alike on both, and the tables and their NEW_AND_OLD_IMAGES streams
must end equal. In-process (the server runs the same api code).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from stream_events import read_stream_events
from tallytest import CLIENT_CONFIG

from tallydb.engine.api import Engine
from tallydb.engine.storage import Store
from tallydb.toolkit import inprocess

KEYS = ["a", "b", "c"]
step = st.one_of(
    st.tuples(st.just("insert"), st.sampled_from(KEYS), st.integers(-5, 5)),
    st.tuples(st.just("add"), st.sampled_from(KEYS), st.integers(-5, 5)),
    st.tuples(st.just("add"), st.sampled_from(KEYS), st.just(1)),
    st.tuples(st.just("set"), st.sampled_from(KEYS), st.text("xyz", max_size=3)),
    st.tuples(st.just("remove"), st.sampled_from(KEYS), st.none()),
    st.tuples(st.just("delete"), st.sampled_from(KEYS), st.none()),
)
#: Each statement with ``?`` parameters, or its values written in it (a
#: statement without parameters: sent again, it runs the decision kept
#: with its plan).
inline = st.booleans()


def _statement(table: str, kind: str, key: str, value: Any, inline: bool
               ) -> tuple[str, list[Any]]:
    if inline:
        statement, parameters = _statement(table, kind, key, value, False)
        for parameter in parameters:
            text = parameter.get("N") or f"'{parameter['S']}'"
            statement = statement.replace("?", text, 1)
        return statement, []
    where = "WHERE id = ?"
    if kind == "insert":
        return f"INSERT INTO \"{table}\" VALUE {{'id': ?, 'n': ?}}", [
            {"S": key}, {"N": str(value)}]
    if kind == "add":
        return f'UPDATE "{table}" SET n = n + ? {where}', [{"N": str(value)}, {"S": key}]
    if kind == "set":
        return f'UPDATE "{table}" SET s = ? {where}', [{"S": value}, {"S": key}]
    if kind == "remove":
        return f'UPDATE "{table}" REMOVE s {where}', [{"S": key}]
    return f'DELETE FROM "{table}" {where}', [{"S": key}]


def _request(table: str, kind: str, key: str, value: Any) -> tuple[str, dict[str, Any]]:
    k = {"id": {"S": key}}
    exists = {"ConditionExpression": "attribute_exists(id)"}
    if kind == "insert":
        return "put_item", {"TableName": table, "Item": {**k, "n": {"N": str(value)}},
                            "ConditionExpression": "attribute_not_exists(id)"}
    if kind == "add":
        return "update_item", {"TableName": table, "Key": k, "UpdateExpression": "SET n = n + :v",
                               "ExpressionAttributeValues": {":v": {"N": str(value)}}, **exists}
    if kind == "set":
        return "update_item", {"TableName": table, "Key": k, "UpdateExpression": "SET s = :v",
                               "ExpressionAttributeValues": {":v": {"S": value}}, **exists}
    if kind == "remove":
        return "update_item", {"TableName": table, "Key": k, "UpdateExpression": "REMOVE s",
                               **exists}
    return "delete_item", {"TableName": table, "Key": k}


def _outcome(call: Any, **request: Any) -> str:
    try:
        call(**request)
    except ClientError as error:
        code: str = error.response["Error"]["Code"]
        return "refused" if code in ("ConditionalCheckFailedException",
                                     "DuplicateItemException") else code
    return "ok"


@pytest.fixture(scope="module")
def clients(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Any]]:
    engine = Engine(Store(tmp_path_factory.mktemp("equivalence") / "data"))
    yield (inprocess.client(engine, config=CLIENT_CONFIG),
           inprocess.streams_client(engine, config=CLIENT_CONFIG))
    engine.close()


_tables = iter(range(10_000))


def _table(ddb: Any) -> tuple[str, str]:
    name = f"eq-{next(_tables)}"
    answer = ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
    return name, answer["TableDescription"]["LatestStreamArn"]


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.large_base_example])
@given(st.lists(st.tuples(step, inline), max_size=16))
def test_statements_and_their_requests_leave_the_same_items_and_records(
        clients: tuple[Any, Any], steps: list[tuple[tuple[str, str, Any], bool]]) -> None:
    ddb, streams = clients
    (partiql, partiql_arn), (plain, plain_arn) = _table(ddb), _table(ddb)
    for (kind, key, value), written_in in steps:
        statement, parameters = _statement(partiql, kind, key, value, written_in)
        operation, request = _request(plain, kind, key, value)
        sent = {"Parameters": parameters} if parameters else {}
        by_statement = _outcome(ddb.execute_statement, Statement=statement, **sent)
        by_request = _outcome(getattr(ddb, operation), **request)
        assert by_statement == by_request, (kind, key, value)
    scans = [sorted(ddb.scan(TableName=t, ConsistentRead=True)["Items"],
                    key=lambda i: i["id"]["S"]) for t in (partiql, plain)]
    assert scans[0] == scans[1]
    assert read_stream_events(streams, partiql_arn) == read_stream_events(streams, plain_arn)
