"""DescribeKinesisStreamingDestination: a table's Kinesis destinations, with
their status, why the last send failed if it did, and their precision."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._jobs import integrations
from tallydb.engine.api._kinesis_destinations import destinations, shown, table_of
from tallydb.engine.storage import Transaction


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
