"""What the four Kinesis destination operations share: the table, its
destinations as DescribeKinesisStreamingDestination shows them, and the
switch of the capture (``_kinesis``).

DynamoDB's messages for these refusals are not on record (no SDK fixture,
issue or emulator tested against DynamoDB quotes them): the texts are ours.
"""

from __future__ import annotations

from typing import Any

from tallydb.engine.api import _streams as streams
from tallydb.engine.api._access import Resolver, on_table
from tallydb.engine.api._jobs import integrations
from tallydb.engine.api._kinesis import CAPTURE, KINESIS, OUTBOX, drop_outbox
from tallydb.engine.api.describe_table import find_table, table_named
from tallydb.engine.errors import ValidationException
from tallydb.engine.storage import TableRecord, Transaction

__all__ = ["LIVE", "check_stream_arn", "destinations", "find_destination", "shown", "switched",
           "table_of"]

#: The statuses of a destination that takes the table's changes.
LIVE = ("ENABLING", "ACTIVE", "UPDATING")
NOT_A_STREAM = "StreamArn must be the ARN of a Kinesis data stream: {}"
NO_DESTINATION = "Table {} has no Kinesis streaming destination {}"
#: Not on record: ours.
NOT_LIVE = "Kinesis streaming destination {} of table {} is not enabled"


def check_stream_arn(request: dict[str, Any]) -> None:
    """The StreamArn's form, checked before the table is looked up."""
    arn = request.get("StreamArn")
    if arn is not None and not (arn.startswith("arn:") and ":kinesis:" in arn
                                and ":stream/" in arn):
        raise ValidationException(NOT_A_STREAM.format(arn))


def table_of(txn: Transaction, request: dict[str, Any]) -> TableRecord:
    return find_table(txn, request["TableName"])


def destinations(record: TableRecord) -> list[dict[str, Any]]:
    kinesis: dict[str, Any] = record.description.get(KINESIS, {})
    found: list[dict[str, Any]] = kinesis.get("destinations", [])
    return found


def shown(destination: dict[str, Any]) -> dict[str, Any]:
    """A destination as DescribeKinesisStreamingDestination lists it."""
    return {k: destination[k] for k in ("StreamArn", "DestinationStatus",
                                        "DestinationStatusDescription",
                                        "ApproximateCreationDateTimePrecision")
            if k in destination}


def find_destination(record: TableRecord, arn: str) -> dict[str, Any]:
    for destination in destinations(record):
        if destination["StreamArn"] == arn:
            return destination
    raise ValidationException(NO_DESTINATION.format(record.name, arn))


def live_destination(record: TableRecord, arn: str) -> dict[str, Any]:
    """The destination ``arn`` names, which must be live (ENABLING, ACTIVE or
    UPDATING) to be disabled or updated."""
    found = find_destination(record, arn)
    if found["DestinationStatus"] not in LIVE:
        raise ValidationException(NOT_LIVE.format(arn, record.name))
    return found


def on_destination(action: str) -> Resolver:
    """``ACCESS`` of an operation on a table's Kinesis destination: writing
    the table its TableName names, and the Kinesis stream its changes are
    sent to (no table's: ``outside``)."""
    return on_table(action, write=True, read=table_named, outside="StreamArn")


def switched(txn: Transaction, record: TableRecord, kept: list[dict[str, Any]]) -> None:
    """Keep ``kept`` as the table's destinations, capturing its changes
    while one of them is live, and wake the forwarder."""
    description = {**record.description, KINESIS: {"destinations": kept}}
    live = any(d["DestinationStatus"] in LIVE for d in kept)
    if live != (CAPTURE in description):  # the capture starts or stops
        drop_outbox(txn, record)
    if live:
        description[CAPTURE] = {"shard": OUTBOX, "view": "NEW_AND_OLD_IMAGES"}
        description["_KinesisRegion"] = integrations(txn).region
        record = streams.with_source(txn, record)
    else:
        description.pop(CAPTURE, None)
    txn.update_table(record.with_description(description))
    forwarder = integrations(txn).extras["kinesis"]
    forwarder.start()
    forwarder.wake.set()
