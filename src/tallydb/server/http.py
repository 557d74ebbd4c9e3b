"""HTTP/1.1 responses as DynamoDB sends them.

Every response carries ``Server``, ``x-amzn-RequestId`` (52 characters of
``[0-9A-Z]``, as AWS's), ``x-amz-crc32`` (botocore checks it against the
body and retries on a mismatch), a ``Content-Length`` and a ``Date``. A
client that accepts gzip or deflate gets bodies of 4 KB or more compressed
(``encoding``), the crc then over the compressed bytes, as DynamoDB's.
Rendering is one bytes ``%`` format: this runs once per request on the hot
path.
"""

from __future__ import annotations

import itertools
import secrets
import string
import time
import zlib
from email.utils import formatdate
from typing import Final

from tallydb.server.encoding import COMPRESS_MIN, compress

JSON_1_0: Final = b"application/x-amz-json-1.0"
JSON: Final = b"application/json"

_REASONS: Final = {
    200: b"OK",
    400: b"Bad Request",
    403: b"Forbidden",
    404: b"Not Found",
    413: b"Request Entity Too Large",
    503: b"Service Unavailable",
    500: b"Internal Server Error",
}

CLOSE: Final = b"Connection: close\r\n"
KEEP_ALIVE: Final = b"Connection: keep-alive\r\n"
SERVER: Final = b"Server: Server\r\n"  # what DynamoDB's responses say
#: The response headers a browser lets a page of another origin read:
#: DynamoDB's own list (its answers to browsers, recorded with curl, and
#: ScyllaDB Alternator's copy of them).
EXPOSE_HEADERS: Final = (
    b"Access-Control-Expose-Headers: "
    b"x-amzn-RequestId,x-amzn-ErrorType,x-amzn-ErrorMessage,Date\r\n"
)
ALLOW_ANY_ORIGIN: Final = b"Access-Control-Allow-Origin: *\r\n" + EXPOSE_HEADERS

# What DynamoDB answers to anything that is not a JSON POST (and dynalite
# copies byte for byte, crc included).
UNKNOWN_OPERATION_XML: Final = b"<UnknownOperationException/>\n"

_ALPHABET: Final = string.ascii_uppercase + string.digits
_id_prefix: Final = "".join(secrets.choice(_ALPHABET) for _ in range(40)).encode()


#: A request id's last 12 characters: 10**11 plus a count modulo 9 * 10**11,
#: so always 12 digits (``str``, cheaper than a ``%012d``). ``next`` of an
#: ``itertools.count`` is atomic: a batch committing on a thread and the
#: event loop never take the same id.
_ids: Final = itertools.count()
_FIRST_ID: Final = 10**11
_SPAN: Final = 9 * 10**11


def _id_digits() -> bytes:
    return str(_FIRST_ID + next(_ids) % _SPAN).encode()

_date_second = 0
_tail = b""  # "\r\nDate: ...\r\nContent-Length: ", rebuilt once a second


def refresh_date() -> None:
    """Bring the cached ``Date`` header up to the current second (call once
    per batch, not once per response)."""
    global _date_second, _tail
    now = int(time.time())
    if now != _date_second:
        _date_second = now
        _tail = b"\r\nDate: " + formatdate(now, usegmt=True).encode() + b"\r\nContent-Length: "
        _ends.clear()


#: A short body's end of the response (crc, Date, length, body) as
#: ``_end`` renders it: the same few bodies (``{}`` above all) come again
#: and again within a second.
_ends: Final[dict[bytes, bytes]] = {}
_SHORT_BODY: Final = 64

refresh_date()

_heads: Final[dict[tuple[int, bytes | None, bytes], bytes]] = {}


def _head(status: int, content_type: bytes | None, extra: bytes) -> bytes:
    """Everything before the request id's counter, for one kind of response."""
    head = b"HTTP/1.1 %d %s\r\n%s" % (status, _REASONS.get(status, b"Unknown"), SERVER)
    if content_type is not None:
        head += b"Content-Type: " + content_type + b"\r\n"
    head += extra + b"x-amzn-RequestId: " + _id_prefix
    if len(_heads) < 256:  # extra is one of a few constants in practice
        _heads[status, content_type, extra] = head
    return head


_OK_HEAD: Final = _head(200, JSON_1_0, b"")


def request_id() -> bytes:
    """A fresh request id: a random per-process prefix and a counter."""
    return _id_prefix + _id_digits()


def render(
    status: int,
    body: bytes,
    content_type: bytes | None = JSON_1_0,
    extra: bytes = b"",
    coding: bytes | None = None,
) -> bytes:
    """One complete response; ``extra`` is already-formatted header lines;
    ``coding``: the one the client takes (``encoding.response_coding``)."""
    if coding is not None and len(body) >= COMPRESS_MIN:
        body = compress(body, coding)
        extra += b"Content-Encoding: " + coding + b"\r\n"
    if status == 200 and not extra and content_type == JSON_1_0:  # (most answers)
        head = _OK_HEAD
    else:
        head = _heads.get((status, content_type, extra)) or _head(status, content_type, extra)
    end = _ends.get(body) if len(body) <= _SHORT_BODY else None
    if end is None:
        end = _end(body)
    return head + _id_digits() + end


def _end(body: bytes) -> bytes:
    """Everything after the request id's counter."""
    end = b"\r\nx-amz-crc32: %d%s%d\r\n\r\n%s" % (zlib.crc32(body), _tail, len(body), body)
    if len(body) <= _SHORT_BODY:
        if len(_ends) >= 256:
            _ends.clear()
        _ends[body] = end
    return end


CONTINUE: Final = b"HTTP/1.1 100 Continue\r\n\r\n"

# Answers to broken HTTP, sent before the connection is closed.
BAD_REQUEST: Final = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
REQUEST_TIMEOUT: Final = (
    b"HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
)
