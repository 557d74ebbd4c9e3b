"""DescribeKinesisStreamingDestination: a table's Kinesis destinations, with
their status, why the last send failed if it did, and their precision."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._access import on_table
from tallydb.engine.api._jobs import integrations
from tallydb.engine.api._kinesis_destinations import destinations, shown, table_of
from tallydb.engine.api.describe_table import table_named
from tallydb.engine.storage import Transaction

#: What a request touches (``_access``): reads the table its TableName names.
ACCESS = on_table("DescribeKinesisStreamingDestination", write=False, read=table_named)


def describe_kinesis_streaming_destination(txn: Transaction, request: dict[str, Any]
                                           ) -> dict[str, Any]:
    record = table_of(txn, request)
    problems = integrations(txn).extras["kinesis"].problems
    listed = []
    for destination in destinations(record):
        entry = shown(destination)
        problem = problems.get((record.key, destination["StreamArn"]))
        if problem is not None and entry["DestinationStatus"] in ("ENABLING", "ACTIVE"):
            entry["DestinationStatusDescription"] = problem
        listed.append(entry)
    return {"TableName": record.name, "KinesisDataStreamDestinations": listed}
