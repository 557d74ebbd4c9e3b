"""What the four DynamoDB Streams operations share: their service prefix,
DynamoDB Streams' messages, shard iterators, and what a request touches.

A shard iterator is a stateless token: the stream's ARN, its shard, the
sequence number the next read starts after, and when it was issued
(DynamoDB's iterators expire after 15 minutes), signed with a MAC under a
random key kept in the data directory (``Transaction.kept_key``). Only an
iterator this server issued is read, so its stream, position and age are
the server's own: a forged or altered one is refused as unreadable.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
import time
from typing import Any

import orjson

from tallydb.engine.api import _streams as streams
from tallydb.engine.api._access import Touch
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


#: The kept key (``Transaction.kept_key``) shard iterators are signed with.
ITERATOR_KEY = "shard-iterator"
_MAC_BYTES = 16
#: Sequence numbers are 63-bit (``_stream_records``): a larger one names no record.
MAX_SEQUENCE = 2**63 - 1


def _mac(key: bytes, payload: bytes) -> bytes:
    return hmac.new(key, payload, hashlib.sha256).digest()[:_MAC_BYTES]


def make_iterator(
    txn: Transaction, arn: str, shard: str, after: int, now: float | None = None
) -> str:
    payload = orjson.dumps([arn, shard, after, time.time() if now is None else now])
    token = payload + _mac(txn.kept_key(ITERATOR_KEY), payload)
    return base64.urlsafe_b64encode(token).decode()


def read_iterator(txn: Transaction, text: Any, now: float) -> tuple[str, str, int]:
    """(stream ARN, shard, after) of a shard iterator this server issued,
    still valid at ``now``."""
    try:
        token = base64.urlsafe_b64decode(text)
        payload, mac = token[:-_MAC_BYTES], token[-_MAC_BYTES:]
        if base64.urlsafe_b64encode(token).decode() != text:
            raise ValueError  # (base64 ignores what follows its padding: one spelling only)
        if len(token) <= _MAC_BYTES or not hmac.compare_digest(
                mac, _mac(txn.kept_key(ITERATOR_KEY), payload)):
            raise ValueError
        arn, shard, after, issued = orjson.loads(payload)
        if not (isinstance(arn, str) and isinstance(shard, str) and isinstance(after, int)
                and 0 <= after <= MAX_SEQUENCE and isinstance(issued, float | int)):
            raise ValueError
    except (binascii.Error, orjson.JSONDecodeError, ValueError, TypeError):
        raise ValidationException(INVALID_ITERATOR) from None
    if not -ITERATOR_LIFETIME <= now - issued <= ITERATOR_LIFETIME:
        raise ExpiredIteratorException(ITERATOR_EXPIRED)
    return arn, shard, after


# --- what a request touches (``_access``) ------------------------------------------------


def stream_touch(txn: Transaction, action: str, arn: Any) -> Touch:
    """Reading the stream ``arn`` names: of the table that stream belongs
    to (its stored record; an ARN of no stream, by the table it names)."""
    found = streams.find(txn, arn)
    if found is not None:
        record, stream = found
        return Touch(action, record.name, part=f"/stream/{stream['label']}")
    name = streams.table_of_arn(arn) if isinstance(arn, str) else None
    return Touch(action, name or "*", part="/stream/" + str(arn).rpartition("/stream/")[2])


def on_stream(action: str) -> Any:
    """``ACCESS`` of an operation reading the stream its StreamArn names."""
    def resolve(txn: Transaction, request: dict[str, Any]) -> tuple[Touch, ...]:
        return (stream_touch(txn, action, request.get("StreamArn")),)
    return resolve
