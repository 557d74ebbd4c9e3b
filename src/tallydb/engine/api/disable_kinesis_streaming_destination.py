"""DisableKinesisStreamingDestination: stop sending the table's changes to
a stream. Records already captured are still sent; the destination is
DISABLED at once (DynamoDB answers DISABLING, then shows DISABLED)."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._kinesis_destinations import (
    check_stream_arn,
    destinations,
    live_destination,
    on_destination,
    switched,
    table_of,
)
from tallydb.engine.storage import Transaction

ACCESS = on_destination("DisableKinesisStreamingDestination")


#: The checks before the lookup: the stream ARN's form (``_pipeline``).
validate = check_stream_arn


def disable_kinesis_streaming_destination(txn: Transaction, request: dict[str, Any],
                                           checked: None) -> dict[str, Any]:
    record = table_of(txn, request)
    arn = request["StreamArn"]
    live_destination(record, arn)
    kept = [dict(d, DestinationStatus="DISABLED") if d["StreamArn"] == arn else d
            for d in destinations(record)]
    switched(txn, record, kept)
    answer: dict[str, Any] = {"TableName": record.name, "StreamArn": arn,
                              "DestinationStatus": "DISABLING"}
    configuration = request.get("EnableKinesisStreamingConfiguration")
    if configuration is not None:
        answer["EnableKinesisStreamingConfiguration"] = configuration
    return answer
