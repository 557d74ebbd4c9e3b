"""UpdateKinesisStreamingDestination: change a live destination's
ApproximateCreationDateTimePrecision (the records sent from then on carry
the new one, those of changes made before it but still waiting included)."""

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
from tallydb.engine.errors import ValidationException
from tallydb.engine.storage import Transaction

#: Not on record: ours.
NOTHING = "UpdateKinesisStreamingConfiguration must name an ApproximateCreationDateTimePrecision"
SAME = "The ApproximateCreationDateTimePrecision of {} is already {}"


ACCESS = on_destination("UpdateKinesisStreamingDestination")


def validate(request: dict[str, Any]) -> str:
    """The checks before the lookup (``_pipeline``): the stream ARN's form,
    a precision given; the precision."""
    check_stream_arn(request)
    precision = (request.get("UpdateKinesisStreamingConfiguration") or {}).get(
        "ApproximateCreationDateTimePrecision")
    if precision is None:
        raise ValidationException(NOTHING)
    return str(precision)


def update_kinesis_streaming_destination(txn: Transaction, request: dict[str, Any],
                                         precision: str) -> dict[str, Any]:
    record = table_of(txn, request)
    arn = request["StreamArn"]
    found = live_destination(record, arn)
    if found.get("ApproximateCreationDateTimePrecision") == precision:
        raise ValidationException(SAME.format(arn, precision))
    kept = [dict(d, ApproximateCreationDateTimePrecision=precision)
            if d["StreamArn"] == arn else d for d in destinations(record)]
    switched(txn, record, kept)
    return {"TableName": record.name, "StreamArn": arn,
            "DestinationStatus": found["DestinationStatus"],
            "UpdateKinesisStreamingConfiguration": {
                "ApproximateCreationDateTimePrecision": precision}}
