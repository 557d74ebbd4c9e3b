"""Request bodies a stranger sends: refused from the head when the head
condemns them, held within one server-wide budget (``--max-body-memory``),
and their memory handed back once they end. Through a real ``tallydb serve``;
memory is the server process's RSS, read from /proc, with generous bounds.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from serverkit import TIMEOUT, Pipe, Serve, post

from tallydb.server.bodies import LARGE_SHARE

pytest_plugins = ["server_fixtures"]

MB = 1 << 20
DECLARED = 16_000_000  # a 16 MB PutItem's Content-Length
BUDGET = 3 * DECLARED  # (large bodies may fill LARGE_SHARE of it: two of them)
SENT = 15_000_000  # of which the client sends this much, then waits
SLACK = 40 * MB  # the allocator's and the interpreter's own, on top of the bodies


def rss(server: Serve) -> int:
    assert server.proc is not None
    for line in Path(f"/proc/{server.proc.pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def head(length: int, target: str = "PutItem", extra: str = "") -> bytes:
    return (f"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-amz-json-1.0\r\n"
            f"X-Amz-Target: DynamoDB_20120810.{target}\r\nContent-Length: {length}\r\n"
            f"{extra}\r\n").encode()


def body_start(size: int) -> bytes:
    """The first ``size`` bytes of a PutItem whose one string fills the rest."""
    start = b'{"TableName": "big", "Item": {"id": {"S": "a"}, "pad": {"S": "'
    return start + b"x" * (size - len(start))


@contextmanager
def connections() -> Iterator[list[socket.socket]]:
    opened: list[socket.socket] = []
    try:
        yield opened
    finally:
        for sock in opened:
            sock.close()


def connect(server: Serve) -> socket.socket:
    port = int(server.url.rsplit(":", 1)[1])
    return socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)


def answer(sock: socket.socket) -> tuple[int, dict[str, str]]:
    """Read one whole response off ``sock``: its status and JSON body."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"closed without an answer: {data!r}"
        data += chunk
    top, _, rest = data.partition(b"\r\n\r\n")
    lines = top.decode("latin-1").split("\r\n")
    length = next(int(line.split(":", 1)[1]) for line in lines
                  if line.lower().startswith("content-length:"))
    while len(rest) < length:
        chunk = sock.recv(65536)
        assert chunk
        rest += chunk
    return int(lines[0].split()[1]), json.loads(rest[:length]) if length else {}


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


@pytest.mark.parametrize(("count", "declared", "sent", "budget"), [
    (12, DECLARED, SENT, BUDGET),  # 16 MB PutItems, 15 MB of each sent
    (100, 1_000_000, 900_000, 32 * MB),  # a hundred, within a small budget
], ids=["16MB", "100"])
def test_stalled_bodies_hold_at_most_the_budget_and_their_memory_is_returned(
    serve: Callable[..., Serve], count: int, declared: int, sent: int, budget: int
) -> None:
    server = serve("--in-memory", "--max-body-memory", str(budget), "--body-timeout", "600",
                   "--idle-timeout", "600")
    assert post(server.url, "CreateTable", {
        "TableName": "big", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}).status == 200
    before = rss(server)
    admitted = int(budget * LARGE_SHARE) // declared
    with connections() as socks:
        for n in range(count):
            sock = connect(server)
            socks.append(sock)
            sock.sendall(head(declared))
            if n < admitted:  # within the budget: its body is read, and held
                sock.sendall(body_start(sent))
            else:  # past it: answered at once, before any of its body is sent
                status, error = answer(sock)
                assert status == 503
                assert error["__type"] == "com.amazon.coral.availability#ThrottlingException"
                assert "--max-body-memory" in error["message"]
        wait_for(lambda: rss(server) > before + admitted * sent // 2,
                 "the admitted bodies never arrived")
        held = rss(server)
        assert held < before + budget + SLACK, (before, held)
        # everyone else is served: small bodies have the rest of the budget
        assert post(server.url, "ListTables", {}).status == 200
    # the stalled clients leave: what their bodies took goes back to the OS
    wait_for(lambda: rss(server) < before + SLACK // 2,
             f"RSS stayed at {rss(server)} after the bodies ended ({before} before)")
    # and the budget is whole again: a body as large as it allows is read
    big = body_start(declared - 3) + b'"}}}'
    assert post(server.url, "PutItem", big).status == 400  # (over 400 KB: DynamoDB's refusal)


