"""Slow and stuck clients hold bounded memory, for a bounded time."""

from __future__ import annotations

import contextlib
import http.client
import socket
import threading
import time
from collections.abc import Callable

import pytest
from serverkit import Pipe, StubServer, post, request_bytes

from tallydb.server.limits import ConnectionLimits

pytest_plugins = ["server_fixtures"]

QUICK = ConnectionLimits(header_timeout=0.5, body_timeout=0.5, idle_timeout=0.8,
                         max_connections=8)


@pytest.fixture
def quick(stub_factory: Callable[..., StubServer]) -> StubServer:
    return stub_factory(limits=QUICK)


def test_a_head_that_does_not_arrive_in_time_gets_408(
    quick: StubServer, pipe_factory: Callable[[str], Pipe]
) -> None:
    started = time.monotonic()  # before the connection: the server's clock starts after
    pipe = pipe_factory(quick.url)
    pipe.send(b"POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: DynamoDB_20120810.Echo\r\n")
    assert pipe.response().status == 408
    assert pipe.closed_by_server()
    # Not before its time, give or take the server's clock, which the
    # watchdog moves on once a tick (a slower machine only makes this
    # longer); how long after is not asserted: the answer is waited for.
    assert time.monotonic() - started >= QUICK.header_timeout - QUICK.tick()


def test_a_trickled_head_still_times_out(
    quick: StubServer, pipe_factory: Callable[[str], Pipe]
) -> None:
    # one byte every 0.1 s keeps a socket busy but never finishes a request
    pipe = pipe_factory(quick.url)
    head = request_bytes("Echo", {})
    deadline = time.monotonic() + 3
    try:
        for byte in head[:-3]:
            pipe.send(bytes([byte]))
            time.sleep(0.1)
            if time.monotonic() > deadline:
                break
    except (BrokenPipeError, ConnectionResetError):
        pass
    assert pipe.response().status == 408


def test_a_body_one_byte_short_times_out_and_frees_the_connection(
    quick: StubServer, pipe_factory: Callable[[str], Pipe]
) -> None:
    pipe = pipe_factory(quick.url)
    request = request_bytes("Echo", {"pad": "x" * 100_000})
    pipe.send(request[:-1])
    assert pipe.response().status == 408
    assert pipe.closed_by_server()
    assert quick.engine.batches == []  # nothing ran
    assert post(quick.url, "Echo", {}).status == 200


def test_an_idle_connection_is_closed(
    quick: StubServer, pipe_factory: Callable[[str], Pipe]
) -> None:
    pipe = pipe_factory(quick.url)
    started = time.monotonic()  # before the request: the server's idle clock starts after
    pipe.send(request_bytes("Echo", {}))
    assert pipe.response().status == 200
    assert pipe.closed_by_server()
    assert time.monotonic() - started >= QUICK.idle_timeout - QUICK.tick()  # not before
    # A connection in use is not idle: one used every 0.1 s stays open for
    # twice the idle timeout. A starved machine can stretch a pause between
    # requests past the timeout (then the server may close it, and that
    # attempt proves nothing), so up to ten attempts; one must stay open.
    outcomes = []
    for _ in range(10):
        outcome = _used_every_tenth_of_a_second(quick.url, pipe_factory)
        outcomes.append(outcome)
        if outcome == "open":
            break
    assert outcomes[-1] == "open", outcomes


def _used_every_tenth_of_a_second(url: str, pipe_factory: Callable[[str], Pipe]) -> str:
    """"open" if a connection answered a request every 0.1 s for twice the
    idle timeout; "closed" if the server closed it though no pause reached
    half the timeout; "starved" if a pause did."""
    busy = pipe_factory(url)
    started = answered = time.monotonic()
    while answered - started < 2 * QUICK.idle_timeout:
        time.sleep(0.1)
        if time.monotonic() - answered >= QUICK.idle_timeout / 2:
            return "starved"
        try:
            busy.send(request_bytes("Echo", {}))
            status = busy.response().status
        except (OSError, http.client.HTTPException):
            return "closed"
        assert status == 200
        answered = time.monotonic()
    return "open"


def test_connections_past_the_cap_get_503_and_a_close(
    quick: StubServer, pipe_factory: Callable[[str], Pipe]
) -> None:
    held = [pipe_factory(quick.url) for _ in range(QUICK.max_connections)]
    for pipe in held:  # each one accepted and served
        pipe.send(request_bytes("Echo", {}))
        assert pipe.response().status == 200
    extra = pipe_factory(quick.url)
    answer = extra.response()
    assert answer.status == 503
    assert answer.error_type == "com.amazon.coral.availability#ThrottlingException"
    assert answer.json["message"] == (
        "Too many open connections: the server holds 8 (--max-connections)"
    )
    held[0].close()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # the server sees the close in its own time
        if post(quick.url, "Echo", {}).status == 200:
            break
        time.sleep(0.05)
    else:
        pytest.fail("a freed slot was not reused")


