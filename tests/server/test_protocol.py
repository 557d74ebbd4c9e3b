"""HTTP/1.1 as the server speaks it: keep-alive, pipelining, framing, abuse.

Against the real server code in this process (``stub``), whose operations
the tests control; tests/server/test_cli.py repeats the essentials against
the ``tallydb serve`` subprocess.
"""

from __future__ import annotations

import http.client
import re
import socket
import zlib
from collections.abc import Callable
from urllib.parse import urlsplit

import pytest
from serverkit import TIMEOUT, Pipe, StubServer, post, request_bytes

from tallydb.server.protocol import MAX_BODY

pytest_plugins = ["server_fixtures"]

REQUEST_ID = re.compile(r"^[0-9A-Z]{52}$")


def test_response_headers_crc32_request_id_and_length(stub: StubServer) -> None:
    answer = post(stub.url, "Echo", {"a": 1})
    assert answer.status == 200
    assert answer.json == {"Echo": {"a": 1}}
    assert answer.headers["content-type"] == "application/x-amz-json-1.0"
    assert int(answer.headers["x-amz-crc32"]) == zlib.crc32(answer.body)
    assert int(answer.headers["content-length"]) == len(answer.body)
    assert REQUEST_ID.match(answer.headers["x-amzn-requestid"])
    assert "date" in answer.headers


def test_request_ids_differ(stub: StubServer) -> None:
    ids = {post(stub.url, "Echo").headers["x-amzn-requestid"] for _ in range(5)}
    assert len(ids) == 5


def test_application_json_is_answered_as_application_json(stub: StubServer) -> None:
    # dynalite: the response echoes application/json when that was sent.
    answer = post(stub.url, "Echo", headers={"Content-Type": "application/json"})
    assert answer.status == 200
    assert answer.headers["content-type"] == "application/json"


def test_keep_alive_reuses_one_connection(stub: StubServer) -> None:
    parts = urlsplit(stub.url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=TIMEOUT)
    headers = {
        "Content-Type": "application/x-amz-json-1.0",
        "X-Amz-Target": "DynamoDB_20120810.Echo",
    }
    try:
        conn.request("POST", "/", body=b'{"n": 0}', headers=headers)
        first = conn.getresponse()
        assert first.read() == b'{"Echo":{"n":0}}'
        sock = conn.sock
        assert sock is not None
        for n in range(1, 20):
            conn.request("POST", "/", body=b'{"n": %d}' % n, headers=headers)
            answer = conn.getresponse()
            assert answer.status == 200
            assert answer.getheader("Connection") is None
            assert answer.read() == b'{"Echo":{"n":%d}}' % n
            assert conn.sock is sock, "the server closed a keep-alive connection"
    finally:
        conn.close()


def test_pipelined_requests_are_answered_in_order(
    stub: StubServer, pipe_factory: Callable[[str], Pipe]
) -> None:
    # Engine calls, routing errors and non-engine answers interleaved in one
    # write: each response must come back in its request's place.
    pipe = pipe_factory(stub.url)
    kinds = []
    data = b""
    for n in range(60):
        kind = n % 5
        kinds.append(kind)
        if kind == 0:
            data += request_bytes("Echo", {"n": n})
        elif kind == 1:
            data += request_bytes("Echo", b"not json")
        elif kind == 2:
            data += request_bytes("NoSuchOperation", {"n": n})
        elif kind == 3:
            data += b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"
        else:
            data += request_bytes("Invalid", {"n": n})
    pipe.send(data)
    for n, kind in enumerate(kinds):
        answer = pipe.response()
        if kind == 0:
            assert (answer.status, answer.json) == (200, {"Echo": {"n": n}})
        elif kind == 1:
            assert answer.status == 400
            assert answer.error_type.endswith("#SerializationException")
        elif kind == 2:
            assert answer.status == 400
            assert answer.error_type.endswith("#UnknownOperationException")
        elif kind == 3:
            assert answer.status == 200
            assert answer.body.startswith(b"healthy: ")
        else:
            assert answer.status == 400
            assert answer.error_type.endswith("#ValidationException")


