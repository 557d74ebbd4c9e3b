"""``mock_dynamodb()``: every boto3 DynamoDB client answered in-process.

::

    from tallydb.testing import mock_dynamodb

    @mock_dynamodb()
    def test_signup():
        ddb = boto3.client("dynamodb", region_name="us-east-1")   # no endpoint
        ddb.create_table(...)                                     # a fresh, empty engine
        ...

    def test_other():
        with mock_dynamodb() as mock:       # as a context manager
            my_app.run()                    # whatever clients it makes
            mock.engine                     # the engine behind them

Under the mock, a DynamoDB request from any botocore client (boto3 clients
and resources, made before or inside the block, from any session) whose
endpoint is AWS's own (``*.amazonaws.com``: no ``endpoint_url`` given) is
answered by a fresh in-memory tallydb engine, the same engine ``tallydb
serve`` runs: no server, no port, no network. Clients with an
``endpoint_url`` of their own are left alone. Each entry into the mock
starts from an empty engine; nested mocks answer from the innermost.
Items whose TTL has passed are swept as ``tallydb serve`` sweeps them.

As moto's ``mock_aws`` does, the mock sets fake credentials in the
environment (``AWS_ACCESS_KEY_ID``, ...) so that nothing can reach a real
account, and ``AWS_DEFAULT_REGION`` if none is set.

How: botocore hands every serialized request to
``botocore.endpoint.Endpoint.make_request``, which prepares an HTTP request,
sends it through ``Endpoint._send`` and parses the answer. While a mock is
active, DynamoDB's requests to AWS's endpoints are answered by
:class:`tallydb.toolkit.inprocess.InProcessTransport` in ``make_request``
itself: a success is parsed by botocore's own parser for the operation, as
it would parse DynamoDB's answer, without the HTTP request being prepared
(nothing leaves the process); an error answer goes the whole way
(``_send`` hands over the answer already made, then retries run through
the engine again), so botocore's retry rules, its error parsing and every
retry event stay exactly as against AWS. Requests are still built and
validated by botocore; SigV4 signing (``botocore.signers.RequestSigner.sign``)
is skipped for the requests the mock answers, since nothing checks a
signature (it was a third of each call's cost). Everything else goes to the
network as before.

Only the synchronous botocore stack is covered: aiobotocore's clients send
through their own endpoint class and are not answered by the mock.
"""

from __future__ import annotations

import functools
import inspect
import os
import threading
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

from botocore.endpoint import Endpoint
from botocore.signers import RequestSigner

from tallydb.engine.api import TARGETS, TTL_CHANGE_INTERVAL
from tallydb.engine.sweeper import Sweeper
from tallydb.toolkit.inprocess import InProcessTransport

if TYPE_CHECKING:
    from tallydb.engine.api import Engine

__all__ = ["MockDynamoDB", "mock_dynamodb"]

F = TypeVar("F", bound=Callable[..., Any])

#: What the mock puts in the environment while it is active.
FAKE_ENVIRONMENT = {
    "AWS_ACCESS_KEY_ID": "tallydb-mock",
    "AWS_SECRET_ACCESS_KEY": "tallydb-mock",
    "AWS_SESSION_TOKEN": "tallydb-mock",
    "AWS_SECURITY_TOKEN": "tallydb-mock",
}
DEFAULT_REGION = "us-east-1"
AWS_DOMAINS = (".amazonaws.com", ".amazonaws.com.cn", ".api.aws")

_lock = threading.Lock()
#: Active mocks, innermost last.
_active: list[MockDynamoDB] = []
_original_send: Callable[[Endpoint, Any], Any] | None = None
_original_sign: Callable[..., Any] | None = None
_original_make_request: Callable[[Endpoint, Any, Any], Any] | None = None
#: An error answer ``_make_request`` made, for the ``_send`` of the same
#: request (its first attempt) on this thread.
_made = threading.local()


