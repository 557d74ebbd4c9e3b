"""Members outside DynamoDB's model are ignored, as DynamoDB ignores them
(dynalite's checkTypes, recorded against DynamoDB, drops every member its
operation does not have): the request pipeline drops them before any step
reads the request, so none can change what runs or what is allowed; and
statements nested past the parser's bound are refused, not a 500.
Through boto3's wire against a real ``tallydb serve`` and in-process.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from tallytest import Backend

KEY = {"pk": {"S": "a"}}
ITEM = {"pk": {"S": "a"}, "n": {"N": "5"}, "m": {"M": {"x": {"S": "y"}}}}


@pytest.fixture
def tbl(backend: Backend, make_table: Callable[..., str]) -> str:
    name = make_table("ign", hash=("pk", "S"))
    assert backend.raw("PutItem", {"TableName": name, "Item": ITEM}).status == 200
    return name


@pytest.mark.parametrize("values", ["x", 1, [], {":v": {"S": "a"}}, None])
def test_get_item_ignores_expression_attribute_values(
        backend: Backend, tbl: str, values: object) -> None:
    # GetItem has no ExpressionAttributeValues: with a ProjectionExpression
    # or without, whatever its JSON type, the answer is the same 200
    for extra in ({}, {"ProjectionExpression": "n, m.x"}):
        answer = backend.raw("GetItem", {"TableName": tbl, "Key": KEY,
                                         "ExpressionAttributeValues": values, **extra})
        assert answer.status == 200, answer.body
        expected = ITEM if not extra else {"n": ITEM["n"], "m": ITEM["m"]}
        assert answer.json == {"Item": expected}


def test_a_member_of_another_operation_changes_nothing(backend: Backend, tbl: str) -> None:
    answer = backend.raw("DescribeLimits", {"TableName": "no-such-table", "Key": KEY})
    assert answer.status == 200, answer.body
    answer = backend.raw("DeleteItem", {"TableName": tbl, "Key": KEY,
                                        "RequestItems": {"other": []}, "Item": {"pk": 5}})
    assert answer.status == 200, answer.body


@pytest.mark.parametrize("statement", [
    "SELECT * FROM \"{t}\" WHERE " + "(" * 162 + "pk = 'a'" + ")" * 162,
    "UPDATE \"{t}\" SET n = " + "(" * 162 + "1" + ")" * 162 + " WHERE pk = 'a'",
    "SELECT * FROM \"{t}\" WHERE pk IN " + "[" * 325 + "'a'" + "]" * 325,
    "SELECT * FROM \"{t}\" WHERE " + "NOT " * 400 + "pk = 'a'",
])
def test_a_statement_nested_too_deep_is_refused(
        backend: Backend, tbl: str, statement: str) -> None:
    text = statement.replace("{t}", tbl)
    message = ("Statement wasn't well formed, can't be processed: Statement nesting exceeds "
               "the limit of 32 levels")
    for operation, body in (("ExecuteStatement", {"Statement": text}),
                            ("ExecuteTransaction", {"TransactStatements": [{"Statement": text}]})):
        answer = backend.raw(operation, body)
        assert (answer.status, answer.error_code, answer.message) == (
            400, "ValidationException", message), answer.body
    answer = backend.raw("BatchExecuteStatement", {"Statements": [{"Statement": text}]})
    assert answer.status == 200, answer.body
    assert answer.json["Responses"][0]["Error"] == {"Code": "ValidationError",
                                                    "Message": message}
    assert backend.raw("GetItem", {"TableName": tbl, "Key": KEY}).json == {"Item": ITEM}


@pytest.mark.parametrize(("operation", "member"), [
    ("ListBulkOperations", "MaxResults"), ("ListExports", "MaxResults"),
    ("ListImports", "PageSize")])
def test_a_null_page_size_is_no_page_size(backend: Backend, operation: str, member: str) -> None:
    # a member sent as null is a member not sent, as everywhere in the JSON protocol
    answer = backend.raw(operation, {member: None})
    assert answer.status == 200, answer.body
