"""Large request bodies are judged off the event loop: while one is parsed
and checked, every other client is served; what no table could make valid
gets DynamoDB's answer from that judgement, what may be valid is run as
before, and a connection's answers keep their order. Through a real
``tallydb serve``.
"""

from __future__ import annotations

import fcntl
import json
import socket
import struct
import termios
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from botocore.exceptions import ClientError
from serverkit import Serve, post

pytest_plugins = ["server_fixtures"]

TABLE = {
    "TableName": "big", "BillingMode": "PAY_PER_REQUEST",
    "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
    "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
}
TOO_BIG = "Item size has exceeded the maximum allowed size"


def request(target: str, body: bytes) -> bytes:
    return (b"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-amz-json-1.0\r\n"
            b"X-Amz-Target: DynamoDB_20120810.%s\r\nContent-Length: %d\r\n\r\n"
            % (target.encode(), len(body))) + body


def answers(sock: socket.socket, count: int) -> list[tuple[int, dict[str, object]]]:
    """Read ``count`` whole responses off ``sock``, in order."""
    data = b""
    found: list[tuple[int, dict[str, object]]] = []
    while len(found) < count:
        if b"\r\n\r\n" in data:
            top, _, rest = data.partition(b"\r\n\r\n")
            lines = top.decode("latin-1").split("\r\n")
            length = next(int(line.split(":", 1)[1]) for line in lines
                          if line.lower().startswith("content-length:"))
            if len(rest) >= length:
                found.append((int(lines[0].split()[1]), json.loads(rest[:length] or b"{}")))
                data = rest[length:]
                continue
        chunk = sock.recv(65536)
        assert chunk, f"closed after {len(found)} answers"
        data += chunk
    return found


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def unsent(sock: socket.socket) -> int:
    """Bytes of ours the server's kernel has not acknowledged yet."""
    return int(struct.unpack("i", fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, b"\0" * 4))[0])


def unread_by_server(server_port: int, client_port: int) -> int:
    """Bytes waiting in the server's receive queue for our connection
    (/proc/net/tcp): 0 once the server process has read all we sent."""
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, remote = fields[1], fields[2]
        if (int(local.split(":")[1], 16) == server_port
                and int(remote.split(":")[1], 16) == client_port):
            return int(fields[4].split(":")[1], 16)
    raise AssertionError("the connection is not in /proc/net/tcp")


@pytest.fixture
def opened() -> Iterator[list[socket.socket]]:
    socks: list[socket.socket] = []
    yield socks
    for sock in socks:
        sock.close()


def connect(server: Serve, opened: list[socket.socket]) -> socket.socket:
    port = int(server.url.rsplit(":", 1)[1])
    sock = socket.create_connection(("127.0.0.1", port), timeout=120)
    opened.append(sock)
    return sock


def test_a_10_mb_list_does_not_stall_other_clients(
    serve: Callable[..., Serve], opened: list[socket.socket]
) -> None:
    server = serve("--in-memory")
    port = int(server.url.rsplit(":", 1)[1])
    assert post(server.url, "CreateTable", TABLE).status == 200
    # A PutItem of a 900,000-element list: 9 MB of JSON, seconds of parsing
    # and checking, and never valid (far over 400 KB).
    body = json.dumps({"TableName": "big", "Item": {
        "id": {"S": "a"}, "list": {"L": [{"N": "1"}] * 900_000}}}).encode()
    big = connect(server, opened)
    big.sendall(request("PutItem", body))
    # The server has read every byte of it: it is being judged from now on.
    wait_for(lambda: unsent(big) == 0, "the server never took the body")
    wait_for(lambda: unread_by_server(port, big.getsockname()[1]) == 0,
             "the server never read the body")
    # Meanwhile another client is answered ...
    other = post(server.url, "GetItem", {"TableName": "big", "Key": {"id": {"S": "a"}}})
    assert other.status == 200
    # ... before the large request is.
    big.setblocking(False)
    with pytest.raises(BlockingIOError):
        big.recv(1)
    big.setblocking(True)
    [(status, error)] = answers(big, 1)
    assert status == 400
    assert error == {"__type": "com.amazon.coral.validate#ValidationException",
                     "message": TOO_BIG}
    assert json.loads(post(server.url, "GetItem", {
        "TableName": "big", "Key": {"id": {"S": "a"}}}).body) == {}  # nothing was written


