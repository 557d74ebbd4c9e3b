"""What the four DynamoDB Streams operations share: their service prefix,
DynamoDB Streams' messages, and shard iterators.

A shard iterator is a stateless token: the stream's ARN, its shard, the
sequence number the next read starts after, and when it was issued
(DynamoDB's iterators expire after 15 minutes).
"""

from __future__ import annotations

import base64
import binascii
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
SHARD_NOT_FOUND = "Requested resource not found: Shard does not exist"
#: Not on record (DynamoDB's answer to an iterator it cannot read was found
#: in no SDK fixture, issue or emulator tested against it); ours.
INVALID_ITERATOR = "Invalid ShardIterator"
#: DynamoDB Streams' own (an AWS SDK for Java error quoting the service:
#: "Shard iterator has expired (Service: AmazonDynamoDBStreams; Status Code:
#: 400; Error Code: ExpiredIteratorException ...)"); Kinesis words it otherwise.
ITERATOR_EXPIRED = "Shard iterator has expired"


def find_stream(txn: Transaction, arn: Any) -> tuple[TableRecord, dict[str, Any]]:
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

