"""GetShardIterator: a position in a shard (TRIM_HORIZON, LATEST,
AT_SEQUENCE_NUMBER, AFTER_SEQUENCE_NUMBER) as a stateless token."""

from __future__ import annotations

import time
from typing import Any

from tallydb.engine.api import _streams as streams
from tallydb.engine.api._stream_api import (
    MAX_SEQUENCE,
    SHARD_NOT_FOUND,
    STREAMS_SERVICE,
    find_stream,
    make_iterator,
    on_stream,
)
from tallydb.engine.api._stream_records import last_sequence
from tallydb.engine.errors import (
    ResourceNotFoundException,
    TrimmedDataAccessException,
    ValidationException,
)
from tallydb.engine.storage import Transaction

#: Served as ``DynamoDBStreams_20120810.<Operation>`` (the registry reads it).
SERVICE = STREAMS_SERVICE
#: What a request touches (``_access``): reads the stream its StreamArn names.
ACCESS = on_stream("GetShardIterator")

#: The three messages below are not on record (no SDK fixture, issue or
#: emulator tested against DynamoDB quotes them); ours.
TRIMMED = "The requested sequence number is beyond the trim horizon of the shard: {}"
SEQUENCE_REQUIRED = "SequenceNumber is required for ShardIteratorType {}"
INVALID_SEQUENCE = "Invalid SequenceNumber: {}"


def get_shard_iterator(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    _, stream = find_stream(txn, request.get("StreamArn"))
    if request.get("ShardId") != stream["shard"]:
        raise ResourceNotFoundException(SHARD_NOT_FOUND)
    kind = request.get("ShardIteratorType")
    now = time.time()
    if kind == "TRIM_HORIZON":
        after = 0
    elif kind == "LATEST":
        after = stream.get("end", last_sequence())
    else:
        text = request.get("SequenceNumber")
        if text is None:
            raise ValidationException(SEQUENCE_REQUIRED.format(kind))
        if not isinstance(text, str) or not text.isdigit():
            raise ValidationException(INVALID_SEQUENCE.format(text))
        number = int(text)
        if number > MAX_SEQUENCE:  # no record has it (a sequence number is 63-bit)
            raise ValidationException(INVALID_SEQUENCE.format(text))
        after = number - 1 if kind == "AT_SEQUENCE_NUMBER" else number
        if streams.trimmed_before(stream, max(after, 1), now):
            raise TrimmedDataAccessException(TRIMMED.format(text))
    return {"ShardIterator": make_iterator(txn, stream["arn"], stream["shard"], after, now)}
