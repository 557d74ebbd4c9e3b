"""``POST /console/api/parse``: the server's own parser and static checks,
DynamoDB's messages, and where the offending token is; nothing is run."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from console_server import post_json, serving
from tallytest import TallyServer

from tallydb.console.parse import parse

VALIDATION = "com.amazon.coral.validate#ValidationException"


@pytest.fixture(scope="module")
def server() -> Iterator[TallyServer]:
    with serving() as server:
        yield server


def check(server: TallyServer, request: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """The endpoint's answer, which must equal the in-process one."""
    over_http = post_json(server, "/console/api/parse", request)
    assert over_http == parse(request)
    return over_http


def test_a_valid_increment_is_valid(server: TallyServer) -> None:
    assert check(server, {
        "UpdateExpression": "ADD #n :d", "ExpressionAttributeNames": {"#n": "play_count"},
        "ExpressionAttributeValues": {":d": {"N": "1"}}}) == (
            200, {"valid": True, "operation": "UpdateItem"})


def test_an_unused_value_gets_dynamodbs_message(server: TallyServer) -> None:
    status, body = check(server, {
        "UpdateExpression": "ADD play_count :d",
        "ExpressionAttributeValues": {":d": {"N": "1"}, ":v": {"N": "2"}}})
    assert status == 400
    assert body["__type"] == VALIDATION
    assert body["message"] == (
        "Value provided in ExpressionAttributeValues unused in expressions: keys: {:v}")
    assert body["expression"] == "ExpressionAttributeValues"


def test_a_syntax_error_marks_its_token(server: TallyServer) -> None:
    text = "SET play_count + :d"
    status, body = check(server, {"UpdateExpression": text,
                                  "ExpressionAttributeValues": {":d": {"N": "1"}}})
    assert status == 400
    assert body["message"] == (
        'Invalid UpdateExpression: Syntax error; token: "+", near: "play_count + :d"')
    assert body["expression"] == "UpdateExpression"
    assert text[body["start"]:body["end"]] == "+"


def test_a_reserved_word_and_an_undefined_value_are_marked(server: TallyServer) -> None:
    text = "SET count = :v"
    _, body = check(server, {"UpdateExpression": text,
                             "ExpressionAttributeValues": {":v": {"N": "1"}}})
    assert body["message"] == (
        "Invalid UpdateExpression: Attribute name is a reserved keyword; "
        "reserved keyword: count")
    assert text[body["start"]:body["end"]] == "count"
    condition = "play_count = :expected"
    _, body = check(server, {"UpdateExpression": "SET play_count = :v",
                             "ConditionExpression": condition,
                             "ExpressionAttributeValues": {":v": {"N": "1"}}})
    assert body["expression"] == "ConditionExpression"
    assert condition[body["start"]:body["end"]] == ":expected"


def test_an_expression_at_its_end_is_marked_there(server: TallyServer) -> None:
    _, body = check(server, {"FilterExpression": "a >"})
    assert body["message"] == 'Invalid FilterExpression: Syntax error; token: "<EOF>", near: ">"'
    assert (body["start"], body["end"]) == (3, 3)


def test_key_conditions_are_checked_as_a_query_checks_them(server: TallyServer) -> None:
    assert check(server, {"KeyConditionExpression": "PK = :p AND begins_with(SK, :s)",
                          "ExpressionAttributeValues": {":p": {"S": "VID#9f3a"},
                                                       ":s": {"S": "STATS#"}}})[0] == 200


def test_wrong_json_types_are_refused_not_crashed(server: TallyServer) -> None:
    for request in ({"UpdateExpression": 5}, {"ExpressionAttributeValues": {":v": 1}},
                    {"ExpressionAttributeNames": ["#n"]}):
        status, body = check(server, request)
        assert status == 400
        assert body["__type"].endswith("SerializationException")


KEYS = {"table": "videos", "index": None, "attributes": [["PK", "S"], ["SK", "S"]]}


def test_a_statement_is_described_and_planned_onto_its_json_operation(
        server: TallyServer) -> None:
    statement = 'UPDATE "videos" SET n = n + 1 WHERE PK = ? AND SK = ?'
    parameters = [{"S": "VID#1"}, {"S": "STATS"}]
    assert check(server, {"Statement": statement, "Parameters": parameters}) == (200, {
        "valid": True, "statement": "Update", "table": "videos", "index": None,
        "parameters": 2})
    status, body = check(server, {"Statement": statement, "Parameters": parameters,
                                  "Keys": KEYS})
    assert status == 200
    assert body["planned"] == {"operation": "UpdateItem", "request": {
        "TableName": "videos", "Key": {"PK": {"S": "VID#1"}, "SK": {"S": "STATS"}},
        "UpdateExpression": "SET #n0 = #n0 + :v0", "ConditionExpression": "attribute_exists(#n1)",
        "ExpressionAttributeNames": {"#n0": "n", "#n1": "PK"},
        "ExpressionAttributeValues": {":v0": {"N": "1"}}}}
    # keys of another table are not used for this one
    other = {**KEYS, "table": "other"}
    assert "planned" not in check(server, {"Statement": statement, "Parameters": parameters,
                                           "Keys": other})[1]


@pytest.mark.parametrize(("request_body", "message"), [
    ({"Statement": "SELEC * FROM videos"},
     "Statement wasn't well formed, can't be processed: Expected data manipulation"),
    ({"Statement": 'SELECT * FROM "videos" WHERE PK = ?'},
     "Number of parameters in request and statement don't match."),
    ({"Statement": 'UPDATE "videos" SET n = 1 WHERE PK = ?', "Parameters": [{"S": "a"}],
      "Keys": KEYS},
     "Where clause does not contain a mandatory equality on all key attributes"),
])
def test_a_bad_statement_gets_dynamodbs_message(
        server: TallyServer, request_body: dict[str, Any], message: str) -> None:
    status, body = check(server, request_body)
    assert (status, body) == (400, {"__type": VALIDATION, "message": message})
