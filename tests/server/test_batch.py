"""Group commit: one transaction per event-loop turn, answers after COMMIT."""

from __future__ import annotations

import threading
from collections.abc import Callable

from serverkit import Pipe, StubServer, post, request_bytes

pytest_plugins = ["server_fixtures"]


def test_requests_of_one_turn_share_one_batch(
    stub: StubServer, pipe_factory: Callable[[str], Pipe]
) -> None:
    pipe = pipe_factory(stub.url)
    pipe.send(b"".join(request_bytes("Echo", {"n": n}) for n in range(30)))
    for n in range(30):
        assert pipe.response().json == {"Echo": {"n": n}}
    sizes = [len(batch) for batch in stub.engine.batches]
    assert sum(sizes) == 30
    assert max(sizes) > 1, f"no two requests shared a transaction: {sizes}"
    ran = [request["n"] for batch in stub.engine.batches for _, request in batch]
    assert ran == list(range(30)), "operations ran out of arrival order"


def test_a_failed_commit_fails_every_request_of_its_batch(
    stub: StubServer, pipe_factory: Callable[[str], Pipe]
) -> None:
    # Nothing is acknowledged before its batch commits: when the commit
    # fails, requests whose operations succeeded must not be told so.
    stub.engine.fail_next_commit = True
    pipe = pipe_factory(stub.url)
    pipe.send(b"".join(request_bytes("Echo", {"n": n}) for n in range(5)))
    answers = [pipe.response() for _ in range(5)]
    assert answers[0].status == 500
    assert answers[0].json == {"__type": "com.amazonaws.dynamodb.v20120810#InternalServerError"}
    committed = [request["n"] for batch in stub.engine.batches for _, request in batch]
    for n, answer in enumerate(answers):
        assert answer.status == (200 if n in committed else 500)
    # and the server carries on
    pipe.send(request_bytes("Echo", {"n": 9}))
    assert pipe.response().json == {"Echo": {"n": 9}}


def test_a_bug_in_one_request_fails_only_that_request(
    stub: StubServer, pipe_factory: Callable[[str], Pipe]
) -> None:
    pipe = pipe_factory(stub.url)
    pipe.send(
        request_bytes("Echo", {"n": 1}) + request_bytes("Boom") + request_bytes("Echo", {"n": 2})
    )
    first, boom, second = (pipe.response() for _ in range(3))
    assert first.json == {"Echo": {"n": 1}}
    assert boom.status == 500
    assert boom.error_type == "com.amazonaws.dynamodb.v20120810#InternalServerError"
    assert second.json == {"Echo": {"n": 2}}


def test_requests_answered_without_the_engine_do_not_open_a_transaction(
    stub: StubServer,
) -> None:
    post(stub.url, "NoSuch")
    post(stub.url, "Echo", b"not json")
    assert stub.engine.batches == []


def test_concurrent_clients(stub: StubServer) -> None:
    errors: list[BaseException] = []

    def client(worker: int) -> None:
        try:
            pipe = Pipe(stub.url)
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
    assert sum(len(batch) for batch in stub.engine.batches) == 16 * 50


def test_shutdown_commits_and_closes_the_engine(stub_factory: Callable[..., StubServer]) -> None:
    server = stub_factory()
    assert post(server.url, "Echo").status == 200
    server.stop()
    assert server.engine.closed
