"""The console's page and files: served by ``tallydb serve`` from the
package, with the right types, ETag/304, a CSP that allows no other
origin, nothing outside the static folder, and nothing at all with
``--no-console`` (where the data plane answers exactly as before)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from importlib import resources

import pytest
from console_server import get, post_json, serving
from tallytest import TallyServer


@pytest.fixture(scope="module")
def server() -> Iterator[TallyServer]:
    with serving() as server:
        yield server


def test_the_banner_names_the_console(server: TallyServer) -> None:
    deadline = time.monotonic() + 60  # the line after the one the fixture waited for
    while f"console at {server.url}/console" not in server.log():
        assert time.monotonic() < deadline, server.log()
        time.sleep(0.05)


def test_console_redirects_to_its_page(server: TallyServer) -> None:
    response = get(server, "/console")
    assert response.status == 302
    assert response.getheader("Location") == "/console/"


def test_the_page_is_the_packaged_index_with_a_strict_policy(server: TallyServer) -> None:
    response = get(server, "/console/")
    assert response.status == 200
    assert response.getheader("Content-Type") == "text/html; charset=utf-8"
    policy = response.getheader("Content-Security-Policy") or ""
    assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert response.getheader("X-Content-Type-Options") == "nosniff"
    assert response.getheader("Access-Control-Allow-Origin") is None


def test_every_packaged_file_is_served_with_its_type_and_revalidated(
        server: TallyServer) -> None:
    folder = resources.files("tallydb.console") / "static"
    names = []
    stack = [(folder, "")]
    while stack:
        here, prefix = stack.pop()
        for entry in here.iterdir():
            if entry.is_dir():
                stack.append((entry, prefix + entry.name + "/"))
            elif not entry.name.startswith("."):
                names.append(prefix + entry.name)
    assert "index.html" in names
    for name in names:
        response = get(server, "/console/static/" + name)
        assert response.status == 200, name
        if name.endswith(".js"):
            assert response.getheader("Content-Type") == "text/javascript; charset=utf-8"
        etag = response.getheader("ETag")
        assert etag
        again = get(server, "/console/static/" + name, {"If-None-Match": etag})
        assert again.status == 304, name


@pytest.mark.parametrize("path", [
    "/console/static/../routes.py", "/console/static/%2e%2e/routes.py",
    "/console/static/", "/console/static/js", "/console/static/missing.js",
    "/console/nothing",
])
def test_nothing_outside_the_static_files_is_served(server: TallyServer, path: str) -> None:
    assert get(server, path).status == 404


def test_the_info_endpoint_says_whether_keys_are_needed(server: TallyServer) -> None:
    status, info = post_json(server, "/console/api/parse", {"UpdateExpression": "ADD n :d",
                                                             "ExpressionAttributeValues": {
                                                                 ":d": {"N": "1"}}})
    assert status == 200 and info["valid"] is True
    response = get(server, "/console/api/info")
    assert response.status == 200


def test_a_cross_site_browser_request_is_refused(server: TallyServer) -> None:
    # the server's origin rule, which the console shares with the data plane
    assert get(server, "/console/events", {"Sec-Fetch-Site": "cross-site"}).status == 403
    assert get(server, "/console/api/info", {"Origin": "http://evil.example"}).status == 403
    status, _ = post_json(server, "/console/api/parse", {"UpdateExpression": "ADD n :d"},
                          {"Origin": "http://evil.example"})
    assert status == 403
    assert get(server, "/console/api/info", {"Sec-Fetch-Site": "same-origin"}).status == 200


def test_a_foreign_host_name_is_refused_without_credentials(server: TallyServer) -> None:
    # DNS rebinding: a page on evil.example whose name now points at 127.0.0.1
    rebound = {"Host": "evil.example:8000", "Sec-Fetch-Site": "same-origin"}
    assert get(server, "/console/events", rebound).status == 403
    assert get(server, "/console/", {"Host": "localhost:8000",
                                     "Sec-Fetch-Site": "same-origin"}).status == 200


def test_no_console_serves_no_console_and_the_same_data_plane() -> None:
    with serving("--no-console") as server:
        assert "console at" not in server.log()
        assert get(server, "/console/").status == 404
        # a POST to a path but "/" gets DynamoDB's 404, as any other path does
        answer = get(server, "/console/api/parse", method="POST", body=b"{}",
                     headers={"Content-Type": "application/json"})
        assert answer.status == 404
        client = server.client()
        assert client.list_tables()["TableNames"] == []
