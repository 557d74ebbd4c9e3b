"""A property (hypothesis): for random PartiQL statements, with comments,
quoting, keywords and decoy table names inside comments and strings, and
nested conditions, the tables the access check sees are the tables the
statement touches.

Two tables of one shape, each item saying which table holds it (``owner``):
the statement is written about one of them, its decoy named in every place
a second reading could take it from. The engine's resolution names exactly
the table written about; the plan that runs names it too; a key limited to
it runs the statement and one limited to the decoy is refused; and what ran
read or changed that table alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tallydb.engine.api import Access, Engine
from tallydb.engine.api._statements import planned
from tallydb.engine.errors import AccessDeniedException, DynamoDBError
from tallydb.engine.storage import Store

#: Creatable names, some only as quoted identifiers, some PartiQL keywords.
NAMES = ("videos", "other", "FROM", "select", "t.a-1", "up-date", "Update_t")
BARE = frozenset({"videos", "other", "Update_t"})  # may also be written unquoted
KEY = {"pk": {"S": "a"}}


@pytest.fixture(scope="module")
def engine() -> Iterator[Engine]:
    engine = Engine(Store(None))
    for name in NAMES:
        engine.call("CreateTable", {
            "TableName": name, "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]})
    yield engine
    engine.close()


def restore(engine: Engine) -> None:
    """Every table holds one item, ``a``, owned by it, with n = 0."""
    for name in NAMES:
        engine.call("PutItem", {"TableName": name, "Item": {
            **KEY, "owner": {"S": name}, "n": {"N": "0"}}})
        engine.call("DeleteItem", {"TableName": name, "Key": {"pk": {"S": "b"}}})


def literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


@st.composite
def statements(draw: Any) -> tuple[str, str, str, str]:
    """(kind, statement, its table, the decoy it names elsewhere)."""
    table, decoy = draw(st.lists(st.sampled_from(NAMES), min_size=2, max_size=2,
                                 unique=True))
    decoys = (f"FROM {quoted(decoy)}", f"FROM {decoy}", f"UPDATE {quoted(decoy)}",
              f"INTO {quoted(decoy)} ", f"DELETE FROM {decoy}")

    def ws() -> str:
        return draw(st.sampled_from([
            " ", "\n", "\t ", "/**/", f"/* {draw(st.sampled_from(decoys))} */",
            f" -- {draw(st.sampled_from(decoys))}\n", "  /*\n*/  "]))

    def name() -> str:
        if table in BARE and draw(st.booleans()):
            return ws() + table + ws()
        return draw(st.sampled_from(["", ws()])) + quoted(table) + draw(
            st.sampled_from(["", ws()]))

    def condition() -> str:
        found = "pk" + ws() + "=" + ws() + "'a'"
        if draw(st.booleans()):  # a decoy inside a string: always true here
            found += ws() + "AND" + ws() + "NOT" + ws() + "(owner" + ws() + "=" + ws() + \
                literal(draw(st.sampled_from(decoys))) + ")"
        depth = draw(st.integers(0, 20))
        return "(" * depth + found + ")" * depth

    def word(text: str) -> str:
        return "".join(c.upper() if draw(st.booleans()) else c.lower() for c in text)

    kind = draw(st.sampled_from(["SELECT", "UPDATE", "DELETE", "INSERT"]))
    if kind == "SELECT":
        text = word("SELECT") + ws() + "*" + ws() + word("FROM") + name() + word("WHERE") + \
            ws() + condition()
    elif kind == "UPDATE":
        text = word("UPDATE") + name() + word("SET") + ws() + "n" + ws() + "=" + ws() + "n" + \
            ws() + "+" + ws() + "1" + ws() + word("WHERE") + ws() + condition()
    elif kind == "DELETE":
        text = word("DELETE") + ws() + word("FROM") + name() + word("WHERE") + ws() + \
            condition()
    else:
        text = word("INSERT") + ws() + word("INTO") + name() + word("VALUE") + ws() + \
            "{'pk': 'b', 'owner': " + literal(draw(st.sampled_from(decoys))) + "}"
    return kind, text + draw(st.sampled_from(["", ";", ws()])), table, decoy


def item(engine: Engine, table: str, pk: str = "a") -> dict[str, Any] | None:
    found: dict[str, Any] | None = engine.call(
        "GetItem", {"TableName": table, "Key": {"pk": {"S": pk}}}).get("Item")
    return found


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(statements())
def test_the_tables_the_access_check_sees_are_the_tables_the_statement_touches(
        engine: Engine, drawn: tuple[str, str, str, str]) -> None:
    kind, statement, table, decoy = drawn
    request = {"Statement": statement}
    touches = engine.resolve("ExecuteStatement", request)
    assert [t.table for t in touches] == [table], statement
    assert [t.table for t in engine.resolve(
        "BatchExecuteStatement", {"Statements": [request]})] == [table]
    assert [t.table for t in engine.resolve(
        "ExecuteTransaction", {"TransactStatements": [request]})] == [table]
    with engine.store.transaction() as txn:  # the request the statement runs as
        assert planned(txn, request).request["TableName"] == table, statement

    restore(engine)
    with pytest.raises(AccessDeniedException):
        engine.call("ExecuteStatement", request,
                    access=Access("AKID", "us-east-1", tables=frozenset({decoy})))
    assert [item(engine, name) for name in (table, decoy)] == [
        {**KEY, "owner": {"S": name}, "n": {"N": "0"}} for name in (table, decoy)]
    try:
        answer = engine.call("ExecuteStatement", request,
                             access=Access("AKID", "us-east-1", tables=frozenset({table})))
    except AccessDeniedException:
        raise AssertionError(f"refused on its own table: {statement}") from None
    except DynamoDBError as error:  # a statement DynamoDB refuses: it touched nothing
        event(f"refused: {error.code()}")
        answer = None
    untouched = {**KEY, "owner": {"S": decoy}, "n": {"N": "0"}}
    assert item(engine, decoy) == untouched and item(engine, decoy, "b") is None, statement
    if answer is None:
        return
    event(f"ran: {kind}")
    if kind == "SELECT":
        assert [i["owner"]["S"] for i in answer["Items"]] == [table]
    elif kind == "UPDATE":
        assert item(engine, table) == {**KEY, "owner": {"S": table}, "n": {"N": "1"}}
    elif kind == "DELETE":
        assert item(engine, table) is None
    else:
        assert item(engine, table, "b") is not None
