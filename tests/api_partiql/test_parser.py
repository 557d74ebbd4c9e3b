"""The PartiQL parser and planner on their own: statements to the requests
of the JSON operations they run as."""

from __future__ import annotations

import pytest

from tallydb.engine.errors import ValidationException
from tallydb.engine.partiql import Insert, Select, Update, parse, parse_counted, plan
from tallydb.engine.partiql.ast import Arithmetic, Literal, Path

KEYS = [("PK", "S"), ("SK", "S")]
INCREMENT = ("UPDATE \"videos\" SET play_count = play_count + 1 "
             "WHERE PK = 'VID#9f3a' AND SK = 'STATS#TOTAL'")


def test_increment_parses_into_an_arithmetic_set() -> None:
    statement = parse(INCREMENT)
    assert isinstance(statement, Update)
    assert statement.table == "videos"
    assert statement.sets == ((Path(("play_count",)),
                               Arithmetic("+", Path(("play_count",)), Literal({"N": "1"}))),)


def test_increment_plans_as_update_item_on_an_existing_item() -> None:
    planned = plan(parse(INCREMENT), [], KEYS)
    assert planned.operation == "UpdateItem"
    request = planned.request
    assert request["Key"] == {"PK": {"S": "VID#9f3a"}, "SK": {"S": "STATS#TOTAL"}}
    names = request["ExpressionAttributeNames"]
    assert request["UpdateExpression"] == "SET #n0 = #n0 + :v0"
    assert names["#n0"] == "play_count"
    # PartiQL's UPDATE is no upsert: the item must exist
    assert request["ConditionExpression"] == "attribute_exists(#n1)" and names["#n1"] == "PK"


def test_parse_is_cached_by_text() -> None:
    assert parse_counted(INCREMENT) is parse_counted(INCREMENT)


def test_keywords_ignore_case_and_comments_are_whitespace() -> None:
    statement = parse("select * /* all */ from \"t\" where PK = ? -- the key\n;")
    assert isinstance(statement, Select) and statement.projection is None
    assert parse_counted("SELECT * FROM t WHERE PK = ? AND n = ?")[1] == 2


def test_literals_of_each_type() -> None:
    statement = parse("INSERT INTO t VALUE {'PK': 'a', 'n': -1.50, 'b': TRUE, 'z': NULL, "
                      "'l': [1, 'x'], 'm': {'k': 2}, 's': <<'x', 'y'>>, 'q': 'it''s'}")
    assert isinstance(statement, Insert)
    item = plan(statement, [], [("PK", "S")]).request["Item"]
    assert item == {"PK": {"S": "a"}, "n": {"N": "-1.5"}, "b": {"BOOL": True},
                    "z": {"NULL": True}, "l": {"L": [{"N": "1"}, {"S": "x"}]},
                    "m": {"M": {"k": {"N": "2"}}}, "s": {"SS": ["x", "y"]},
                    "q": {"S": "it's"}}


@pytest.mark.parametrize(("text", "message"), [
    # DynamoDB Local's recorded set messages
    ("INSERT INTO t VALUE {'PK': 'a', 's': <<>>}", "Empty bags are not supported"),
    ("INSERT INTO t VALUE {'PK': 'a', 's': <<'x', 'x'>>}",
     "Input collection contains duplicates"),
    ("INSERT INTO t VALUE {'PK': 'a', 's': <<'x', 1>>}",
     "DynamoDB only supports either numbers or strings in bags"),
])
def test_bad_sets(text: str, message: str) -> None:
    with pytest.raises(ValidationException) as excinfo:
        parse(text)
    assert excinfo.value.message == message


@pytest.mark.parametrize("text", [
    "", "SELEC * FROM t", "SELECT * FROM", "UPDATE t WHERE PK = 'a'",
    "SELECT * FROM t; SELECT * FROM t", "DELETE t WHERE PK = 'a'",
    "UPDATE t SET a = WHERE PK = 'a'",
])
def test_statements_that_are_not_well_formed(text: str) -> None:
    with pytest.raises(ValidationException) as excinfo:
        parse(text)
    assert excinfo.value.code() == "ValidationException"
    assert (excinfo.value.message or "").startswith(
        "Statement wasn't well formed, can't be processed: ")


def test_update_without_the_whole_key_is_refused() -> None:
    with pytest.raises(ValidationException) as excinfo:
        plan(parse("UPDATE t SET a = 1 WHERE PK = 'a'"), [], KEYS)
    assert excinfo.value.message == (
        "Where clause does not contain a mandatory equality on all key attributes")


def test_update_clauses() -> None:
    planned = plan(parse(
        "UPDATE t SET a.b[2] = ?, l = list_append(l, [1]) SET s = set_add(s, <<'x'>>) "
        "SET d = set_delete(d, <<1>>) REMOVE gone WHERE PK = 'a' AND SK = 'b' AND v > 3 "
        "RETURNING ALL NEW *"), [{"S": "x"}], KEYS)
    request = planned.request
    names = {v: k for k, v in request["ExpressionAttributeNames"].items()}
    assert request["UpdateExpression"] == (
        f"SET {names['a']}.{names['b']}[2] = :v0, {names['l']} = list_append({names['l']}, :v1)"
        f" REMOVE {names['gone']} ADD {names['s']} :v2 DELETE {names['d']} :v3")
    assert request["ConditionExpression"] == (
        f"attribute_exists({names['PK']}) AND {names['v']} > :v4")
    assert request["ReturnValues"] == "ALL_NEW"


def test_select_with_the_hash_key_is_a_query_else_a_scan() -> None:
    keyed = plan(parse("SELECT a FROM t WHERE PK = 'x' AND SK BETWEEN 'a' AND 'c' "
                       "AND contains(tags, 'y') ORDER BY SK DESC"), [], KEYS)
    assert keyed.operation == "Query"
    assert keyed.request["KeyConditionExpression"] == "#n1 = :v0 AND #n2 BETWEEN :v1 AND :v2"
    assert keyed.request["FilterExpression"] == "contains(#n3, :v3)"
    assert keyed.request["ScanIndexForward"] is False
    scan = plan(parse("SELECT * FROM t WHERE n IN (1, 2) OR x IS NOT MISSING"), [], KEYS)
    assert scan.operation == "Scan"
    assert scan.request["FilterExpression"] == "(#n0 IN (:v0, :v1) OR attribute_exists(#n1))"


def test_select_from_an_index_uses_the_index_key() -> None:
    planned = plan(parse('SELECT * FROM "t"."byOwner" WHERE owner = ?'), [{"S": "o"}],
                   [("owner", "S")])
    assert planned.operation == "Query"
    assert planned.request["IndexName"] == "byOwner"