def test_a_client_that_does_not_read_stops_being_read(stub: StubServer) -> None:
    # 1,500 pipelined requests for 100 KB answers, none read: the server
    # answers a few and waits, rather than holding 150 MB for the client.
    requests = request_bytes("Big", {}) * 1500
    pipe = Pipe(stub.url)
    pipe.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
    sender = threading.Thread(target=pipe.sock.sendall, args=(requests,), daemon=True)
    sender.start()
    try:
        time.sleep(1.5)
        answered = sum(len(batch) for batch in stub.engine.batches)
        # at most: 4 MB waiting in the server (max_output), what the kernel's
        # socket buffers hold (up to ~4 MB on loopback), 16 in progress and
        # one 4 KB slice of requests: about 130 of 100 KB
        assert 0 < answered < 150, answered
        for _ in range(1500):  # reading lets it finish: every answer comes, in order
            answer = pipe.response()
            assert (answer.status, len(answer.body)) == (200, 100_000 + len('{"pad":""}'))
        sender.join(10)
    finally:
        pipe.close()
    assert sum(len(batch) for batch in stub.engine.batches) == 1500


def test_bodies_past_the_body_budget_get_503_before_they_are_read(
    stub_factory: Callable[..., StubServer], pipe_factory: Callable[[str], Pipe]
) -> None:
    stub = stub_factory(limits=ConnectionLimits(max_body_memory=300_000))
    body = b'{"pad": "' + b"x" * 199_989 + b'"}'
    assert len(body) == 200_000
    holder = pipe_factory(stub.url)
    whole = request_bytes("Echo", body)
    holder.send(whole[:-1000])  # 200 KB of the budget held, the body unfinished
    refused = pipe_factory(stub.url)
    refused.send(request_bytes("Echo", body)[: len(whole) - len(body)])  # the head alone
    answer = refused.response()
    assert answer.status == 503
    assert answer.error_type == "com.amazon.coral.availability#ThrottlingException"
    assert answer.json["message"] == (
        "Too many request bytes arriving at once: the server holds at most 300000 bytes of "
        "unfinished request bodies (--max-body-memory); retry")
    assert refused.closed_by_server()
    holder.send(whole[-1000:])  # finished: its share is given back
    assert holder.response().status == 200
    assert post(stub.url, "Echo", body).status == 200
    assert [name for batch in stub.engine.batches for name, _ in batch] == ["Echo", "Echo"]


def test_a_large_body_with_an_unknown_target_is_answered_from_its_head(
    stub: StubServer, pipe_factory: Callable[[str], Pipe]
) -> None:
    pipe = pipe_factory(stub.url)
    pipe.send(request_bytes("Nothing", b"x" * 1_000_000)[:300])  # the head, and a little
    answer = pipe.response()
    assert answer.status == 400
    assert answer.error_type == "com.amazon.coral.service#UnknownOperationException"
    assert pipe.closed_by_server()
    assert stub.engine.batches == []


def test_a_client_that_never_reads_is_closed_after_the_idle_timeout(
    stub_factory: Callable[..., StubServer], pipe_factory: Callable[[str], Pipe]
) -> None:
    # answers waiting that never drain, even with a request half read when
    # the server stopped reading: closed (reset) after the idle timeout,
    # however long a request may take to arrive
    quick = stub_factory(limits=ConnectionLimits(
        header_timeout=600, body_timeout=600, idle_timeout=0.8, max_connections=8))
    held = [pipe_factory(quick.url) for _ in range(8)]
    for pipe in held:
        pipe.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        pipe.sock.setblocking(False)
        with contextlib.suppress(BlockingIOError):
            pipe.sock.send(request_bytes("Big", {}) * 300)
    deadline = time.monotonic() + 60
    while True:
        try:
            if post(quick.url, "Echo", {}).status == 200:
                break
        except OSError:
            pass  # (answered 503 and closed while sending)
        assert time.monotonic() < deadline, "the slots of clients that never read stayed taken"
        time.sleep(0.1)


def test_a_late_tick_never_brings_a_deadline_early() -> None:
    """A mark holds the coarse clock as it was before the watchdog next
    moved it; when that tick runs late (a busy machine), the phase began no
    earlier than the late tick, and its deadline counts from there."""
    from tallydb.server.limits import Watchdog

    watchdog = Watchdog(server=None)  # type: ignore[arg-type]  # began() reads only the clocks
    watchdog.recent = [10.0, 10.125, 10.9]  # the tick after 10.125 ran 0.65 s late
    assert watchdog.began(10.125) == 10.9  # a mark taken before the late tick
    assert watchdog.began(10.0) == 10.125
    assert watchdog.began(10.9) == 10.9  # the newest: it began by now at the latest
    assert watchdog.began(9.0) == 10.0  # older than every kept value: counts from the oldest
