"""HTTP/1.1 responses as DynamoDB sends them.

Every response carries ``x-amzn-RequestId`` (52 characters of ``[0-9A-Z]``,
as AWS's), ``x-amz-crc32`` (botocore checks it against the body and retries
on a mismatch), a ``Content-Length`` and a ``Date``. Rendering is one bytes
``%`` format: this runs once per request on the hot path.
"""

from __future__ import annotations

import itertools
import secrets
import string
import time
import zlib
from email.utils import formatdate

JSON_1_0 = b"application/x-amz-json-1.0"
JSON = b"application/json"
TEXT = b"text/plain"

_REASONS = {
    200: b"OK",
    400: b"Bad Request",
    404: b"Not Found",
    413: b"Request Entity Too Large",
    500: b"Internal Server Error",
}

CLOSE = b"Connection: close\r\n"
KEEP_ALIVE = b"Connection: keep-alive\r\n"
ALLOW_ANY_ORIGIN = b"Access-Control-Allow-Origin: *\r\n"

# What DynamoDB answers to anything that is not a JSON POST (and dynalite
# copies byte for byte, crc included).
UNKNOWN_OPERATION_XML = b"<UnknownOperationException/>\n"

_ALPHABET = string.ascii_uppercase + string.digits
_id_prefix = "".join(secrets.choice(_ALPHABET) for _ in range(40)).encode()
_id_counter = itertools.count(1)

_date_second = 0
_date = b""


def refresh_date() -> None:
    """Bring the cached ``Date`` header up to the current second (call once
    per batch, not once per response)."""
    global _date_second, _date
    now = int(time.time())
    if now != _date_second:
        _date_second = now
        _date = formatdate(now, usegmt=True).encode()


refresh_date()


def request_id() -> bytes:
    """A fresh request id: a random per-process prefix and a counter."""
    return b"%s%012d" % (_id_prefix, next(_id_counter) % 10**12)


def render(
    status: int,
    body: bytes,
    content_type: bytes | None = JSON_1_0,
    extra: bytes = b"",
) -> bytes:
    """One complete response; ``extra`` is already-formatted header lines."""
    if content_type is not None:
        extra = b"Content-Type: %s\r\n%s" % (content_type, extra)
    return b"HTTP/1.1 %d %s\r\nx-amzn-RequestId: %s\r\nx-amz-crc32: %d\r\n%sDate: %s\r\nContent-Length: %d\r\n\r\n%s" % (  # noqa: E501
        status,
        _REASONS.get(status, b"Unknown"),
        request_id(),
        zlib.crc32(body),
        extra,
        _date,
        len(body),
        body,
    )


# Answers to broken HTTP, sent before the connection is closed.
BAD_REQUEST = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
TOO_LARGE = (
    b"HTTP/1.1 413 Request Entity Too Large\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
)
