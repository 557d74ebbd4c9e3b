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
    check_stream_arn,
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

#: Not on record (no SDK fixture, issue or emulator tested against DynamoDB
#: quotes it); ours.
TRIMMED = "The requested sequence number is beyond the trim horizon of the shard: {}"
#: DynamoDB's answers to a SequenceNumber that does not belong with the
#: iterator type, or is missing or not a number where it does: not on
#: record for DynamoDB itself; DynamoDB Local 1.25's wording.
SEQUENCE_NOT_WANTED = (
    "One or more parameter values were invalid: SequenceNumber should not be passed for this "
    "iterator type")
INVALID_SEQUENCE = "One or more parameter values were invalid: Invalid SequenceNumber"
#: The iterator types that start from a position, not a SequenceNumber.
_POSITIONS = frozenset({"TRIM_HORIZON", "LATEST"})


def validate(request: dict[str, Any]) -> str | None:
    """The request's SequenceNumber, checked against its iterator type."""
    check_stream_arn(request["StreamArn"])
    text = request.get("SequenceNumber")
    if request["ShardIteratorType"] in _POSITIONS:
        if text is not None:
            raise ValidationException(SEQUENCE_NOT_WANTED)
    elif not isinstance(text, str) or not text.isdigit() or _past_every_record(text):
        raise ValidationException(INVALID_SEQUENCE)
    return text


def _past_every_record(digits: str) -> bool:
    """Whether a sequence number is past 2^63-1, which no record has (they
    are 63-bit), read without converting thousands of digits."""
    significant = digits.lstrip("0")
    return len(significant) > len(str(MAX_SEQUENCE)) or int(significant or "0") > MAX_SEQUENCE


def get_shard_iterator(txn: Transaction, request: dict[str, Any], text: str | None
                       ) -> dict[str, Any]:
    _, stream = find_stream(txn, request["StreamArn"])
    if request.get("ShardId") != stream["shard"]:
        raise ResourceNotFoundException(SHARD_NOT_FOUND)
    kind = request["ShardIteratorType"]
    now = time.time()
    if kind == "TRIM_HORIZON":
        after = 0
    elif kind == "LATEST":
        after = stream.get("end", last_sequence())
    else:
        assert text is not None
        number = int(text)
        after = number - 1 if kind == "AT_SEQUENCE_NUMBER" else number
        if streams.trimmed_before(stream, max(after, 1), now):
            raise TrimmedDataAccessException(TRIMMED.format(text))
    return {"ShardIterator": make_iterator(txn, stream["arn"], stream["shard"], after, now)}
