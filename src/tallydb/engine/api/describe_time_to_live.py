"""DescribeTimeToLive: ENABLED with the attribute, or DISABLED (without one:
DynamoDB does not remember a disabled attribute; ack-api-quirks DDB-TABLE-144)."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._access import on_table
from tallydb.engine.api.describe_table import find_table, table_named
from tallydb.engine.storage import Transaction

#: What a request touches (``_access``): reads the table its TableName names.
ACCESS = on_table("DescribeTimeToLive", write=False, read=table_named)


def describe_time_to_live(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    record = find_table(txn, request["TableName"])
    ttl = record.description.get("_TimeToLive")
    if ttl is None:
        return {"TimeToLiveDescription": {"TimeToLiveStatus": "DISABLED"}}
    return {"TimeToLiveDescription": {
        "TimeToLiveStatus": "ENABLED", "AttributeName": ttl["AttributeName"]}}
