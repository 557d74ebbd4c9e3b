"""Compressed bodies as DynamoDB takes and gives them: a request's
``Content-Encoding``, a response's coding chosen from ``Accept-Encoding``.

DynamoDB's behaviour here is recorded by ScyllaDB's Alternator tests, each
run against DynamoDB (test/alternator/test_compressed_request.py and
test_compressed_response.py, 2025); the table in docs/server.md gives every
case and tests/server/test_encoding.py runs it.

Requests: ``gzip`` (one member or several, concatenated; bytes after the
last member that do not start another are ignored, as DynamoDB ignores
them) and ``deflate`` (zlib's format, or raw deflate as some clients send
it) are decoded, in the order the codings were applied; ``identity`` is
nothing. Any other coding, and a body that is not what its coding says,
is DynamoDB's 500 InternalFailure (:class:`BadCoding`), the request not run.
``x-gzip`` is read as gzip (RFC 9110 makes them one coding; DynamoDB's
answer to it is not on record). A body decoding past 16 MB is 413 (DynamoDB
reads compressed bodies of up to a gigabyte; a local server keeps its
memory bound).

Responses: a body of at least ``COMPRESS_MIN`` bytes (DynamoDB's 4 KB) is
compressed with the coding :func:`response_coding` picks from the last
``Accept-Encoding`` header, the way DynamoDB picks it.
"""

from __future__ import annotations

import re
import zlib
from typing import Final

from tallydb.engine.errors import DynamoDBError

__all__ = ["COMPRESS_MIN", "MAX_DECODED", "BadCoding", "TooLarge", "compress", "decode_body",
           "known_coding", "response_coding"]

#: DynamoDB compresses a response of 4 KB or more, never a smaller one.
COMPRESS_MIN: Final = 4096
#: DynamoDB's request size limit, kept for a body after decoding.
MAX_DECODED: Final = 16 * 1024 * 1024
GZIP: Final = b"gzip"
DEFLATE: Final = b"deflate"
_GZIP_MAGIC: Final = b"\x1f\x8b"
_DECODERS: Final = {"gzip": 31, "x-gzip": 31, "deflate": 15}  # zlib wbits for each coding


class BadCoding(DynamoDBError):
    """DynamoDB's answer to a request body it cannot decode: HTTP 500 and
    Coral's InternalFailure (the suites run against DynamoDB record the
    status and type; no message is on record, so none is given)."""

    namespace = "com.amazon.coral.service#"
    status = 500

    @classmethod
    def code(cls) -> str:
        return "InternalFailure"


class TooLarge(Exception):
    """A decoded body over MAX_DECODED."""


def known_coding(coding: str) -> bool:
    """Whether a request coding (lower case) is one this server decodes."""
    return coding in _DECODERS or coding in ("identity", "")


def decode_body(content_encoding: bytes, body: bytes) -> bytes:
    """Undo ``Content-Encoding`` (several codings in the order applied);
    BadCoding for an unknown coding or a body that is not of its coding,
    TooLarge past MAX_DECODED decoded."""
    codings = [c.strip().lower() for c in content_encoding.decode("latin-1").split(",")]
    for coding in reversed(codings):
        if coding in ("identity", ""):
            continue
        wbits = _DECODERS.get(coding)
        if wbits is None:
            raise BadCoding()
        body = _gunzip(body) if wbits == 31 else _inflate(body)
    return body


def _gunzip(body: bytes) -> bytes:
    """Every gzip member of ``body``, decoded and joined."""
    out: list[bytes] = []
    size = 0
    rest = body
    while True:
        inflater = zlib.decompressobj(31)
        try:
            part = inflater.decompress(rest, MAX_DECODED + 1 - size)
        except zlib.error:
            raise BadCoding() from None
        size += len(part)
        if size > MAX_DECODED:
            raise TooLarge
        if not inflater.eof:  # cut short (or past the limit, which the next check sees)
            if inflater.unconsumed_tail:
                raise TooLarge
            raise BadCoding()
        out.append(part)
        rest = inflater.unused_data
        if not rest.startswith(_GZIP_MAGIC):
            return b"".join(out)  # what follows the last member is ignored, as DynamoDB does


def _inflate(body: bytes) -> bytes:
    for bits in (15, -15):  # deflate: zlib's format, or raw
        inflater = zlib.decompressobj(bits)
        try:
            out = inflater.decompress(body, MAX_DECODED + 1)
        except zlib.error:
            continue
        if len(out) > MAX_DECODED:
            raise TooLarge
        if inflater.eof and not inflater.unused_data:
            return out
    raise BadCoding()


# --- responses ----------------------------------------------------------------------

_Q: Final = re.compile(rb"\s*q\s*=\s*(.*?)\s*", re.IGNORECASE | re.DOTALL)
_NUMBER: Final = re.compile(rb"-?[0-9]+(?:\.[0-9]*)?")


def _quality(params: list[bytes]) -> float:
    """The first ``q`` parameter's value: clamped to [0, 1], 1 when absent
    or not a number (DynamoDB: ``q=31`` counts as 1, ``q=0.x`` as 1,
    ``q=-0.5`` as refusing, ``q=0.`` as 0)."""
    for param in params:
        match = _Q.fullmatch(param)
        if match is None:
            continue
        value = match.group(1)
        if _NUMBER.fullmatch(value) is None:
            return 1.0
        return min(max(float(value), 0.0), 1.0)
    return 1.0


def response_coding(accept_encoding: bytes) -> bytes | None:
    """The coding DynamoDB answers with for this ``Accept-Encoding`` value:
    gzip or deflate, whichever has the higher quality, a tie going to the
    one named first; ``*`` offers gzip, then deflate, to any not named;
    ``identity``, ``x-gzip`` and unknown codings count for nothing, nor does
    an entry that is not a bare token (``"gzip"``, ``gzip br``); a coding
    named twice takes its best quality."""
    named: dict[bytes, tuple[float, int]] = {}
    star: float | None = None
    for position, entry in enumerate(accept_encoding.split(b",")):
        token, *params = entry.split(b";")
        coding = token.strip().lower()
        quality = _quality(params)
        if coding == b"*":
            star = quality if star is None else max(star, quality)
        elif coding in (GZIP, DEFLATE):
            before = named.get(coding)
            if before is None:
                named[coding] = (quality, position)
            elif quality > before[0]:
                named[coding] = (quality, before[1])
    offers: list[tuple[float, int, bytes]] = []
    for rank, coding in enumerate((GZIP, DEFLATE)):
        if coding in named:
            quality, position = named[coding]
            offers.append((quality, position, coding))
        elif star is not None:
            offers.append((star, 1_000_000 + rank, coding))  # after every named one
    best: tuple[float, int, bytes] | None = None
    for offer in offers:
        if offer[0] > 0 and (best is None or offer[0] > best[0]
                             or (offer[0] == best[0] and offer[1] < best[1])):
            best = offer
    return None if best is None else best[2]


def compress(body: bytes, coding: bytes) -> bytes:
    """``body`` in ``coding`` (gzip's container, or zlib's for deflate)."""
    packer = zlib.compressobj(6, zlib.DEFLATED, 31 if coding == GZIP else 15)
    return packer.compress(body) + packer.flush()
