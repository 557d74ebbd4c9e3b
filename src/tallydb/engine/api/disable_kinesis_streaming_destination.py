"""DisableKinesisStreamingDestination: stop sending the table's changes to
a stream. Records already captured are still sent; the destination is
DISABLED at once (DynamoDB answers DISABLING, then shows DISABLED)."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._access import on_table
from tallydb.engine.api._kinesis_destinations import (
    LIVE,
    check_stream_arn,
    destinations,
    find_destination,
    switched,
    table_of,
)
from tallydb.engine.api.describe_table import table_named
from tallydb.engine.errors import ValidationException
from tallydb.engine.storage import Transaction

#: Not on record: ours.
NOT_LIVE = "Kinesis streaming destination {} of table {} is not enabled"


#: What a request touches (``_access``): the table its TableName names, and
#: the Kinesis stream its changes are sent to (no table's: ``outside``).
ACCESS = on_table("DisableKinesisStreamingDestination", write=True, read=table_named,
                  outside="StreamArn")


#: The checks before the lookup: the stream ARN's form (``_pipeline``).
validate = check_stream_arn


def disable_kinesis_streaming_destination(txn: Transaction, request: dict[str, Any],
                                           checked: None) -> dict[str, Any]:
    record = table_of(txn, request)
    arn = request["StreamArn"]
    found = find_destination(record, arn)
    if found["DestinationStatus"] not in LIVE:
        raise ValidationException(NOT_LIVE.format(arn, record.name))
    kept = [dict(d, DestinationStatus="DISABLED") if d["StreamArn"] == arn else d
            for d in destinations(record)]
    switched(txn, record, kept)
    answer: dict[str, Any] = {"TableName": record.name, "StreamArn": arn,
                              "DestinationStatus": "DISABLING"}
    configuration = request.get("EnableKinesisStreamingConfiguration")
    if configuration is not None:
        answer["EnableKinesisStreamingConfiguration"] = configuration
    return answer
