"""A Query's filter on an index may name only attributes the index projects:
DynamoDB refuses the rest before reading, on a GSI and an LSI alike, even
when the LSI would fetch whole items (``Select=ALL_ATTRIBUTES``). The text is
DynamoDB's (DynamoDB Local's QueryFunction; ScyllaDB's Alternator tests match
it against DynamoDB): the index and the attributes, sorted, in brackets."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError
from index_tables import create, gsi, lsi
from tallytest import assert_error, unique_name

NOT_PROJECTED = ("One or more parameter values were invalid: Secondary index {} does not "
                 "project one or more filter attributes: [{}]")


@pytest.fixture
def table(ddb: Any) -> Iterator[str]:
    name = create(
        ddb, unique_name("filters"), [("pk", "HASH"), ("sk", "RANGE")],
        {"pk": "S", "sk": "S", "g": "S", "l": "S"},
        gsis=[gsi("by_g", "g", include=["shown"], projection="INCLUDE")],
        lsis=[lsi("by_l", "pk", "l", projection="KEYS_ONLY")])
    for n in range(3):
        ddb.put_item(TableName=name, Item={
            "pk": {"S": "p"}, "sk": {"S": f"s{n}"}, "g": {"S": "v"}, "l": {"S": f"l{n}"},
            "shown": {"N": str(n)}, "unseen": {"N": str(n)}, "zz": {"N": str(n)}})
    yield name
    ddb.delete_table(TableName=name)


def _query(ddb: Any, table: str, index: str, **request: Any) -> Any:
    key = "g" if index == "by_g" else "pk"
    value = "v" if index == "by_g" else "p"
    names = request.pop("names", {})
    values = {":k": {"S": value}, **request.pop("values", {})}
    if "QueryFilter" in request:
        return ddb.query(TableName=table, IndexName=index, KeyConditions={
            key: {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": value}]}}, **request)
    return ddb.query(TableName=table, IndexName=index, KeyConditionExpression=f"{key} = :k",
                     ExpressionAttributeValues=values,
                     **({"ExpressionAttributeNames": names} if names else {}), **request)


@pytest.mark.parametrize(("index", "request_kwargs", "listed"), [
    ("by_g", {"FilterExpression": "unseen > :n", "values": {":n": {"N": "0"}}}, "unseen"),
    ("by_g", {"FilterExpression": "zz > :n AND (#u > :n OR shown > :n)",
              "names": {"#u": "unseen"}, "values": {":n": {"N": "0"}}}, "unseen, zz"),
    ("by_g", {"QueryFilter": {"unseen": {"ComparisonOperator": "NOT_NULL"}}}, "unseen"),
    ("by_l", {"FilterExpression": "unseen > :n", "values": {":n": {"N": "0"}}}, "unseen"),
    ("by_l", {"FilterExpression": "unseen > :n", "values": {":n": {"N": "0"}},
              "Select": "ALL_ATTRIBUTES"}, "unseen"),
    ("by_l", {"FilterExpression": "size(unseen.x) > :n", "values": {":n": {"N": "0"}},
              "ProjectionExpression": "unseen"}, "unseen"),
])
def test_a_query_filter_on_an_attribute_the_index_does_not_project_is_refused(
        ddb: Any, table: str, index: str, request_kwargs: dict[str, Any], listed: str) -> None:
    with pytest.raises(ClientError) as excinfo:
        _query(ddb, table, index, **request_kwargs)
    assert_error(excinfo, "ValidationException", NOT_PROJECTED.format(index, listed))


def test_a_query_filter_may_name_what_the_index_projects_and_no_more(
        ddb: Any, table: str) -> None:
    answer = _query(ddb, table, "by_g", FilterExpression="shown > :n AND sk <> :s",
                    values={":n": {"N": "0"}, ":s": {"S": "s1"}})
    assert sorted(item["sk"]["S"] for item in answer["Items"]) == ["s2"]
    # The table's sort key is projected into every index (KEYS_ONLY too).
    answer = _query(ddb, table, "by_l", FilterExpression="sk = :s",
                    values={":s": {"S": "s1"}}, Select="ALL_ATTRIBUTES")
    assert [item["unseen"] for item in answer["Items"]] == [{"N": "1"}]
    # ... but not the attribute it would fetch from the table.
    with pytest.raises(ClientError) as excinfo:
        _query(ddb, table, "by_l", FilterExpression="sk = :s AND unseen = :n",
               values={":s": {"S": "s1"}, ":n": {"N": "1"}}, Select="ALL_ATTRIBUTES")
    assert_error(excinfo, "ValidationException", NOT_PROJECTED.format("by_l", "unseen"))