def _is_aws(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    return host.endswith(AWS_DOMAINS)


def _region_of(url: str) -> str:
    """The region of an AWS endpoint (``dynamodb.REGION.amazonaws.com``,
    ``streams.dynamodb.REGION.amazonaws.com``): the requests' region."""
    parts = (urlsplit(url).hostname or "").split(".")
    at = parts.index("amazonaws") if "amazonaws" in parts else 0
    return parts[at - 1] if at >= 2 else DEFAULT_REGION


#: The X-Amz-Target prefixes the mock answers: DynamoDB's and DynamoDB Streams'.
_SERVICES = tuple(sorted({target.rpartition(".")[0] + "." for target in TARGETS}))


def _target(request: Any) -> str:
    value: Any = request.headers.get("X-Amz-Target", "")
    return value.decode() if isinstance(value, bytes) else str(value)


def _send(endpoint: Endpoint, request: Any) -> Any:
    """``Endpoint._send`` while a mock is active."""
    mock = _active[-1] if _active else None
    if mock is not None and _target(request).startswith(_SERVICES) and _is_aws(request.url):
        made = getattr(_made, "answer", None)
        if made is not None:
            _made.answer = None
            return mock.transport.response(request.url, *made)
        return mock.transport(request, region=_region_of(request.url))
    assert _original_send is not None
    return _original_send(endpoint, request)


def _make_request(endpoint: Endpoint, operation_model: Any, request_dict: dict[str, Any]
                  ) -> Any:
    """``Endpoint.make_request`` while a mock is active: a DynamoDB request
    answered with a success is parsed at once (see the module's docstring)."""
    mock = _active[-1] if _active else None
    url = request_dict["url"]
    if mock is not None and _is_aws(url):
        target = request_dict["headers"].get("X-Amz-Target", "")
        if isinstance(target, bytes):
            target = target.decode()
        if target.startswith(_SERVICES):
            status, body = mock.transport.respond(target, request_dict["body"], _region_of(url))
            if status == 200:
                return _parsed(endpoint, operation_model, request_dict, url, body)
            _made.answer = (status, body)
            try:
                return _original(endpoint, operation_model, request_dict)
            finally:
                _made.answer = None
    return _original(endpoint, operation_model, request_dict)


def _original(endpoint: Endpoint, operation_model: Any, request_dict: dict[str, Any]) -> Any:
    assert _original_make_request is not None
    return _original_make_request(endpoint, operation_model, request_dict)


def _parsed(endpoint: Endpoint, operation_model: Any, request_dict: dict[str, Any], url: str,
            body: bytes) -> tuple[Any, dict[str, Any]]:
    """(HTTP response, parsed answer) of a success, as ``make_request``
    returns them for the first attempt."""
    context = request_dict["context"]
    retries = context.setdefault("retries", {})
    retries["attempt"] = 1
    if "invocation-id" not in retries:
        retries["invocation-id"] = str(uuid.uuid4())
    http_response = InProcessTransport.response(url, 200, body)
    parser = endpoint._response_parser_factory.create_parser(
        operation_model.service_model.resolved_protocol)
    parsed = parser.parse(
        {"headers": http_response.headers, "status_code": 200, "body": body,
         "context": context},
        operation_model.output_shape)
    if "ResponseMetadata" in parsed:
        parsed["ResponseMetadata"]["RetryAttempts"] = 0
    return http_response, parsed


def _sign(
    signer: RequestSigner, operation_name: str, request: Any, *args: Any, **kwargs: Any
) -> Any:
    """``RequestSigner.sign`` while a mock is active: no signature on what
    the mock answers."""
    if _active and _target(request).startswith(_SERVICES) and _is_aws(request.url):
        return None
    assert _original_sign is not None
    return _original_sign(signer, operation_name, request, *args, **kwargs)


class MockDynamoDB:
    """One mock (see :mod:`tallydb.testing.mock`): a context manager (``with``), a
    decorator (``@``) of functions, coroutine functions and test classes,
    and what the ``tallydb_mock`` pytest fixture yields. ``engine`` is the
    engine answering while it is active."""

    def __init__(self, *, ttl_change_interval: float = TTL_CHANGE_INTERVAL) -> None:
        self._engine: Engine | None = None
        self._ttl_change_interval = ttl_change_interval
        self.transport: InProcessTransport
        self._saved_environment: dict[str, str | None] = {}

    @property
    def engine(self) -> Engine:
        if self._engine is None:
            raise RuntimeError("the mock is not active")
        return self._engine

    def start(self) -> MockDynamoDB:
        """Activate, with a fresh empty engine."""
        global _original_send, _original_sign, _original_make_request
        from tallydb.engine.api import Engine
        from tallydb.engine.storage import Store

        if self._engine is not None:
            raise RuntimeError("this mock is already active")
        self._engine = Engine(Store(None), ttl_change_interval=self._ttl_change_interval)
        self.transport = InProcessTransport(self._engine)
        self._sweeper = Sweeper(self._engine).start()
        environment = dict(FAKE_ENVIRONMENT)
        if not os.environ.get("AWS_DEFAULT_REGION") and not os.environ.get("AWS_REGION"):
            environment["AWS_DEFAULT_REGION"] = DEFAULT_REGION
        with _lock:
            self._saved_environment = {name: os.environ.get(name) for name in environment}
            os.environ.update(environment)
            if not _active:
                _original_send, _original_sign = Endpoint._send, RequestSigner.sign
                _original_make_request = Endpoint.make_request
                Endpoint._send = _send
                Endpoint.make_request = _make_request
                RequestSigner.sign = _sign
            _active.append(self)
        return self

    def stop(self) -> None:
        """Deactivate and drop the engine (and everything in it)."""
        with _lock:
            if self not in _active:
                return
            _active.remove(self)
            if not _active and _original_send is not None and _original_sign is not None:
                Endpoint._send = _original_send
                if _original_make_request is not None:
                    Endpoint.make_request = _original_make_request
                RequestSigner.sign = _original_sign
            for name, value in self._saved_environment.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
        engine, self._engine = self._engine, None
        if engine is not None:
            self._sweeper.stop()
            engine.close()

    def __enter__(self) -> MockDynamoDB:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __call__(self, target: F) -> F:
        """Decorate a function (each call runs under a fresh mock), a
        coroutine function, or a class (each of its ``test*`` methods)."""
        if isinstance(target, type):
            for name, member in list(vars(target).items()):
                if name.startswith("test") and callable(member):
                    setattr(target, name, mock_dynamodb()(member))
            return target
        if inspect.iscoroutinefunction(target):

            @functools.wraps(target)
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                with mock_dynamodb():
                    return await target(*args, **kwargs)

            return run_async  # type: ignore[return-value]

        @functools.wraps(target)
        def run(*args: Any, **kwargs: Any) -> Any:
            with mock_dynamodb():
                return target(*args, **kwargs)

        return run  # type: ignore[return-value]


def mock_dynamodb(*, ttl_change_interval: float = TTL_CHANGE_INTERVAL) -> MockDynamoDB:
    """A mock of DynamoDB for tests: ``with mock_dynamodb():``,
    ``@mock_dynamodb()``, or the ``tallydb_mock`` fixture. See :mod:`tallydb.testing.mock`.

    ``ttl_change_interval``: seconds before a table's TTL may change again
    (DynamoDB's hour by default; ``0`` for a test that turns TTL on and off)."""
    return MockDynamoDB(ttl_change_interval=ttl_change_interval)
