"""What DynamoDB's endpoint answers a browser and a health check, against a
real ``tallydb serve``.

DynamoDB's answers: a preflight of dynamodb.us-east-1.amazonaws.com recorded
with curl (200, empty body, ``Access-Control-Allow-Origin: *``, the asked
headers and method echoed, ``Access-Control-Expose-Headers:
x-amzn-RequestId,x-amzn-ErrorType,x-amzn-ErrorMessage,Date``,
``Access-Control-Max-Age: 172800``); ScyllaDB Alternator's test_cors.py and
test_health.py, run against DynamoDB (which requests carry which headers; the
health check's body names the host, only ``/`` answers it); dynalite's
recording of the health check's body, "healthy: dynamodb.us-east-1.amazonaws.com "
(a trailing space); ScyllaDB's request for an Alternator ping quotes `curl -i` of
dynamodb.us-west-2's health check: Server, Date, Content-Length, Connection,
x-amzn-RequestId and x-amz-crc32, no Content-Type.

A server with ``--credentials`` is open to every origin, as DynamoDB is (every
request is signed); without credentials the origin rule of test_origin.py
holds, and these headers go to the pages it lets through.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from botocore.exceptions import ClientError
from serverkit import Pipe, Serve, post

pytest_plugins = ["server_fixtures"]

EXPOSED = "x-amzn-RequestId,x-amzn-ErrorType,x-amzn-ErrorMessage,Date"
CORS_HEADERS = (
    "access-control-allow-origin", "access-control-allow-credentials",
    "access-control-expose-headers", "access-control-max-age",
    "access-control-allow-methods", "access-control-allow-headers",
)
PAGE = "http://example.com"
METHODS = ("OPTIONS", "GET", "POST")


@pytest.fixture(scope="module")
def signed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serve]:
    path: Path = tmp_path_factory.mktemp("keys") / "keys.toml"
    path.write_text('[keys.AKIDADMIN]\nsecret = "admin-secret"\n')
    server = Serve("--in-memory", "--credentials", str(path)).start()
    yield server
    server.kill()


def ask(server: Serve, method: str, headers: dict[str, str] | None = None,
        path: str = "/") -> tuple[int, dict[str, str], bytes]:
    answer = post(server.url, None, b"", method=method, path=path,
                  headers={"Content-Type": "", **(headers or {})})
    return answer.status, answer.headers, answer.body


@pytest.mark.parametrize("method", METHODS)
def test_a_request_without_origin_gets_no_cors_headers(signed_server: Serve,
                                                      method: str) -> None:
    _, headers, _ = ask(signed_server, method)
    assert not set(CORS_HEADERS) & set(headers)


@pytest.mark.parametrize("method", METHODS)
def test_every_answer_to_a_page_allows_any_origin(signed_server: Serve, method: str) -> None:
    _, headers, _ = ask(signed_server, method, {"Origin": PAGE})
    assert headers["access-control-allow-origin"] == "*"
    assert headers["access-control-expose-headers"] == EXPOSED
    assert "vary" not in headers and "access-control-allow-credentials" not in headers
    # only the preflight says how long it may be kept
    assert ("access-control-max-age" in headers) is (method == "OPTIONS")


@pytest.mark.parametrize("method", METHODS)
def test_the_preflight_echoes_what_was_asked(signed_server: Serve, method: str) -> None:
    asked = {"Origin": PAGE, "Access-Control-Request-Method": "dog",
             "Access-Control-Request-Headers": "cat, meerkat, mouse"}
    status, headers, body = ask(signed_server, method, asked)
    if method == "OPTIONS":
        assert (status, body) == (200, b"")
        assert headers["access-control-allow-methods"] == "dog"
        assert headers["access-control-allow-headers"] == "cat, meerkat, mouse"
        assert headers["access-control-max-age"] == "172800"
    else:
        for name in ("access-control-max-age", "access-control-allow-methods",
                     "access-control-allow-headers"):
            assert name not in headers, (method, name)


def test_a_pages_refusal_is_readable_by_the_page(signed_server: Serve) -> None:
    # an unsigned request from a page: DynamoDB's error, with the headers
    # that let the page read it (x-amzn-ErrorType among them)
    answer = post(signed_server.url, "ListTables", {}, headers={"Origin": PAGE})
    assert answer.status == 400
    assert answer.error_type.endswith("#MissingAuthenticationTokenException")
    assert answer.headers["access-control-allow-origin"] == "*"
    assert answer.headers["access-control-expose-headers"] == EXPOSED


def test_a_signed_client_is_served_beside_pages(signed_server: Serve) -> None:
    import boto3

    client = boto3.client("dynamodb", endpoint_url=signed_server.url, region_name="us-east-1",
                          aws_access_key_id="AKIDADMIN", aws_secret_access_key="admin-secret")
    assert client.list_tables()["TableNames"] == []
    wrong = boto3.client("dynamodb", endpoint_url=signed_server.url, region_name="us-east-1",
                         aws_access_key_id="AKIDADMIN", aws_secret_access_key="wrong")
    with pytest.raises(ClientError) as refused:
        wrong.list_tables()
    assert refused.value.response["Error"]["Code"] == "InvalidSignatureException"


def test_the_health_check_names_the_host_it_was_asked_by(signed_server: Serve) -> None:
    port = signed_server.url.rsplit(":", 1)[1]
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", "localhost"):
        status, headers, body = ask(signed_server, "GET", {"Host": host})
        # no signature asked for, as DynamoDB's health check asks none
        assert (status, body) == (200, f"healthy: {host} ".encode())
        assert "content-type" not in headers  # (DynamoDB's health check has none)
    status, _, body = ask(signed_server, "HEAD")
    assert (status, body) == (200, b"")


@pytest.mark.parametrize("path", ["/abc", "/-", "/index.htm", "/health", "/ping"])
def test_only_the_root_is_the_health_check(signed_server: Serve, path: str) -> None:
    status, _, body = ask(signed_server, "GET", path=path)
    assert (status, body) == (404, b"<UnknownOperationException/>\n")


def test_the_console_keeps_its_own_paths_and_rules(serve: Callable[..., Serve],
                                                   signed_server: Serve) -> None:
    for server in (serve("--in-memory"), signed_server):
        status, headers, _ = ask(server, "GET", path="/console")
        assert (status, headers["location"]) == (302, "/console/")
        status, headers, _ = ask(server, "GET", path="/console/")
        assert status == 200 and headers["content-type"].startswith("text/html")
        assert "access-control-allow-origin" not in headers
        # a page of another site gets neither the console nor CORS headers
        status, headers, _ = ask(server, "GET", {"Origin": PAGE, "Sec-Fetch-Site": "cross-site"},
                                 path="/console/")
        assert status == 403
        assert "access-control-allow-origin" not in headers


def test_without_credentials_the_servers_own_page_gets_its_origin(
        serve: Callable[..., Serve]) -> None:
    server = serve("--in-memory")
    status, headers, body = ask(server, "OPTIONS", {
        "Origin": server.url, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type,x-amz-target"})
    assert (status, body) == (200, b"")
    assert headers["access-control-allow-origin"] == server.url
    assert headers["vary"] == "Origin"
    assert headers["access-control-expose-headers"] == EXPOSED
    assert headers["access-control-allow-headers"] == "content-type,x-amz-target"
    assert headers["access-control-max-age"] == "172800"
    status, headers, _ = ask(server, "OPTIONS", {"Origin": PAGE})
    assert status == 403 and "access-control-allow-origin" not in headers


def _oversized_head(origin_line: bytes) -> bytes:
    # the Origin header after Content-Length: the 413 waits for the whole head
    return (b"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-amz-json-1.0\r\n"
            b"X-Amz-Target: DynamoDB_20120810.PutItem\r\nContent-Length: %d\r\n%s\r\n"
            % (16 * 1024 * 1024 + 1, origin_line))


@pytest.mark.parametrize("origin", [PAGE, None], ids=["page", "sdk"])
def test_a_body_too_large_is_refused_readably_by_the_page(
        signed_server: Serve, pipe_factory: Callable[[str], Pipe], origin: str | None) -> None:
    pipe = pipe_factory(signed_server.url)
    pipe.send(_oversized_head(b"" if origin is None else b"Origin: %s\r\n" % origin.encode()))
    answer = pipe.response()
    assert answer.status == 413
    assert answer.json["message"] == "Request size exceeds the limit of 16777216 bytes"
    if origin is None:
        assert not set(CORS_HEADERS) & set(answer.headers)
    else:
        assert answer.headers["access-control-allow-origin"] == "*"
        assert answer.headers["access-control-expose-headers"] == EXPOSED
    assert pipe.closed_by_server()


def test_a_body_past_the_servers_budget_is_refused_readably_by_the_page(
        serve: Callable[..., Serve], pipe_factory: Callable[[str], Pipe]) -> None:
    server = serve("--in-memory", "--max-body-memory", str(16 << 20), "--body-timeout", "600")

    host = server.url.split("//", 1)[1].encode()

    def head(length: int, origin: str) -> bytes:
        return (b"POST / HTTP/1.1\r\nHost: " + host + b"\r\n"
                b"Content-Type: application/x-amz-json-1.0\r\n"
                b"X-Amz-Target: DynamoDB_20120810.PutItem\r\nContent-Length: %d\r\n"
                b"Origin: %s\r\n\r\n" % (length, origin.encode()))

    holder = pipe_factory(server.url)  # holds 10 MB of the 16 while it sends slowly
    holder.send(head(10 << 20, server.url) + b'{"TableName": "t"')
    # the server's own page (allowed without credentials) is refused past the budget
    pipe = pipe_factory(server.url)
    pipe.send(head(10 << 20, server.url))
    answer = pipe.response()
    assert answer.status == 503
    assert answer.json["__type"] == "com.amazon.coral.availability#ThrottlingException"
    assert answer.headers["access-control-allow-origin"] == server.url
    assert answer.headers["access-control-expose-headers"] == EXPOSED
    # a page the rule refuses learns nothing more than before
    other = pipe_factory(server.url)
    other.send(head(10 << 20, PAGE))
    refused = other.response()
    assert refused.status == 403 and "access-control-allow-origin" not in refused.headers
