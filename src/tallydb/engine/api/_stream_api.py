"""What the four DynamoDB Streams operations share: their service prefix,
DynamoDB Streams' messages, and shard iterators.

A shard iterator is a stateless token: the stream's ARN, its shard, the
sequence number the next read starts after, and when it was issued
(DynamoDB's iterators expire after 15 minutes).
"""

from __future__ import annotations

import base64
import binascii
import re
import time
from typing import Any

import orjson

from tallydb.engine.api import _streams as streams
from tallydb.engine.errors import (
    ExpiredIteratorException,
    ResourceNotFoundException,
    ValidationException,
)
from tallydb.engine.storage import TableRecord, Transaction

#: The X-Amz-Target prefix the Streams operations are served under.
STREAMS_SERVICE = "DynamoDBStreams_20120810."
ITERATOR_LIFETIME = 15 * 60.0

STREAM_NOT_FOUND = "Requested resource not found: Stream: {} not found"
#: Not on record (DynamoDB answers a stream ARN it cannot read with a
#: ValidationException, whose text no SDK fixture, issue or emulator tested
#: against it quotes); ours, worded as TagResource's "Invalid TableArn".
INVALID_STREAM_ARN = "Invalid StreamArn: {}"
#: DynamoDB Streams' ``Limit`` maxima: the service's own checks (the model
#: sets only a minimum), worded as DynamoDB Local 1.25 words them.
LIST_LIMIT = "One or more parameter values were invalid: Limit cannot be greater than the " \
    "maximum allowed size: 100"
DESCRIBE_LIMIT = "One or more parameter values were invalid: Limit cannot be greater than the " \
    "maximum: 100"
MAX_LIMIT = 100
SHARD_NOT_FOUND = "Requested resource not found: Shard does not exist"
#: Not on record (DynamoDB's answer to an iterator it cannot read was found
#: in no SDK fixture, issue or emulator tested against it); ours.
INVALID_ITERATOR = "Invalid ShardIterator"
#: DynamoDB Streams' own (an AWS SDK for Java error quoting the service:
#: "Shard iterator has expired (Service: AmazonDynamoDBStreams; Status Code:
#: 400; Error Code: ExpiredIteratorException ...)"); Kinesis words it otherwise.
ITERATOR_EXPIRED = "Shard iterator has expired"


#: A stream ARN: ``arn:PARTITION:dynamodb:REGION:ACCOUNT:table/NAME/stream/LABEL``
#: (the stored form's region, ``ddblocal``, is one too).
_STREAM_ARN = re.compile(
    r"arn:aws[a-z-]*:dynamodb:[a-z0-9-]+:[0-9]{12}:table/[a-zA-Z0-9_.-]{3,255}/stream/\S+")


def check_stream_arn(arn: Any) -> None:
    """Refuse a stream ARN that is not of a stream ARN's form (before any
    lookup: a malformed ARN names nothing that could be missing)."""
    if isinstance(arn, str) and _STREAM_ARN.fullmatch(arn) is None:
        raise ValidationException(INVALID_STREAM_ARN.format(arn))


def check_limit(request: dict[str, Any], message: str) -> None:
    limit = request.get("Limit")
    if limit is not None and limit > MAX_LIMIT:
        raise ValidationException(message)


def find_stream(txn: Transaction, arn: Any) -> tuple[TableRecord, dict[str, Any]]:
    """The table and stream a well-formed ARN names (``check_stream_arn``
    saw to its form), or DynamoDB's ResourceNotFoundException."""
    found = streams.find(txn, arn)
    if found is None:
        raise ResourceNotFoundException(STREAM_NOT_FOUND.format(arn))
    return found


def make_iterator(arn: str, shard: str, after: int, now: float | None = None) -> str:
    token = [arn, shard, after, time.time() if now is None else now]
    return base64.urlsafe_b64encode(orjson.dumps(token)).decode()


def read_iterator(text: Any, now: float) -> tuple[str, str, int]:
    """(stream ARN, shard, after) of a shard iterator still valid at ``now``."""
    try:
        arn, shard, after, issued = orjson.loads(base64.urlsafe_b64decode(text))
        if not (isinstance(arn, str) and isinstance(shard, str) and isinstance(after, int)):
            raise ValueError
        issued = float(issued)
    except (binascii.Error, orjson.JSONDecodeError, ValueError, TypeError):
        raise ValidationException(INVALID_ITERATOR) from None
    if now - issued > ITERATOR_LIFETIME:
        raise ExpiredIteratorException(ITERATOR_EXPIRED)
    return arn, shard, after

