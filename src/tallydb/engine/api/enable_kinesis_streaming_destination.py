"""EnableKinesisStreamingDestination: send the table's changes to a Kinesis
data stream (``_kinesis``). The destination starts ENABLING; the forwarder
makes it ACTIVE once the stream answers, or ENABLE_FAILED if it does not
exist. A table has one live destination at a time (ResourceInUseException
for a second; not on record, ours)."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._kinesis_destinations import (
    LIVE,
    check_stream_arn,
    destinations,
    on_destination,
    switched,
    table_of,
)
from tallydb.engine.errors import ResourceInUseException
from tallydb.engine.storage import Transaction

IN_USE = "Table {} already has a Kinesis streaming destination: {}"


ACCESS = on_destination("EnableKinesisStreamingDestination")


#: The checks before the lookup: the stream ARN's form (``_pipeline``).
validate = check_stream_arn


def enable_kinesis_streaming_destination(txn: Transaction, request: dict[str, Any],
                                          checked: None) -> dict[str, Any]:
    record = table_of(txn, request)
    arn = request["StreamArn"]
    precision = (request.get("EnableKinesisStreamingConfiguration") or {}).get(
        "ApproximateCreationDateTimePrecision", "MILLISECOND")
    kept = []
    for destination in destinations(record):
        if destination["DestinationStatus"] in LIVE:
            raise ResourceInUseException(IN_USE.format(record.name, destination["StreamArn"]))
        if destination["StreamArn"] != arn:
            kept.append(destination)
    kept.append({"StreamArn": arn, "DestinationStatus": "ENABLING",
                 "ApproximateCreationDateTimePrecision": precision})
    switched(txn, record, kept)
    return {"TableName": record.name, "StreamArn": arn, "DestinationStatus": "ENABLING",
            "EnableKinesisStreamingConfiguration": {
                "ApproximateCreationDateTimePrecision": precision}}