def test_requests_split_across_many_writes(
    stub: StubServer, pipe_factory: Callable[[str], Pipe]
) -> None:
    pipe = pipe_factory(stub.url)
    data = request_bytes("Echo", {"n": 1}) + request_bytes("Echo", {"n": 2})
    pipe.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    for i in range(0, len(data), 7):
        pipe.send(data[i : i + 7])
    assert pipe.response().json == {"Echo": {"n": 1}}
    assert pipe.response().json == {"Echo": {"n": 2}}


def test_chunked_request_body(stub: StubServer, pipe_factory: Callable[[str], Pipe]) -> None:
    pipe = pipe_factory(stub.url)
    pipe.send(
        b"POST / HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n"
        b"Content-Type: application/x-amz-json-1.0\r\nX-Amz-Target: DynamoDB_20120810.Echo\r\n"
        b"\r\n4\r\n{\"n\"\r\n3\r\n: 5\r\n1\r\n}\r\n0\r\n\r\n"
    )
    assert pipe.response().json == {"Echo": {"n": 5}}


def test_connection_close_is_honoured(
    stub: StubServer, pipe_factory: Callable[[str], Pipe]
) -> None:
    pipe = pipe_factory(stub.url)
    pipe.send(
        request_bytes("Echo", {"n": 1}, extra="Connection: close\r\n")
        + request_bytes("Echo", {"n": 2})  # after the close: never answered
    )
    answer = pipe.response()
    assert answer.json == {"Echo": {"n": 1}}
    assert answer.headers["connection"] == "close"
    assert pipe.closed_by_server()
    assert [len(batch) for batch in stub.engine.batches] == [1]


@pytest.mark.parametrize("header", ["Connection", "Proxy-Connection"])
def test_http_1_0_keep_alive(
    stub: StubServer, pipe_factory: Callable[[str], Pipe], header: str
) -> None:
    # llhttp keeps an HTTP/1.0 connection alive on either header; the server
    # asks the HTTP version only when one of them came.
    pipe = pipe_factory(stub.url)
    one = request_bytes("Echo", {"n": 1}, extra=f"{header}: keep-alive\r\n")
    one = one.replace(b"HTTP/1.1", b"HTTP/1.0", 1)
    pipe.send(one)
    answer = pipe.response()
    assert answer.headers["connection"] == "keep-alive"
    pipe.send(one)
    assert pipe.response().json == {"Echo": {"n": 1}}


def test_health_check(stub: StubServer) -> None:
    # DynamoDB: "healthy: " and the name it was reached by, then a space
    answer = post(stub.url, None, b"", method="GET", headers={"Content-Type": ""})
    assert answer.status == 200
    assert answer.body == b"healthy: " + urlsplit(stub.url).netloc.encode() + b" "
    assert "content-type" not in answer.headers  # (as DynamoDB's)


def test_health_check_without_host_names_the_listening_address(
    stub: StubServer, pipe_factory: Callable[[str], Pipe]
) -> None:
    pipe = pipe_factory(stub.url)
    pipe.send(b"GET / HTTP/1.0\r\n\r\n")
    answer = pipe.response()
    assert answer.status == 200
    assert answer.body == b"healthy: " + urlsplit(stub.url).netloc.encode() + b" "


def test_not_a_post_is_404_unknown_operation(stub: StubServer) -> None:
    # DynamoDB (and dynalite) answer any other method with this XML body.
    for method in ("PUT", "DELETE", "OPTIONS", "PATCH"):
        answer = post(stub.url, "Echo", b"", method=method)
        assert answer.status == 404, method
        assert answer.body == b"<UnknownOperationException/>\n"
        assert answer.headers["x-amz-crc32"] == "3552371480"
        assert answer.headers["content-length"] == "29"


