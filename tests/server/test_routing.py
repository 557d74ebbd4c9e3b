"""What a request is, decided in DynamoDB's order, with DynamoDB's bodies.

The expected bodies and CRCs are dynalite's (test/connection.js), which it
checked against DynamoDB itself.
"""

from __future__ import annotations

import zlib

from serverkit import StubServer, post

pytest_plugins = ["server_fixtures"]

SERIALIZATION = b'{"__type":"com.amazon.coral.service#SerializationException"}'
UNKNOWN_OPERATION = b'{"__type":"com.amazon.coral.service#UnknownOperationException"}'


def test_malformed_json_is_serialization_exception(stub: StubServer) -> None:
    for body in (b"hi", b'{"a": ', b"{'a': 1}", b'{"a": 1}}', b"\xff\xfe"):
        answer = post(stub.url, "Echo", body)
        assert answer.status == 400, body
        assert answer.body == SERIALIZATION
        assert answer.headers["x-amz-crc32"] == "3948637019"


def test_malformed_json_wins_over_unknown_target(stub: StubServer) -> None:
    # DynamoDB parses the body before it looks at the target.
    assert post(stub.url, "NoSuch", b"hi").body == SERIALIZATION
    assert post(stub.url, None, b"hi").body == SERIALIZATION


def test_json_that_is_not_an_object_is_serialization_exception(stub: StubServer) -> None:
    for body in (b"[]", b"1", b'"s"', b"null", b"true"):
        answer = post(stub.url, "Echo", body)
        assert answer.status == 400, body
        assert answer.error_type == "com.amazon.coral.service#SerializationException"


def test_empty_body_with_a_known_target_is_serialization_exception(stub: StubServer) -> None:
    answer = post(stub.url, "Echo", b"")
    assert (answer.status, answer.body) == (400, SERIALIZATION)


def test_unknown_or_missing_target(stub: StubServer) -> None:
    for target in (None, "ListTable", "NoSuchOperation", ""):
        answer = post(stub.url, target, b"{}")
        assert answer.status == 400, target
        assert answer.body == UNKNOWN_OPERATION
        assert answer.headers["x-amz-crc32"] == "1368724161"
    for raw in ("whatever", "DynamoDB_20111205.Echo", "DynamoDB_20120810", "Echo"):
        answer = post(stub.url, None, b"{}", headers={"X-Amz-Target": raw})
        assert answer.body == UNKNOWN_OPERATION, raw


def test_empty_body_without_a_target_is_unknown_operation(stub: StubServer) -> None:
    answer = post(stub.url, None, b"")
    assert (answer.status, answer.body) == (400, UNKNOWN_OPERATION)
    assert answer.headers["content-type"] == "application/x-amz-json-1.0"


def test_content_type_parameters_are_tolerated(stub: StubServer) -> None:
    content_type = "application/x-amz-json-1.0; charset=utf-8"
    answer = post(stub.url, "Echo", b"{}", headers={"Content-Type": content_type})
    assert answer.status == 200
    assert answer.headers["content-type"] == "application/x-amz-json-1.0"


def test_dynamodb_errors_keep_their_status_and_shape(stub: StubServer) -> None:
    answer = post(stub.url, "Invalid", {})
    assert answer.status == 400
    assert answer.json == {
        "__type": "com.amazon.coral.validate#ValidationException",
        "message": "1 validation error detected",
    }
    assert int(answer.headers["x-amz-crc32"]) == zlib.crc32(answer.body)


def test_unicode_round_trips(stub: StubServer) -> None:
    request = {"s": "h\u00e9llo \u2603 \U0001f600", "e": "\\\"\n"}
    answer = post(stub.url, "Echo", request)
    assert answer.json == {"Echo": request}
    assert int(answer.headers["x-amz-crc32"]) == zlib.crc32(answer.body)
