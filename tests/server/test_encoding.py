"""Compressed bodies both ways, as DynamoDB takes and gives them: every row
of docs/server.md's Content-Encoding/Accept-Encoding table.

DynamoDB's answers are ScyllaDB's Alternator tests, run against DynamoDB
(test/alternator/test_compressed_request.py, test_compressed_response.py,
2025): they are the expected values here, case by case.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Callable
from typing import Any

import pytest
from serverkit import Pipe, StubServer, post, request_bytes

pytest_plugins = ["server_fixtures"]

ECHOED = b'{"Echo":{"n":1}}'
#: DynamoDB's threshold: a body of 4 KB or more is compressed.
BIG = {"pad": "x" * 4096}
INTERNAL_FAILURE = {"__type": "com.amazon.coral.service#InternalFailure"}


def gz(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)  # the same bytes in every worker


@pytest.mark.parametrize(("coding", "packed"), [
    ("gzip", gz(b'{"n": 1}')),
    ("deflate", zlib.compress(b'{"n": 1}')),
    ("deflate", zlib.compress(b'{"n": 1}')[2:-4]),  # raw deflate, as some clients send it
    ("identity", b'{"n": 1}'),
    ("gzip, identity", gz(b'{"n": 1}')),
    # two gzip members, concatenated: DynamoDB decodes both
    ("gzip", gz(b'{"n"') + gz(b': 1}')),
    # bytes after the member that start no other: DynamoDB ignores them
    ("gzip", gz(b'{"n": 1}') + b"junk"),
    # RFC 9110's other name of gzip (DynamoDB's answer is not on record)
    ("x-gzip", gz(b'{"n": 1}')),
])
def test_a_compressed_request_is_decoded(stub: StubServer, coding: str, packed: bytes) -> None:
    answer = post(stub.url, "Echo", packed, headers={"Content-Encoding": coding})
    assert (answer.status, answer.body) == (200, ECHOED), coding


@pytest.mark.parametrize(("coding", "body"), [
    ("garbage", b'{"n": 1}'),  # a coding DynamoDB does not know
    ("br", b'{"n": 1}'),
    ("gzip", b'{"n": 1}'),  # not gzip at all
    ("deflate", b'{"n": 1}'),
    ("gzip", gz(b'{"n": 1}')[:-1]),  # cut short
    ("gzip", b""),  # an empty body is no gzip either
])
def test_a_body_its_coding_cannot_decode_is_internal_failure(
        stub: StubServer, coding: str, body: bytes) -> None:
    # DynamoDB answers HTTP 500 and runs nothing (a client's mistake answered
    # as the service's: its answer, on record, is kept as it is).
    answer = post(stub.url, "Echo", body, headers={"Content-Encoding": coding})
    assert (answer.status, answer.json) == (500, INTERNAL_FAILURE), coding
    assert stub.engine.batches == []  # nothing ran


def test_a_gzip_bomb_is_too_large(stub: StubServer) -> None:
    # DynamoDB reads compressed bodies of up to a gigabyte decoded; tallydb
    # keeps its 16 MB request limit for the decoded body (its memory bound).
    bomb = gz(b"{" + b" " * (17 << 20) + b"}")
    answer = post(stub.url, "Echo", bomb, headers={"Content-Encoding": "gzip"})
    assert answer.status == 413
    assert answer.json["message"] == "Request size exceeds the limit of 16777216 bytes"
    assert stub.engine.batches == []


def _coding(stub: StubServer, accept: str | None, body: dict[str, Any] = BIG) -> str | None:
    headers = {} if accept is None else {"Accept-Encoding": accept}
    answer = post(stub.url, "Echo", body, headers=headers)
    coding = answer.headers.get("content-encoding")
    # x-amz-crc32 covers the bytes on the wire, as DynamoDB's
    assert int(answer.headers["x-amz-crc32"]) == zlib.crc32(answer.body)
    decoded = {None: lambda b: b, "gzip": gzip.decompress, "deflate": zlib.decompress}[
        coding](answer.body)
    assert decoded == b'{"Echo":' + json.dumps(body, separators=(",", ":")).encode() + b"}"
    return coding


@pytest.mark.parametrize(("accept", "coding"), [
    (None, None),
    ("gzip", "gzip"),
    ("deflate", "deflate"),
    ("identity", None),
    ("", None),
    ("br", None),
    ("zstd", None),
    ("compress", None),
    ("x-gzip", None),
    ("gzip, deflate", "gzip"),
    ("br, identity, deflate, gzip", "deflate"),  # a tie goes to the one named first
    ("GZIP, identity", "gzip"),
    ("dog, gzip ,, cat", "gzip"),
    ("gzip;q=0.8, deflate;q=0.5", "gzip"),
    ("br, gzip;q=0, deflate; q = 0.5 , identity;q=0", "deflate"),
    ("*", "gzip"),
    ("*, deflate;q=0.5", "gzip"),
    ("*, deflate", "deflate"),
    ("*, identity", "gzip"),
    ("*, gzip;q=0.5", "deflate"),
    ("gzip ;q=0", None),
    ("identity;q=0", None),
    ("*;q=0", None),
    ("*;q=0.5,identity", "gzip"),
    ("gzip;q=0.5,identity;q=0.8", "gzip"),
    ("br;q=0.8,identity;q=0.5,*;q=0", None),
    ('"gzip"', None),
    ("gzip br", None),
    ("gzip:q=1", None),
    ("deflate;q=0.5, gzip;q=31", "gzip"),  # a quality over 1 counts as 1
    ("gzip;q=31,deflate;q=51", "gzip"),
    ("deflate;q=0.5, gzip;q=0.2", "deflate"),
    ("deflate;q=0.5, gzip;q=1;q=0.2", "gzip"),  # the first quality counts
    ("deflate;q=0.5,gzip;q=0.", "deflate"),
    ("deflate;q=0.5,gzip;q=0.x", "gzip"),
    ("deflate;q=-0.5,gzip;q=0.2", "gzip"),
    ("gzip;nq=1;q=0 ", None),
    ("gzip;q=0, gzip;q=1, gzip;q=0", "gzip"),
    ("br,identity;q=0.5,gzip;q=0.0001", "gzip"),
])
def test_the_response_coding_is_chosen_as_dynamodb_chooses_it(
        stub: StubServer, accept: str | None, coding: str | None) -> None:
    assert _coding(stub, accept) == coding


def test_a_response_under_4_kb_is_never_compressed(stub: StubServer) -> None:
    assert _coding(stub, "gzip, deflate", {"n": 1}) is None
    nearly = {"pad": "x" * (4096 - len(b'{"Echo":{"pad":""}}') - 1)}
    assert _coding(stub, "gzip", nearly) is None


def test_of_two_accept_encoding_headers_the_last_counts(
        stub: StubServer, pipe_factory: Callable[[str], Pipe]) -> None:
    # ScyllaDB's test notes DynamoDB considers only the last one.
    pipe = pipe_factory(stub.url)
    for first, last, coding in (("identity", "gzip", "gzip"), ("gzip", "identity", None)):
        pipe.send(request_bytes("Echo", BIG, extra=(
            f"Accept-Encoding: {first}\r\nAccept-Encoding: {last}\r\n")))
        answer = pipe.response()
        assert answer.headers.get("content-encoding") == coding