def test_wrong_content_type_with_a_body_is_404(stub: StubServer) -> None:
    for content_type in ("text/plain", "whatever"):
        answer = post(stub.url, "Echo", b"{}", headers={"Content-Type": content_type})
        assert answer.status == 404
        assert answer.body == b"<UnknownOperationException/>\n"


def test_cors_with_credentials_is_open_as_dynamodbs(
    stub_factory: Callable[..., StubServer],
) -> None:
    # Every request to a server with credentials is signed, so any page may
    # call it, as any page may call DynamoDB.
    stub = stub_factory(credentials={"AKID": "secret"})
    answer = post(stub.url, "Echo", headers={"Origin": "http://example.com"})
    assert answer.error_type.endswith("#MissingAuthenticationTokenException")
    assert answer.headers["access-control-allow-origin"] == "*"
    assert answer.headers["access-control-expose-headers"] == (
        "x-amzn-RequestId,x-amzn-ErrorType,x-amzn-ErrorMessage,Date"
    )
    preflight = post(
        stub.url,
        None,
        b"",
        method="OPTIONS",
        headers={
            "Origin": "http://example.com",
            "Access-Control-Request-Headers": "a, b",
            "Access-Control-Request-Method": "POST",
        },
    )
    assert preflight.status == 200
    assert preflight.headers["access-control-allow-origin"] == "*"
    assert preflight.headers["access-control-allow-headers"] == "a, b"
    assert preflight.headers["access-control-allow-methods"] == "POST"
    assert preflight.headers["access-control-max-age"] == "172800"
    assert preflight.body == b""


def test_oversized_body_by_content_length_is_413(
    stub: StubServer, pipe_factory: Callable[[str], Pipe]
) -> None:
    pipe = pipe_factory(stub.url)
    pipe.send(
        b"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-amz-json-1.0\r\n"
        b"X-Amz-Target: DynamoDB_20120810.Echo\r\nContent-Length: %d\r\n\r\n" % (MAX_BODY + 1)
        + b" " * 100_000
    )
    answer = pipe.response()
    assert answer.status == 413
    # boto3 reads this as a ValidationException with its message, not "413"
    assert answer.json == {
        "__type": "com.amazon.coral.validate#ValidationException",
        "message": "Request size exceeds the limit of 16777216 bytes",
    }
    assert pipe.closed_by_server()
    assert post(stub.url, "Echo").status == 200


