"""Honest retries: a write that is not idempotent goes out exactly once.

botocore re-sends a request whose connection dropped before the answer (a
``ConnectionClosedError`` is a transient error to its retry handler), and a
client made with ``Config(retries={"max_attempts": 1})`` still sends twice:
botocore's ``max_attempts`` counts *retries*. A plain counter add sent twice
counts twice. The proxy below loses the answer after the store applied the
write, as a network blip or a crash between commit and reply would.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from botocore.config import Config
from botocore.exceptions import ConnectionClosedError
from dropping_proxy import DroppingProxy
from tallytest import session_client
from toolkit_stores import unique

import tallydb

KEY = {"PK": "VID#9f3a", "SK": "STATS#TOTAL"}
ENDPOINTS = {"serve": "tallydb_server", "moto": "moto_server", "ddblocal": "dynamodb_local"}


def _client(url: str, **config: Any) -> Any:
    return session_client(
        "dynamodb",
        endpoint_url=url,
        region_name="us-east-1",
        aws_access_key_id="x",
        aws_secret_access_key="y",
        config=Config(**config) if config else None,
    )


@pytest.fixture(params=list(ENDPOINTS))
def upstream(request: pytest.FixtureRequest) -> str:
    """The URL of a real store behind the proxy: ``tallydb serve``, moto or
    DynamoDB Local."""
    url: str = request.getfixturevalue(ENDPOINTS[request.param]).url
    return url


@pytest.fixture
def direct(upstream: str) -> Iterator[tallydb.Database]:
    """The store, reached without the proxy; its table ``videos-...``."""
    with tallydb.connect(client=_client(upstream)) as db:
        yield db


def _videos(db: tallydb.Database) -> tallydb.Table:
    return db.create_table(unique("videos"), hash_key=("PK", "S"), range_key=("SK", "S"))


def test_botocore_resends_a_dropped_add_even_with_max_attempts_1(
    upstream: str, direct: tallydb.Database
) -> None:
    videos = _videos(direct)
    proxy = DroppingProxy(upstream, b"UpdateItem", times=None)
    try:
        raw = _client(proxy.url, retries={"max_attempts": 1})
        with pytest.raises(ConnectionClosedError):
            raw.update_item(
                TableName=videos.name,
                Key={"PK": {"S": KEY["PK"]}, "SK": {"S": KEY["SK"]}},
                UpdateExpression="ADD play_count :one",
                ExpressionAttributeValues={":one": {"N": "1"}},
            )
    finally:
        proxy.close()
    assert proxy.seen == 2
    assert tallydb.Counter(videos, KEY, "play_count").value() == 2  # counted twice


@pytest.mark.parametrize("how", ["connect(url)", "client with max_attempts=1"])
def test_counter_add_with_a_lost_answer_raises_outcome_unknown_and_counts_once(
    upstream: str, direct: tallydb.Database, how: str
) -> None:
    videos = _videos(direct)
    proxy = DroppingProxy(upstream, b"UpdateItem", times=None)
    db = (
        tallydb.connect(proxy.url)
        if how == "connect(url)"
        else tallydb.connect(client=_client(proxy.url, retries={"max_attempts": 1}))
    )
    try:
        with pytest.raises(tallydb.OutcomeUnknown) as caught:
            tallydb.Counter(db.table(videos.name), KEY, "play_count").add()
    finally:
        db.close()
        proxy.close()
    assert proxy.seen == 1
    assert tallydb.Counter(videos, KEY, "play_count").value() == 1
    assert isinstance(caught.value, tallydb.TransportError)
    assert caught.value.operation == "UpdateItem"
    assert caught.value.table == videos.name
    assert "idempotency_key" in str(caught.value)


def test_sharded_and_table_adds_are_sent_once(upstream: str, direct: tallydb.Database) -> None:
    videos = _videos(direct)
    proxy = DroppingProxy(upstream, b"UpdateItem", times=None)
    try:
        with tallydb.connect(proxy.url) as db:
            table = db.table(videos.name)
            with pytest.raises(tallydb.OutcomeUnknown):
                table.update(KEY, tallydb.Update().add("n", 1))
            with pytest.raises(tallydb.OutcomeUnknown):
                table.update(KEY, "SET m = if_not_exists(m, :z) + :one",
                             values={":z": 0, ":one": 1})
            with pytest.raises(tallydb.OutcomeUnknown):
                tallydb.ShardedCounter(
                    table, partition={"PK": "P"}, sort_prefix="S#", shards=1, attribute="n"
                ).add()
    finally:
        proxy.close()
    assert proxy.seen == 3
    item = videos.get(KEY, consistent=True)
    assert item is not None and (item["n"], item["m"]) == (1, 1)


def test_idempotent_writes_are_retried(upstream: str, direct: tallydb.Database) -> None:
    videos = _videos(direct)
    proxy = DroppingProxy(upstream, b"TransactWriteItems", times=1)
    try:
        with tallydb.connect(proxy.url) as db:
            plays = tallydb.Counter(db.table(videos.name), KEY, "play_count")
            assert plays.add(1, idempotency_key="play-1") == 1  # retried, applied once
    finally:
        proxy.close()
    assert proxy.seen == 2
    assert tallydb.Counter(videos, KEY, "play_count").value() == 1

    proxy = DroppingProxy(upstream, b"PutItem", times=1)
    try:
        with tallydb.connect(proxy.url) as db:
            db.table(videos.name).put({**KEY, "title": "Cats"})  # a put may be sent again
    finally:
        proxy.close()
    assert proxy.seen == 2


class Silent:
    """A port that accepts connections and never answers; ``accepted`` counts them."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.accepted: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                self.accepted.append(self.listener.accept()[0])
            except OSError:
                return

    def close(self) -> None:
        self.listener.close()
        for s in self.accepted:
            s.close()


