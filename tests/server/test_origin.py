"""A server without credentials serves this machine, not any web page."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from click.testing import CliRunner
from serverkit import Serve, StubServer, post

from tallydb.cli import main
from tallydb.server.origin import OriginPolicy, cross_origin_refusal

pytest_plugins = ["server_fixtures"]

EVIL = "http://evil.example"
TABLE = {
    "TableName": "tally",
    "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
    "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
    "BillingMode": "PAY_PER_REQUEST",
}
INCREMENT = {
    "TableName": "tally",
    "Key": {"id": {"S": "k"}},
    "UpdateExpression": "ADD n :one",
    "ExpressionAttributeValues": {":one": {"N": "1"}},
}


def test_a_cross_origin_write_to_a_no_auth_server_is_refused(cli_server: Serve) -> None:
    post(cli_server.url, "CreateTable", TABLE)
    answer = post(cli_server.url, "UpdateItem", INCREMENT,
                  headers={"Origin": EVIL, "Sec-Fetch-Site": "cross-site"})
    assert answer.status == 403
    assert answer.error_type == "com.amazon.coral.service#AccessDeniedException"
    assert "Cross-origin request from 'http://evil.example' refused" in answer.json["message"]
    assert "access-control-allow-origin" not in answer.headers
    item = post(cli_server.url, "GetItem", {"TableName": "tally", "Key": {"id": {"S": "k"}}})
    assert item.json == {}


def test_the_servers_own_origin_is_served(cli_server: Serve) -> None:
    host = cli_server.url.split("//", 1)[1]
    answer = post(cli_server.url, "ListTables", {},
                  headers={"Origin": cli_server.url, "Sec-Fetch-Site": "same-origin"})
    assert answer.status == 200
    assert answer.headers["access-control-allow-origin"] == cli_server.url
    assert answer.headers["vary"] == "Origin"
    assert host.startswith("127.0.0.1:")


def test_dns_rebinding_is_refused_by_host(stub: StubServer) -> None:
    # A page on rebound.example, its name pointed at 127.0.0.1, is the
    # server's own origin to the browser: Host gives it away.
    port = stub.url.rsplit(":", 1)[1]
    origin = f"http://rebound.example:{port}"
    answer = post(stub.url, "Echo", {}, headers={
        "Host": f"rebound.example:{port}", "Origin": origin, "Sec-Fetch-Site": "same-origin"})
    assert answer.status == 403
    assert "DNS rebinding" in answer.json["message"]


def test_a_server_on_loopback_checks_every_requests_host(cli_server: Serve) -> None:
    """Without Origin or Sec-Fetch-Site too: a page on a rebound name reading
    the live feed, or sending a simple request, names that name in Host."""
    port = cli_server.url.rsplit(":", 1)[1]
    for target, method, path in (("ListTables", "POST", "/"), (None, "GET", "/console/events")):
        refused = post(cli_server.url, target, {} if target else b"", method=method,
                       headers={"Host": f"evil.test:{port}"}, path=path)
        assert refused.status == 403, (path, refused.body)
        assert refused.error_type == "com.amazon.coral.service#AccessDeniedException"
        assert "DNS rebinding" in refused.json["message"]
    for host in (f"localhost:{port}", f"127.0.0.1:{port}", "127.0.0.1", f"[::1]:{port}",
                 f"app.localhost:{port}", f"10.0.0.7:{port}"):
        assert post(cli_server.url, "ListTables", {}, headers={"Host": host}).status == 200
    # (a request with no Host at all is no browser's: HTTP/1.1 browsers always send one)


def test_a_server_on_every_interface_answers_any_name(serve: Callable[..., Serve]) -> None:
    # a container reached by its service name: only a browser's Host is checked
    server = serve("--in-memory", "--host", "0.0.0.0", "--insecure-no-auth")
    port = server.url.rsplit(":", 1)[1]
    answer = post(f"http://127.0.0.1:{port}", "ListTables", {},
                  headers={"Host": f"tallydb:{port}"})
    assert answer.status == 200


def test_a_cross_site_request_without_origin_is_refused(stub: StubServer) -> None:
    answer = post(stub.url, None, b"", method="GET", headers={"Sec-Fetch-Site": "cross-site"})
    assert answer.status == 403
    assert post(stub.url, None, b"", method="GET",
                headers={"Sec-Fetch-Site": "none"}).status == 200


def test_cors_origin_allows_a_page(serve: Callable[..., Serve]) -> None:
    server = serve("--in-memory", "--cors-origin", "http://localhost:3000")
    allowed = post(server.url, "ListTables", {}, headers={"Origin": "http://localhost:3000"})
    assert allowed.status == 200
    assert allowed.headers["access-control-allow-origin"] == "http://localhost:3000"
    preflight = post(server.url, None, b"", method="OPTIONS", headers={
        "Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST"})
    assert preflight.status == 200
    other = post(server.url, None, b"", method="OPTIONS", headers={
        "Origin": "http://localhost:3001", "Access-Control-Request-Method": "POST"})
    assert other.status == 403


def test_no_auth_on_every_interface_needs_insecure_no_auth() -> None:
    result = CliRunner().invoke(main, ["serve", "--in-memory", "--host", "0.0.0.0"])
    assert result.exit_code == 2
    assert "refusing to listen on 0.0.0.0 without credentials" in result.output
    assert "--insecure-no-auth" in result.output


def test_insecure_no_auth_starts_on_every_interface(serve: Callable[..., Serve]) -> None:
    server = serve("--in-memory", "--host", "0.0.0.0", "--insecure-no-auth")
    assert server.url.startswith("http://0.0.0.0:")
    port = server.url.rsplit(":", 1)[1]
    assert post(f"http://127.0.0.1:{port}", "ListTables", {}).status == 200


def test_a_bad_cors_origin_is_a_usage_error() -> None:
    result = CliRunner().invoke(main, ["serve", "--in-memory", "--cors-origin", "localhost"])
    assert result.exit_code == 2
    assert "an origin looks like http://host:port" in result.output


def test_the_console_refuses_another_site_whatever_the_credentials(
        serve: Callable[..., Serve], tmp_path: Path) -> None:
    path = tmp_path / "credentials.toml"
    path.write_text('[keys.AKIDADMIN]\nsecret = "admin-secret"\n')
    server = serve("--in-memory", "--credentials", str(path))
    port = server.url.rsplit(":", 1)[1]
    signed = signed_headers(server.url + "/console/events", "GET")
    refused = post(server.url, None, b"", method="GET", path="/console/events", headers={
        **signed, "Origin": f"http://evil.test:{port}", "Sec-Fetch-Site": "cross-site"})
    assert refused.status == 403
    assert "Cross-origin request from 'http://evil.test:" in refused.json["message"]
    assert "the console is for its own origin" in refused.json["message"]
    refused = post(server.url, None, b"", method="GET", path="/console/events",
                   headers={**signed, "Sec-Fetch-Site": "cross-site"})
    assert refused.status == 403
    # the data plane stays open to any origin with a signature, as DynamoDB's
    data = post(server.url, "ListTables", {}, headers={"Origin": "http://evil.test"})
    assert data.status == 400  # unsigned: MissingAuthenticationToken, not an origin refusal
    assert data.error_type.endswith("#MissingAuthenticationTokenException")


def signed_headers(url: str, method: str) -> dict[str, str]:
    request = AWSRequest(method=method, url=url, data=b"")
    SigV4Auth(Credentials("AKIDADMIN", "admin-secret"), "dynamodb", "us-east-1").add_auth(
        request)
    return dict(request.headers.items())


@pytest.mark.parametrize("origin, site, host, refused", [
    (None, None, "anything:1", False),
    ("http://127.0.0.1:8000", "same-origin", "127.0.0.1:8000", False),
    ("http://localhost:8000", None, "localhost:8000", False),
    ("http://[::1]:8000", None, "[::1]:8000", False),
    ("null", "cross-site", "127.0.0.1:8000", True),
    ("http://127.0.0.1:8001", "same-site", "127.0.0.1:8000", True),
    ("http://app.localhost:8000", None, "app.localhost:8000", False),
    ("http://attacker.test:8000", None, "attacker.test:8000", True),
    (None, "same-origin", "attacker.test:8000", True),
])
def test_the_rule(origin: str | None, site: str | None, host: str, refused: bool) -> None:
    policy = OriginPolicy.build(False, (), "127.0.0.1")
    assert (cross_origin_refusal(policy, origin, site, host) is not None) is refused
    assert cross_origin_refusal(OriginPolicy(open=True), origin, site, host) is None