def test_oversized_chunked_body_is_413(
    stub: StubServer, pipe_factory: Callable[[str], Pipe]
) -> None:
    pipe = pipe_factory(stub.url)
    pipe.send(
        b"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-amz-json-1.0\r\n"
        b"X-Amz-Target: DynamoDB_20120810.Echo\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    chunk = b"%x\r\n%s\r\n" % (1 << 20, b" " * (1 << 20))
    try:
        for _ in range(MAX_BODY // (1 << 20) + 2):
            pipe.send(chunk)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the server may stop reading once it has answered
    assert pipe.response().status == 413


def test_body_at_the_limit_is_read(stub: StubServer) -> None:
    body = b'{"pad": "' + b"x" * (MAX_BODY - 20) + b'"}'
    assert len(body) <= MAX_BODY
    answer = post(stub.url, "ListTables", body)
    assert answer.status == 200
    assert answer.json == {"TableNames": []}


def test_garbage_bytes_get_400_and_a_close(
    stub: StubServer, pipe_factory: Callable[[str], Pipe]
) -> None:
    pipe = pipe_factory(stub.url)
    pipe.send(b"\x00\xff\xfe garbage \r\n\r\n\x16\x03\x01")
    answer = pipe.response()
    assert answer.status == 400
    assert pipe.closed_by_server()
    assert post(stub.url, "Echo").status == 200


def test_garbage_after_good_requests_keeps_their_answers(
    stub: StubServer, pipe_factory: Callable[[str], Pipe]
) -> None:
    pipe = pipe_factory(stub.url)
    pipe.send(request_bytes("Echo", {"n": 1}) + b"BLAH BLAH\r\n\r\n")
    assert pipe.response().json == {"Echo": {"n": 1}}
    assert pipe.response().status == 400
    assert pipe.closed_by_server()


def test_tls_handshake_on_plain_port_does_not_hurt(stub: StubServer) -> None:
    with socket.create_connection(("127.0.0.1", stub.port), timeout=TIMEOUT) as sock:
        sock.sendall(bytes.fromhex("16030100a5010000a10303") + b"\x00" * 200)
        sock.recv(1024)
    assert post(stub.url, "Echo").status == 200


def test_endless_headers_are_cut_off(
    stub: StubServer, pipe_factory: Callable[[str], Pipe]
) -> None:
    pipe = pipe_factory(stub.url)
    pipe.send(b"POST / HTTP/1.1\r\nHost: localhost\r\nX-Long: ")
    try:
        for _ in range(40):
            pipe.send(b"a" * 65536)
    except (BrokenPipeError, ConnectionResetError):
        pass
    assert pipe.response().status == 400
    assert post(stub.url, "Echo").status == 200


def test_clients_that_vanish_mid_request(stub: StubServer) -> None:
    for partial in (
        b"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n{",
        b"POST / HTT",
        request_bytes("Echo") * 50,  # and never read the answers
    ):
        with socket.create_connection(("127.0.0.1", stub.port), timeout=TIMEOUT) as sock:
            sock.sendall(partial)
    assert post(stub.url, "Echo").status == 200


def test_many_concurrent_connections(stub: StubServer) -> None:
    pipes = [Pipe(stub.url) for _ in range(50)]
    try:
        for n, pipe in enumerate(pipes):
            pipe.send(request_bytes("Echo", {"n": n}) * 3)
        for n, pipe in enumerate(pipes):
            for _ in range(3):
                assert pipe.response().json == {"Echo": {"n": n}}
    finally:
        for pipe in pipes:
            pipe.close()


def test_expect_100_continue(stub: StubServer, pipe_factory: Callable[[str], Pipe]) -> None:
    # curl asks before sending a body over 1 KB, and waits a second otherwise.
    pipe = pipe_factory(stub.url)
    body = b'{"n": 7}'
    pipe.send(
        b"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-amz-json-1.0\r\n"
        b"X-Amz-Target: DynamoDB_20120810.Echo\r\nExpect: 100-continue\r\n"
        b"Content-Length: %d\r\n\r\n" % len(body)
    )
    assert pipe.file.readline() == b"HTTP/1.1 100 Continue\r\n"
    assert pipe.file.readline() == b"\r\n"
    pipe.send(body)
    assert pipe.response().json == {"Echo": {"n": 7}}


SPELLINGS = [b"Host", b"host", b"HOST", b"X-Amz-Target", b"x-amz-target", b"X-AMZ-TARGET",
             b"Content-Type", b"content-type", b"Content-Length", b"content-LENGTH",
             b"Authorization", b"authorization", b"X-Amz-Date", b"User-Agent", b"user-agent",
             b"Expect", b"Origin", b"Connection", b"Accept-Encoding", b"Content-Encoding",
             b"Sec-Fetch-Site", b"amz-sdk-invocation-id", b"amz-sdk-request",
             b"X-Amz-Targeu", b"Hosts", b"Content-Typf", b"Authorizatio"]


@pytest.mark.parametrize("name", SPELLINGS, ids=[s.decode() for s in SPELLINGS])
def test_header_kind_agrees_with_the_case_insensitive_rule(name: bytes) -> None:
    # the spellings compared first give what the lowercased lookup gives
    from tallydb.server.protocol import _OTHER, _WANTED, header_kind

    expected = _WANTED.get(name.lower(), _OTHER)
    assert header_kind(name) == expected
    assert header_kind(name) == expected  # (a spelling compared later: from the cache)
