"""Fixtures for the server's tests, as a pytest plugin.

Each test module says ``pytest_plugins = ["server_fixtures"]``. Not a
conftest.py: other test modules do ``from conftest import ...``, and a second
conftest.py would take the root one's place in ``sys.modules``.

``stub``/``stub_factory``  the server code in-process in front of a StubEngine;
                           ``batch_stub`` the same, inline and --commit-thread.
``serve``                  factory for ``python -m tallydb serve`` subprocesses
                           (killed at teardown); ``cli_server`` one shared
                           ``--in-memory`` instance per module.
``pipe_factory``           raw connections, closed at teardown.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from serverkit import Pipe, Serve, StubServer

from tallydb.server.limits import ConnectionLimits


@pytest.fixture
def stub_factory() -> Iterator[Callable[..., StubServer]]:
    servers: list[StubServer] = []

    def make(
        credentials: dict[str, str] | None = None,
        offload: bool = False,
        limits: ConnectionLimits | None = None,
    ) -> StubServer:
        server = StubServer(credentials, offload, limits)
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.stop()


@pytest.fixture
def stub(stub_factory: Callable[..., StubServer]) -> StubServer:
    return stub_factory()


@pytest.fixture(params=[False, True], ids=["inline", "commit-thread"])
def batch_stub(
    request: pytest.FixtureRequest, stub_factory: Callable[..., StubServer]
) -> StubServer:
    """The stub, committing on the loop and on a worker thread (--commit-thread)."""
    return stub_factory(offload=request.param)


@pytest.fixture
def serve() -> Iterator[Callable[..., Serve]]:
    started: list[Serve] = []

    def make(*args: str) -> Serve:
        server = Serve(*args)
        started.append(server)
        return server.start()

    yield make
    for server in started:
        server.kill()


@pytest.fixture(scope="module")
def cli_server() -> Iterator[Serve]:
    server = Serve("--in-memory").start()
    yield server
    server.kill()


@pytest.fixture
def pipe_factory() -> Iterator[Callable[[str], Pipe]]:
    pipes: list[Pipe] = []

    def make(url: str) -> Pipe:
        pipe = Pipe(url)
        pipes.append(pipe)
        return pipe

    yield make
    for pipe in pipes:
        pipe.close()
