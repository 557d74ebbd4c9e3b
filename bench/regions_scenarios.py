"""The requests bench.regions sends: a hot-key ADD on a table, and the
tables it sends them to."""

from __future__ import annotations

import json
from typing import Any

from bench.dynamo import RawClient
from bench.scenarios import Scenario

KEY = {"pk": {"S": "hot"}}


def create(client: RawClient, table: str) -> None:
    """A PAY_PER_REQUEST table keyed ``pk`` (S)."""
    client.call("CreateTable", {
        "TableName": table, "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]})


def add_scenario(name: str, table: str) -> Scenario:
    """wrk sending UpdateItem ``ADD play_count :one`` on one item of ``table``."""
    body: dict[str, Any] = {
        "TableName": table, "Key": KEY, "UpdateExpression": "ADD play_count :one",
        "ExpressionAttributeValues": {":one": {"N": "1"}}}
    return Scenario(name, name, name, {
        "BENCH_MODE": "static", "BENCH_TARGET": "UpdateItem",
        "BENCH_BODY": json.dumps(body, separators=(",", ":"))})
