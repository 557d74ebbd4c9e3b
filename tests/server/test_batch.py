"""Group commit: one transaction per event-loop turn, answers after COMMIT."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
from serverkit import Pipe, StubServer, post, request_bytes

pytest_plugins = ["server_fixtures"]


def test_requests_of_one_turn_share_one_batch(
    batch_stub: StubServer, pipe_factory: Callable[[str], Pipe]
) -> None:
    pipe = pipe_factory(batch_stub.url)
    pipe.send(b"".join(request_bytes("Echo", {"n": n}) for n in range(30)))
    for n in range(30):
        assert pipe.response().json == {"Echo": {"n": n}}
    sizes = [len(batch) for batch in batch_stub.engine.batches]
    assert sum(sizes) == 30
    assert max(sizes) > 1, f"no two requests shared a transaction: {sizes}"
    ran = [request["n"] for batch in batch_stub.engine.batches for _, request in batch]
    assert ran == list(range(30)), "operations ran out of arrival order"


def test_a_failed_commit_fails_every_request_of_its_batch(
    batch_stub: StubServer, pipe_factory: Callable[[str], Pipe]
) -> None:
    # Nothing is acknowledged before its batch commits: when the commit
    # fails, requests whose operations succeeded must not be told so.
    batch_stub.engine.fail_next_commit = True
    pipe = pipe_factory(batch_stub.url)
    pipe.send(b"".join(request_bytes("Echo", {"n": n}) for n in range(5)))
    answers = [pipe.response() for _ in range(5)]
    assert answers[0].status == 500
    assert answers[0].json == {
        "__type": "com.amazonaws.dynamodb.v20120810#InternalServerError",
        "message": "Internal server error",
    }
    committed = [request["n"] for batch in batch_stub.engine.batches for _, request in batch]
    for n, answer in enumerate(answers):
        assert answer.status == (200 if n in committed else 500)
    # and the server carries on
    pipe.send(request_bytes("Echo", {"n": 9}))
    assert pipe.response().json == {"Echo": {"n": 9}}


def test_a_bug_in_one_request_fails_only_that_request(
    batch_stub: StubServer, pipe_factory: Callable[[str], Pipe]
) -> None:
    pipe = pipe_factory(batch_stub.url)
    pipe.send(
        request_bytes("Echo", {"n": 1}) + request_bytes("Boom") + request_bytes("Echo", {"n": 2})
    )
    first, boom, second = (pipe.response() for _ in range(3))
    assert first.json == {"Echo": {"n": 1}}
    assert boom.status == 500
    assert boom.error_type == "com.amazonaws.dynamodb.v20120810#InternalServerError"
    assert second.json == {"Echo": {"n": 2}}


def test_requests_answered_without_the_engine_do_not_open_a_transaction(
    batch_stub: StubServer,
) -> None:
    post(batch_stub.url, "NoSuch")
    post(batch_stub.url, "Echo", b"not json")
    assert batch_stub.engine.batches == []


def test_concurrent_clients(batch_stub: StubServer) -> None:
    errors: list[BaseException] = []

    def client(worker: int) -> None:
        try:
            pipe = Pipe(batch_stub.url)
            try:
                for n in range(50):
                    pipe.send(request_bytes("Echo", {"w": worker, "n": n}))
                    assert pipe.response().json == {"Echo": {"w": worker, "n": n}}
            finally:
                pipe.close()
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=client, args=(w,)) for w in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not errors, errors
    assert sum(len(batch) for batch in batch_stub.engine.batches) == 16 * 50


@pytest.mark.parametrize("offload", [False, True], ids=["inline", "commit-thread"])
def test_shutdown_commits_and_closes_the_engine(
    stub_factory: Callable[..., StubServer], offload: bool
) -> None:
    server = stub_factory(offload=offload)
    assert post(server.url, "Echo").status == 200
    server.stop()
    assert server.engine.closed


def test_shutdown_waits_for_the_batch_in_flight(stub_factory: Callable[..., StubServer]) -> None:
    server = stub_factory(offload=True)
    server.engine.commit_delay = 0.5
    pipe = Pipe(server.url)
    try:
        pipe.send(request_bytes("Echo", {"n": 1}))
        deadline = time.monotonic() + 60
        while not server.server.batcher.inflight and time.monotonic() < deadline:
            time.sleep(0.01)
        assert server.server.batcher.inflight, "the batch never started"
        server.stop()
        assert pipe.response().json == {"Echo": {"n": 1}}
        assert server.engine.batches == [[("Echo", {"n": 1})]]
        assert server.engine.closed
    finally:
        pipe.close()


def test_with_a_slow_commit_the_next_batch_gathers_meanwhile(
    stub_factory: Callable[..., StubServer], pipe_factory: Callable[[str], Pipe]
) -> None:
    # While one batch's COMMIT (an fsync, say) runs on the worker thread, the
    # loop keeps reading: what arrives meanwhile commits as one next batch.
    server = stub_factory(offload=True)
    server.engine.commit_delay = 0.3
    pipes = [pipe_factory(server.url) for _ in range(6)]
    pipes[0].send(request_bytes("Echo", {"n": 0}))
    time.sleep(0.1)  # batch 1 is committing
    for n, pipe in enumerate(pipes[1:], 1):
        pipe.send(request_bytes("Echo", {"n": n}))
    for n, pipe in enumerate(pipes):
        assert pipe.response().json == {"Echo": {"n": n}}
    assert [len(batch) for batch in server.engine.batches] == [1, 5]