def test_large_requests_get_dynamodbs_answers_in_order(
    serve: Callable[..., Serve], opened: list[socket.socket]
) -> None:
    server = serve("--in-memory")
    assert post(server.url, "CreateTable", TABLE).status == 200
    fits = json.dumps({"TableName": "big", "Item": {
        "id": {"S": "fits"}, "pad": {"S": "x" * 300_000}}}).encode()
    over = json.dumps({"TableName": "big", "Item": {
        "id": {"S": "over"}, "pad": {"S": "x" * 500_000}}}).encode()
    missing = json.dumps({"TableName": "none", "Item": {
        "id": {"S": "a"}, "pad": {"S": "x" * 300_000}}}).encode()
    batch = json.dumps({"RequestItems": {"big": [
        {"PutRequest": {"Item": {"id": {"S": f"b{n}"}, "pad": {"S": "y" * 100_000}}}}
        for n in range(5)]}}).encode()
    get = json.dumps({"TableName": "big", "Key": {"id": {"S": "fits"}}}).encode()
    sock = connect(server, opened)
    sock.sendall(request("PutItem", fits)  # valid: written
                 + request("PutItem", b"[" * 300_000)  # not JSON
                 + request("PutItem", over)  # over 400 KB, whatever the table
                 + request("GetItem", get)  # small, pipelined behind large ones
                 + request("PutItem", missing)  # may be valid: the table decides
                 + request("BatchWriteItem", batch))
    (ok, _), (bad_json, serialization), (too_big, size), (got, item), (gone, missing_table), \
        (batched, unprocessed) = answers(sock, 6)
    assert ok == 200
    assert (bad_json, serialization["__type"]) == (
        400, "com.amazon.coral.service#SerializationException")
    assert (too_big, size) == (400, {"__type": "com.amazon.coral.validate#ValidationException",
                                     "message": TOO_BIG})
    assert got == 200
    assert item["Item"]["pad"] == {"S": "x" * 300_000}  # type: ignore[index]
    assert (gone, missing_table["__type"]) == (
        400, "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException")
    assert (batched, unprocessed) == (200, {"UnprocessedItems": {}})


def test_a_limited_keys_large_request_is_refused_for_access_first(
    serve: Callable[..., Serve], tmp_path: Path
) -> None:
    keys = tmp_path / "credentials.toml"
    keys.write_text('[keys.AKIDADMIN]\nsecret = "admin-secret"\n'
                    '[keys.AKIDBIG]\nsecret = "big-secret"\ntables = ["big"]\n')
    server = serve("--in-memory", "--credentials", str(keys))
    admin = server.client("AKIDADMIN", "admin-secret")
    for name in ("big", "other"):
        admin.create_table(TableName=name, **{k: v for k, v in TABLE.items()
                                              if k != "TableName"})
    limited = server.client("AKIDBIG", "big-secret")
    over = {"id": {"S": "a"}, "pad": {"S": "x" * 500_000}}  # judged off the loop
    for client, table, code in ((limited, "other", "AccessDeniedException"),
                                (limited, "big", "ValidationException"),
                                (admin, "other", "ValidationException")):
        with pytest.raises(ClientError) as error:
            client.put_item(TableName=table, Item=over)
        assert error.value.response["Error"]["Code"] == code, (table, error.value.response)
        if code == "ValidationException":
            assert error.value.response["Error"]["Message"] == TOO_BIG
