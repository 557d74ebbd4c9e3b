"""Contributor insights: Update/Describe/ListContributorInsights through
boto3 against a real ``tallydb serve`` and in-process, and the busiest keys
from the console's JSON endpoint (``/console/api/contributor-insights``)."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from tallytest import Backend, TallyServer, unique_name


def _table(ddb: Any) -> str:
    name = unique_name("insights")
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                   {"AttributeName": "SK", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"}
                              for n in ("PK", "SK", "owner")],
        GlobalSecondaryIndexes=[{"IndexName": "by-owner",
                                 "KeySchema": [{"AttributeName": "owner", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}}])
    return name


def _add(ddb: Any, table: str, pk: str, times: int) -> None:
    for _ in range(times):
        ddb.update_item(TableName=table, Key={"PK": {"S": pk}, "SK": {"S": "total"}},
                        UpdateExpression="ADD n :one SET #o = :o",
                        ExpressionAttributeNames={"#o": "owner"},
                        ExpressionAttributeValues={":one": {"N": "1"}, ":o": {"S": f"of-{pk}"}})


def test_insights_switch_and_describe(backend: Backend) -> None:
    ddb = backend.client()
    table = _table(ddb)
    try:
        described = ddb.describe_contributor_insights(TableName=table)
        assert described["ContributorInsightsStatus"] == "DISABLED"
        answer = ddb.update_contributor_insights(TableName=table,
                                                 ContributorInsightsAction="ENABLE")
        assert answer["ContributorInsightsStatus"] == "ENABLED"
        assert answer["ContributorInsightsMode"] == "ACCESSED_AND_THROTTLED_KEYS"
        described = ddb.describe_contributor_insights(TableName=table)
        assert described["ContributorInsightsStatus"] == "ENABLED"
        rules = described["ContributorInsightsRuleList"]
        assert sorted(rule.split("-")[1] for rule in rules) == ["PKC", "PKT", "SKC", "SKT"]
        assert all(rule.startswith("DynamoDBContributorInsights-") and table in rule
                   for rule in rules)
        ddb.update_contributor_insights(TableName=table, IndexName="by-owner",
                                        ContributorInsightsAction="ENABLE",
                                        ContributorInsightsMode="THROTTLED_KEYS")
        index = ddb.describe_contributor_insights(TableName=table, IndexName="by-owner")
        assert [rule.split("-")[1] for rule in index["ContributorInsightsRuleList"]] == ["PKT"]
        listed = ddb.list_contributor_insights(TableName=table)["ContributorInsightsSummaries"]
        assert {(s.get("IndexName"), s["ContributorInsightsStatus"]) for s in listed} == {
            (None, "ENABLED"), ("by-owner", "ENABLED")}
        ddb.update_contributor_insights(TableName=table, ContributorInsightsAction="DISABLE")
        described = ddb.describe_contributor_insights(TableName=table)
        assert described["ContributorInsightsStatus"] == "DISABLED"
        assert described["ContributorInsightsRuleList"] == []
        with pytest.raises(ClientError) as info:
            ddb.describe_contributor_insights(TableName=table, IndexName="no-such-index")
        assert info.value.response["Error"]["Code"] == "ResourceNotFoundException"
        with pytest.raises(ClientError) as info:
            ddb.update_contributor_insights(TableName="no-such-table",
                                            ContributorInsightsAction="ENABLE")
        assert info.value.response["Error"]["Code"] == "ResourceNotFoundException"
    finally:
        ddb.delete_table(TableName=table)


def test_the_hammered_key_is_first_in_the_top_keys(
    tallydb_server_factory: Callable[..., TallyServer],
) -> None:
    server = tallydb_server_factory()
    ddb = server.client()
    table = _table(ddb)
    ddb.update_contributor_insights(TableName=table, ContributorInsightsAction="ENABLE")
    ddb.update_contributor_insights(TableName=table, IndexName="by-owner",
                                    ContributorInsightsAction="ENABLE")
    _add(ddb, table, "hammered", 60)
    for pk in ("a", "b", "c"):
        _add(ddb, table, pk, 3)
    ddb.get_item(TableName=table, Key={"PK": {"S": "a"}, "SK": {"S": "total"}})

    def top(index: str | None = None) -> dict[str, Any]:
        query = f"TableName={table}&Limit=3" + (f"&IndexName={index}" if index else "")
        with urllib.request.urlopen(
                f"{server.url}/console/api/contributor-insights?{query}", timeout=30) as answer:
            found: dict[str, Any] = json.load(answer)
            return found

    shown = top()
    assert shown["ContributorInsightsStatus"] == "ENABLED"
    keys = shown["TopKeys"]
    assert len(keys) == 3
    assert keys[0]["keys"] == {"PK": {"S": "hammered"}, "SK": {"S": "total"}}
    assert keys[0]["accesses"] == 60
    assert keys[1]["accesses"] == 4  # a: three writes and a read
    index = top("by-owner")["TopKeys"]
    assert index[0]["keys"]["PK"] == {"S": "hammered"} and index[0]["accesses"] == 60
    try:
        urllib.request.urlopen(
            f"{server.url}/console/api/contributor-insights?TableName=nope", timeout=30)
    except urllib.error.HTTPError as error:
        assert error.code == 400
        assert json.load(error)["__type"].endswith("#ResourceNotFoundException")
    else:
        raise AssertionError("a missing table answered 200")