def test_a_chunked_body_is_charged_as_it_arrives(serve: Callable[..., Serve]) -> None:
    server = serve("--in-memory", "--max-body-memory", str(16 * MB), "--body-timeout", "600")
    with connections() as socks:
        holder = connect(server)
        socks.append(holder)
        holder.sendall(head(10 * MB) + body_start(MB))  # holds 10 MB of the 16
        chunked = connect(server)
        socks.append(chunked)
        chunked.sendall(head(0).replace(b"Content-Length: 0", b"Transfer-Encoding: chunked"))
        try:
            for _ in range(8):
                chunked.sendall(b"%x\r\n%s\r\n" % (MB, b"x" * MB))
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused while sending: the answer is already here
        status, error = answer(chunked)
        assert status == 503
        assert "--max-body-memory" in error["message"]


@pytest.fixture
def keys(tmp_path: Path) -> Path:
    path = tmp_path / "keys.toml"
    path.write_text('[keys.AKIDWRITER]\nsecret = "writer-secret"\n')
    return path


SIGNED_BY = ("Authorization: AWS4-HMAC-SHA256 Credential={key}/{day}/us-east-1/dynamodb/"
             "aws4_request, SignedHeaders=host;x-amz-date, Signature=00\r\nX-Amz-Date: {date}\r\n")


@pytest.mark.parametrize(("why", "target", "extra", "status", "error_type", "words"), [
    ("no signature", "PutItem", "", 400, "MissingAuthenticationTokenException",
     "Request is missing Authentication Token"),
    ("an unknown key", "PutItem", SIGNED_BY.format(
        key="AKIDNOBODY", day=time.strftime("%Y%m%d", time.gmtime()),
        date=time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())),
     400, "UnrecognizedClientException", "The security token included in the request is invalid"),
    ("a stale date", "PutItem", SIGNED_BY.format(
        key="AKIDWRITER", day="20200101", date="20200101T000000Z"),
     400, "InvalidSignatureException", "Signature expired"),
    ("an unknown target", "PutThing", "", 400, "UnknownOperationException", ""),
])
def test_a_head_that_condemns_the_request_is_answered_before_its_body(
    serve: Callable[..., Serve], keys: Path, why: str, target: str, extra: str, status: int,
    error_type: str, words: str
) -> None:
    server = serve("--in-memory", "--credentials", str(keys), "--max-body-memory", str(16 * MB),
                   "--body-timeout", "600")
    with connections() as socks:
        for _ in range(40):  # 40 x 16 MB declared: none of it is read, none of the budget held
            sock = connect(server)
            socks.append(sock)
            sock.sendall(head(DECLARED, target, extra))
            got, error = answer(sock)
            assert got == status, (why, error)
            assert error["__type"].endswith("#" + error_type), why
            assert words in error.get("message", ""), (why, error)
        assert rss(server) < 200 * MB


def test_a_short_body_is_still_judged_whole_in_dynamodbs_order(
    cli_server: Serve, pipe_factory: Callable[[str], Pipe]
) -> None:
    # under 64 KB the body is read first: not JSON comes before an unknown target
    pipe = pipe_factory(cli_server.url)
    body = b"not json" * 1000
    pipe.send(head(len(body), "PutThing") + body)
    answered = pipe.response()
    assert answered.status == 400
    assert answered.error_type == "com.amazon.coral.service#SerializationException"
