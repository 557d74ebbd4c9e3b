"""Clients that never read what they asked for: a connection whose answers
have not drained for the idle timeout is closed, so it frees its slot, its
memory and its share of the server's time; the console's live feed too.
Through a real ``tallydb serve``.
"""

from __future__ import annotations

import json
import socket
import struct
import time
from collections.abc import Callable, Iterator

import pytest
from serverkit import Serve, post

pytest_plugins = ["server_fixtures"]

TABLE = {
    "TableName": "unread", "BillingMode": "PAY_PER_REQUEST",
    "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
    "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
}
ESTABLISHED = 1  # linux/tcp_states.h


def tcp_state(sock: socket.socket) -> int:
    """The kernel's TCP state of our end (tcp_info's first byte)."""
    info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)
    return int(struct.unpack("B", info[:1])[0])


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


@pytest.fixture
def opened() -> Iterator[list[socket.socket]]:
    socks: list[socket.socket] = []
    yield socks
    for sock in socks:
        sock.close()


def connect(server: Serve, opened: list[socket.socket]) -> socket.socket:
    port = int(server.url.rsplit(":", 1)[1])
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # (before connecting)
    sock.connect(("127.0.0.1", port))
    opened.append(sock)
    return sock


def test_pipelining_clients_that_never_read_are_closed(
    serve: Callable[..., Serve], opened: list[socket.socket]
) -> None:
    server = serve("--in-memory", "--max-connections", "10", "--idle-timeout", "2",
                   "--header-timeout", "600", "--body-timeout", "600")
    assert post(server.url, "CreateTable", TABLE).status == 200
    item = {"TableName": "unread", "Item": {"id": {"S": "big"}, "pad": {"S": "x" * 20_000}}}
    assert post(server.url, "PutItem", item).status == 200
    body = json.dumps({"TableName": "unread", "Key": {"id": {"S": "big"}}}).encode()
    request = (b"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-amz-json-1.0"
               b"\r\nX-Amz-Target: DynamoDB_20120810.GetItem\r\nContent-Length: %d\r\n\r\n"
               % len(body)) + body
    stuck = []
    for _ in range(10):  # every slot taken by a client that asks and never reads
        sock = connect(server, opened)
        sock.setblocking(False)
        data = request * 3000
        sent = 0
        try:
            while sent < len(data):
                sent += sock.send(data[sent:])
        except BlockingIOError:
            pass
        stuck.append(sock)
    wait_for(lambda: all(tcp_state(sock) != ESTABLISHED for sock in stuck),
             "clients that never read were never closed")
    assert post(server.url, "ListTables", {}).status == 200  # their slots are free again


def test_a_live_feed_that_is_not_read_is_closed(
    serve: Callable[..., Serve], opened: list[socket.socket]
) -> None:
    server = serve("--in-memory", "--idle-timeout", "2")
    assert post(server.url, "CreateTable", TABLE).status == 200
    streams = []
    for _ in range(5):
        sock = connect(server, opened)
        sock.sendall(b"GET /console/events HTTP/1.1\r\nHost: localhost\r\n\r\n")
        streams.append(sock)
    # A trickle of small changes: a page that stopped reading must be noticed
    # though all its frames would fit the kernel's buffers for minutes.
    n = 0
    deadline = time.monotonic() + 120
    while any(tcp_state(sock) == ESTABLISHED for sock in streams):
        assert time.monotonic() < deadline, "a live feed nobody reads was never closed"
        item = {"TableName": "unread", "Item": {"id": {"S": f"i{n}"}, "pad": {"S": "p" * 100}}}
        assert post(server.url, "PutItem", item).status == 200
        n += 1
        time.sleep(0.02)  # (a trickle: a few KB a second for each page)
    reader = connect(server, opened)  # a page that reads is served as before
    reader.settimeout(10)
    reader.sendall(b"GET /console/events HTTP/1.1\r\nHost: localhost\r\n\r\n")
    seen = b""
    while b"event: hello" not in seen:
        chunk = reader.recv(65536)
        assert chunk, seen
        seen += chunk