@pytest.fixture
def silent_endpoint() -> Iterator[Silent]:
    silent = Silent()
    yield silent
    silent.close()


def test_connect_to_an_endpoint_that_never_answers_fails_within_its_timeout(
    silent_endpoint: Silent,
) -> None:
    with (
        tallydb.connect(silent_endpoint.url, timeout=0.3, retries=1) as db,
        pytest.raises(tallydb.TransportError, match="Read timeout"),
    ):
        db.list_tables()   # it ends, with the timeout's error, after retries + 1 attempts
    assert len(silent_endpoint.accepted) == 2  # a read is sent again


def test_an_add_that_times_out_is_not_sent_again(silent_endpoint: Silent) -> None:
    with (
        tallydb.connect(silent_endpoint.url, timeout=0.3, retries=3) as db,
        pytest.raises(tallydb.OutcomeUnknown, match="Read timeout"),
    ):
        tallydb.Counter(db.table("videos"), KEY, "play_count").add()
    assert len(silent_endpoint.accepted) == 1  # sent once, not 4 times


def test_connect_defaults_are_short() -> None:
    from tallydb.toolkit.database import DEFAULT_RETRIES, DEFAULT_TIMEOUT

    with tallydb.connect("http://127.0.0.1:1") as db:
        config = db.client.meta.config
        assert config.read_timeout == config.connect_timeout == DEFAULT_TIMEOUT
        assert config.retries["total_max_attempts"] == DEFAULT_RETRIES + 1
    assert (DEFAULT_RETRIES + 1) * DEFAULT_TIMEOUT <= 30


@pytest.mark.parametrize("bad", [{"timeout": 0}, {"retries": -1}, {"retries": "3"}])
def test_connect_refuses_bad_timeout_and_retries(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        tallydb.connect("http://127.0.0.1:1", **bad)


class _WebPage(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        status = 404 if "404" in self.path else 200
        body = b"<html><body>Welcome to nginx!</body></html>"
        self.send_response(status)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.mark.parametrize("path", ["/", "/404"])
def test_connect_to_something_that_is_not_dynamodb_says_so(path: str) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _WebPage)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}{path}"
        with (
            tallydb.connect(url, retries=0) as db,
            pytest.raises(tallydb.TransportError, match="not look like a DynamoDB endpoint"),
        ):
            db.list_tables()
    finally:
        server.shutdown()
        server.server_close()
