"""The console's own endpoints with ``--credentials FILE``: the live feed,
the parser and the contributor insights need a signed request, as ``POST /``
does, and a key limited to some tables sees the changes, counters, metrics
and busiest keys of those tables only."""

from __future__ import annotations

import http.client
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import boto3
import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from console_server import EventStream, get, post_json
from tallytest import TallyServer

ADMIN = ("AKIDADMIN", "admin-secret")
VIDEOS_ONLY = ("AKIDVIDEOS", "videos-secret")
CREDENTIALS = f"""
[keys.{ADMIN[0]}]
secret = "{ADMIN[1]}"

[keys.{VIDEOS_ONLY[0]}]
secret = "{VIDEOS_ONLY[1]}"
access = "read-only"
tables = ["videos"]
"""
KEY = {"PK": {"S": "a"}}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TallyServer]:
    path: Path = tmp_path_factory.mktemp("credentials") / "credentials.toml"
    path.write_text(CREDENTIALS)
    server = TallyServer(None, in_memory=True, extra_args=("--credentials", str(path))).start()
    try:
        admin = boto3.client("dynamodb", endpoint_url=server.url, region_name="us-east-1",
                             aws_access_key_id=ADMIN[0], aws_secret_access_key=ADMIN[1])
        for name in ("videos", "secrets"):
            admin.create_table(
                TableName=name, BillingMode="PAY_PER_REQUEST",
                AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
                KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}])
        server.admin = admin  # type: ignore[attr-defined]
        yield server
    finally:
        server.close()


def signed(server: TallyServer, path: str, key: tuple[str, str], method: str = "GET",
           body: bytes = b"") -> dict[str, str]:
    assert server.url is not None
    request = AWSRequest(method=method, url=server.url + path, data=body)
    SigV4Auth(Credentials(*key), "dynamodb", "us-east-1").add_auth(request)
    return dict(request.headers.items())


def test_unsigned_requests_to_the_feed_and_the_parser_are_refused(server: TallyServer) -> None:
    assert get(server, "/console/events").status == 400
    status, body = post_json(server, "/console/api/parse", {"UpdateExpression": "ADD n :d"})
    assert status == 400
    assert body["__type"].endswith("MissingAuthenticationTokenException")
    assert get(server, "/console/api/info").status == 200  # what the page needs to ask for a key


def test_a_wrong_secret_is_refused(server: TallyServer) -> None:
    headers = signed(server, "/console/events", (ADMIN[0], "wrong"))
    assert get(server, "/console/events", headers).status == 400


def test_a_table_limited_key_sees_only_its_tables(server: TallyServer) -> None:
    path = "/console/events"
    stream = EventStream(server, "", signed(server, path, VIDEOS_ONLY))
    try:
        assert stream.status == 200
        stream.until("hello")
        admin = server.admin  # type: ignore[attr-defined]
        admin.put_item(TableName="secrets", Item={**KEY, "v": {"S": "hidden"}})
        admin.put_item(TableName="videos", Item={**KEY, "v": {"S": "shown"}})
        event = stream.until("changes")
        assert [c["table"] for c in event.data["changes"]] == ["videos"]
        for _ in range(3):
            keys = stream.until("hotkeys").data["keys"]
            assert all(entry["table"] == "videos" for entry in keys)
    finally:
        stream.close()
    asked = "/console/events?tables=secrets"
    stream = EventStream(server, "?tables=secrets", signed(server, asked, VIDEOS_ONLY))
    try:
        stream.until("hello")
        server.admin.put_item(  # type: ignore[attr-defined]
            TableName="secrets", Item={**KEY, "v": {"S": "still hidden"}})
        hotkeys = 0
        while hotkeys < 2:  # two frames of hot keys, and no change of the other table
            event = stream.next()
            assert event.name != "changes", event
            if event.name == "hotkeys":
                hotkeys += 1
                assert event.data["keys"] == []
    finally:
        stream.close()


def test_a_resumed_feed_replays_only_the_keys_tables(server: TallyServer) -> None:
    path = "/console/events"
    admin = server.admin  # type: ignore[attr-defined]
    other_tab = EventStream(server, "", signed(server, path, VIDEOS_ONLY))  # keeps the ring
    stream = EventStream(server, "", signed(server, path, VIDEOS_ONLY))
    try:
        other_tab.until("hello")
        stream.until("hello")
        admin.put_item(TableName="videos", Item={**KEY, "v": {"S": "seen"}})
        seen = stream.until("changes")
        stream.close()
        admin.put_item(TableName="secrets", Item={**KEY, "v": {"S": "missed, hidden"}})
        admin.put_item(TableName="videos", Item={**KEY, "v": {"S": "missed, shown"}})
        time.sleep(0.3)  # framed while the page is away: replayed from the ring
        headers = {**signed(server, path, VIDEOS_ONLY), "Last-Event-ID": str(seen.id)}
        resumed = EventStream(server, "", headers)
        try:
            resumed.until("hello")
            replayed = resumed.until("changes")
            assert [(c["table"], c["new"]["v"]["S"]) for c in replayed.data["changes"]] == [
                ("videos", "missed, shown")]
        finally:
            resumed.close()
    finally:
        stream.close()
        other_tab.close()


def test_a_table_limited_key_counts_and_measures_only_its_tables(server: TallyServer) -> None:
    admin = server.admin  # type: ignore[attr-defined]
    stream = EventStream(server, "", signed(server, "/console/events", VIDEOS_ONLY))
    try:
        stream.until("hello")
        for table in ("secrets", "videos"):
            for _ in range(3):
                admin.update_item(TableName=table, Key=KEY, UpdateExpression="ADD n :one",
                                  ExpressionAttributeValues={":one": {"N": "1"}})
        counted: set[str] = set()
        measured: set[str] = set()
        deadline = time.monotonic() + 30
        while not ("videos" in counted and "videos" in measured):
            assert time.monotonic() < deadline, (counted, measured)
            event = stream.next()
            if event.name == "counters":
                counted |= {entry["table"] for entry in event.data["counters"]}
            if event.name == "metrics":
                measured |= {name for second in event.data["seconds"] for name in second["tables"]}
        assert "secrets" not in counted | measured
    finally:
        stream.close()


def insights(server: TallyServer, table: str, key: tuple[str, str] | None) -> tuple[int, bytes]:
    """GET the console's contributor insights of ``table``, signed with ``key``."""
    assert server.url is not None
    path = f"/console/api/contributor-insights?TableName={table}"
    parts = urlsplit(server.url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    conn.request("GET", path, headers=signed(server, path, key) if key else {})
    response = conn.getresponse()
    try:
        return response.status, response.read()
    finally:
        conn.close()


def test_contributor_insights_need_a_key_that_sees_the_table(server: TallyServer) -> None:
    status, body = insights(server, "videos", None)
    assert status == 400 and b"MissingAuthenticationTokenException" in body
    status, body = insights(server, "secrets", VIDEOS_ONLY)
    assert status == 400 and b"ResourceNotFoundException" in body
    assert insights(server, "videos", VIDEOS_ONLY)[0] == 200
    assert insights(server, "secrets", ADMIN)[0] == 200
