"""How the toolkit reaches a store: standard DynamoDB requests, in boto3's shapes.

Every toolkit operation is written once, as a *plan*: a generator that yields
the DynamoDB requests it needs (:class:`Call`) and the pauses it wants
between retries (:class:`Sleep`), receives each response, and returns the
operation's result. A plan does no I/O itself, so the same plan runs

* synchronously: :meth:`Transport.run` sends each request as it comes, and
* asynchronously: :meth:`Transport.arun` sends it from a thread pool and
  sleeps with ``asyncio.sleep``,

which is how :mod:`tallydb.aio` has exactly the behaviour of the blocking
API (:mod:`tallydb.toolkit.driver` makes both APIs' methods from one plan).
A *stream* plan (a query's pages, a table's changes) also yields
:class:`Emit` steps, whose values :meth:`Transport.iterate` and
:meth:`Transport.aiterate` hand out as they come.

A DynamoDB error is thrown *into* the plan (as a :mod:`tallydb.engine.errors`
exception, see :mod:`tallydb.toolkit.exceptions`) so that a plan can turn, say, a
failed condition into a :class:`~tallydb.toolkit.exceptions.CounterLimitError`.

Two transports send the requests:

* :class:`ClientTransport`: any ``boto3.client("dynamodb")``, one pointed at
  ``tallydb serve`` or the user's own for Amazon DynamoDB;
* :class:`~tallydb.toolkit.embedded.EngineTransport`: the embedded engine,
  called directly (the one module of the toolkit that imports the engine).

A request the toolkit keeps and sends again and again (a counter's add)
goes by :meth:`Transport.call_wire` with its JSON shape made once: the
embedded engine is handed that as it is, with no copy either way.

A request that is not idempotent (``Call(..., once=True)``: a plain counter
add) goes out exactly once. botocore re-sends a request whose connection
dropped or timed out before the answer (its retry handler counts a
``ConnectionClosedError`` or ``ReadTimeoutError`` as transient, and a
client's ``Config(retries={"max_attempts": 1})`` means one *retry*, two
sends: ``botocore/args.py``, ``_compute_retry_max_attempts``). For such a
request :class:`ClientTransport` stops that re-send and raises
:class:`~tallydb.toolkit.exceptions.OutcomeUnknown` instead; a request that never
left (connection refused) or was answered "throttled" is retried as usual.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections.abc import AsyncIterator, Callable, Generator, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    ConnectTimeoutError,
    EndpointConnectionError,
    ParamValidationError,
)

from tallydb.engine.errors import (
    DynamoDBError,
    ResourceNotFoundException,
    ValidationException,
)
from tallydb.toolkit.exceptions import (
    OutcomeUnknown,
    TableNotFoundError,
    TransportError,
    error_from_response,
    tables_of,
)

__all__ = ["Call", "ClientTransport", "Emit", "Plan", "Sleep", "Stream", "Transport"]

T = TypeVar("T")


@dataclass(frozen=True)
class Call:
    """One DynamoDB request: ``Call("UpdateItem", {"TableName": ..., ...})``.

    ``wire``, when given, is the same request in DynamoDB's JSON shape
    (``convert.json_shape(request)``), made once by a plan that sends it
    again and again and that nobody ever changes: the step is sent with
    :meth:`Transport.call_wire`, and its response is to be read, not kept.

    ``once=True`` marks a request that must not be sent twice (it is not
    idempotent): if its outcome is unknown, :class:`OutcomeUnknown` is
    raised rather than the request re-sent.

    ``streams=True`` sends it to the store's DynamoDB Streams API (GetRecords
    and the like), on ``client`` when one is given (a ``dynamodbstreams``
    client of the caller's), else on the transport's own.
    """

    operation: str
    request: dict[str, Any] = field(default_factory=dict)
    wire: dict[str, Any] | None = None
    once: bool = False
    streams: bool = False
    client: Any = None


@dataclass(frozen=True)
class Sleep:
    """A pause (between retries), in seconds."""

    seconds: float


@dataclass(frozen=True)
class Emit(Generic[T]):
    """Values a stream plan hands out (a page of items, a batch of changes)."""

    values: Sequence[T]


Step = Call | Sleep
#: A toolkit operation: yields steps, is sent each Call's response, returns T.
Plan = Generator[Step, Any, T]
#: A toolkit operation whose result comes in parts: yields steps and Emits.
Stream = Generator[Step | Emit[T], Any, None]

_METHODS: dict[str, str] = {}


def _method_name(operation: str) -> str:
    name = _METHODS.get(operation)
    if name is None:
        name = "".join("_" + c.lower() if c.isupper() else c for c in operation).lstrip("_")
        _METHODS[operation] = name
    return name


def _naming_tables(error: ResourceNotFoundException, step: Call) -> ResourceNotFoundException:
    """A missing table's error, saying which table when the endpoint's
    message does not (DynamoDB's and tallydb's name it; not every endpoint's)."""
    tables = tables_of(step.request)
    message = error.message or ""
    if not tables or isinstance(error, TableNotFoundError) or all(t in message for t in tables):
        return error
    named = TableNotFoundError(error.message, tables)
    named.response = getattr(error, "response", None)  # type: ignore[attr-defined]
    return named


def _not_dynamodb(client: Any, error: ClientError) -> TransportError | None:
    """A TransportError when the answer did not come from DynamoDB at all (an
    HTML page, a proxy's error): botocore found no DynamoDB error code in it."""
    code = str(error.response.get("Error", {}).get("Code", ""))
    metadata = error.response.get("ResponseMetadata", {})
    content_type = str(metadata.get("HTTPHeaders", {}).get("content-type", ""))
    if code and not code.isdigit():
        return None
    if "json" in content_type:
        return None
    return _foreign(client, metadata)


def _foreign(client: Any, metadata: dict[str, Any]) -> TransportError:
    content_type = metadata.get("HTTPHeaders", {}).get("content-type") or "no content type"
    return TransportError(
        f"{client.meta.endpoint_url} does not look like a DynamoDB endpoint: it answered "
        f"HTTP {metadata.get('HTTPStatusCode', '?')} with {content_type}, not DynamoDB's JSON"
    )


def client_call(client: Any, operation: str, request: dict[str, Any]) -> dict[str, Any]:
    """One request on a boto3 client; the response without ResponseMetadata,
    DynamoDB's errors as :mod:`tallydb.engine.errors` exceptions."""
    method = getattr(client, _method_name(operation))
    try:
        response: dict[str, Any] = method(**request)
    except ClientError as e:
        foreign = _not_dynamodb(client, e)
        if foreign is not None:
            raise foreign from e
        raise error_from_response(e.response) from None
    except ParamValidationError as e:
        raise ValidationException(str(e)) from None
    except BotoCoreError as e:
        raise TransportError(str(e)) from e
    metadata = response.pop("ResponseMetadata", None)
    if metadata is not None:
        content_type = metadata.get("HTTPHeaders", {}).get("content-type", "")
        if content_type and "json" not in content_type:
            raise _foreign(client, metadata)
    return response


class _Walk(Generic[T]):
    """A stream plan, step by step: ``for step in walk:``, then set
    ``walk.outcome`` to the step's reply and error (the error is thrown into
    the plan)."""

    def __init__(self, stream: Stream[T]) -> None:
        self.stream = stream
        self.outcome: tuple[Any, BaseException | None] = (None, None)

    def __iter__(self) -> Iterator[Step | Emit[T]]:
        stream = self.stream
        step = next(stream, None)
        while step is not None:
            self.outcome = (None, None)
            yield step
            reply, error = self.outcome
            try:
                step = stream.throw(error) if error is not None else stream.send(reply)
            except StopIteration:
                return


class Transport:
    """Runs plans: sends each request with :meth:`call`, blocking
    (:meth:`run`) or from a thread pool (:meth:`arun`).

    ``close`` releases what the transport owns (the embedded engine, the
    thread pool of the async driver); a client passed in by the user is the
    user's to close.
    """

    def __init__(
        self,
        *,
        on_close: Callable[[], None] | None = None,
        max_workers: int = 32,
    ) -> None:
        self._on_close = on_close
        self._max_workers = max_workers
        self._executor: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self.closed = False
        #: Tables the toolkit made sure of on this connection (a counter's
        #: companion table for idempotency records), so it asks once.
        self.ready_tables: set[str] = set()

    @property
    def client(self) -> Any:
        """A boto3 DynamoDB client on the same store."""
        raise NotImplementedError

    @property
    def endpoint(self) -> str:
        """Where requests go, for people to read."""
        raise NotImplementedError

    @property
    def region(self) -> str:
        """The region requests are sent to (the embedded engine's is
        ``us-east-1``, where an unsigned request runs)."""
        return "us-east-1"

    #: Whether :meth:`call_wire` answers in DynamoDB's JSON shape (the
    #: embedded engine), rather than boto3's.
    speaks_wire = False

    def streams_client(self) -> Any:
        """A ``dynamodbstreams`` client on the same store (made on first use)."""
        raise NotImplementedError

    # -- one request -------------------------------------------------------

    def call(self, operation: str, request: dict[str, Any]) -> dict[str, Any]:
        """Send one request (boto3's shapes); the response without botocore's
        ResponseMetadata.

        Raises the :mod:`tallydb.engine.errors` exception for a DynamoDB error,
        :class:`~tallydb.engine.errors.ValidationException` for a request botocore
        refuses to send, :class:`~tallydb.toolkit.exceptions.TransportError` when the
        endpoint cannot be reached.
        """
        raise NotImplementedError

    def call_wire(
        self, operation: str, request: dict[str, Any], wire: dict[str, Any]
    ) -> dict[str, Any]:
        """:meth:`call`, for a request the toolkit keeps and sends many times
        (a counter's add): ``wire`` is ``request`` in DynamoDB's JSON shape
        (:func:`~tallydb.toolkit.convert.json_shape`), and neither is ever changed,
        by the caller or by the transport.

        A transport that speaks that shape itself (the embedded engine)
        sends ``wire`` as it is, without a copy, and answers with its own
        response, also in that shape (Binary values as base64 text): the
        caller reads what it needs from it and neither keeps nor changes
        it. The others send ``request`` as :meth:`call` does. Errors are
        :meth:`call`'s.
        """
        return self.call(operation, request)

    def send(self, step: Call) -> dict[str, Any]:
        """Send one plan step: :meth:`call`, or :meth:`call_wire` when the
        step carries its wire shape, or to the Streams API."""
        if step.streams:
            return client_call(step.client or self.streams_client(), step.operation, step.request)
        if step.wire is None:
            return self.call(step.operation, step.request)
        return self.call_wire(step.operation, step.request, step.wire)

    def answer(self, step: Call) -> tuple[Any, BaseException | None]:
        """:meth:`send`, with a DynamoDB or transport error returned (to be
        thrown into the plan) rather than raised."""
        try:
            return self.send(step), None
        except ResourceNotFoundException as e:
            return None, _naming_tables(e, step)
        except (DynamoDBError, TransportError) as e:
            return None, e

    # -- plans -----------------------------------------------------------------

    def run(self, plan: Plan[T]) -> T:
        """Run a plan to its end, blocking."""
        send = self.send
        reply: Any = None
        error: BaseException | None = None
        while True:
            try:
                step = plan.throw(error) if error is not None else plan.send(reply)
            except StopIteration as stop:
                result: T = stop.value
                return result
            if step.__class__ is Sleep:
                time.sleep(step.seconds)
                reply = error = None
                continue
            try:  # self.answer(step), inline: this loop runs every toolkit call
                reply, error = send(step), None  # type: ignore[arg-type]
            except ResourceNotFoundException as e:
                reply, error = None, _naming_tables(e, step)  # type: ignore[arg-type]
            except (DynamoDBError, TransportError) as e:
                reply, error = None, e

    async def arun(self, plan: Plan[T]) -> T:
        """Run a plan to its end without blocking the event loop: each request
        is sent from the transport's thread pool."""
        loop = asyncio.get_running_loop()
        executor = self._pool()
        reply: Any = None
        error: BaseException | None = None
        while True:
            try:
                step = plan.throw(error) if error is not None else plan.send(reply)
            except StopIteration as stop:
                result: T = stop.value
                return result
            if isinstance(step, Sleep):
                await asyncio.sleep(step.seconds)
                reply = error = None
            else:
                reply, error = await loop.run_in_executor(executor, self.answer, step)

    def iterate(self, stream: Stream[T]) -> Iterator[T]:
        """Run a stream plan, blocking, handing out what it emits as it comes."""
        walk = _Walk(stream)
        for step in walk:
            if isinstance(step, Emit):
                yield from step.values
            elif isinstance(step, Sleep):
                time.sleep(step.seconds)
            else:
                walk.outcome = self.answer(step)

    async def aiterate(self, stream: Stream[T]) -> AsyncIterator[T]:
        """Run a stream plan without blocking the event loop."""
        loop = asyncio.get_running_loop()
        executor = self._pool()
        walk = _Walk(stream)
        for step in walk:
            if isinstance(step, Emit):
                for value in step.values:
                    yield value
            elif isinstance(step, Sleep):
                await asyncio.sleep(step.seconds)
            else:
                walk.outcome = await loop.run_in_executor(executor, self.answer, step)

    def _pool(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(
                    max_workers=self._max_workers, thread_name_prefix="tallydb-aio"
                )
            return self._executor

    def close(self) -> None:
        """Release the thread pool and, for the embedded engine, the engine."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True)
        if self._on_close is not None:
            self._on_close()


#: The request being sent exactly once on this thread, if any.
_sending_once = threading.local()


def _refuse_resend(
    caught_exception: BaseException | None = None,
    response: tuple[Any, dict[str, Any]] | None = None,
    **_: Any,
) -> None:
    """botocore's ``needs-retry`` event, seen first: for a request sent with
    ``once=True`` whose outcome is unknown, raise :class:`OutcomeUnknown`
    instead of letting botocore send it again."""
    pending: Call | None = getattr(_sending_once, "step", None)
    if pending is None:
        return
    reason = ""
    if caught_exception is not None:
        if isinstance(caught_exception, EndpointConnectionError | ConnectTimeoutError):
            return  # never left: safe to send
        reason = f"no answer came back ({caught_exception})"
    elif response is not None and response[0].status_code >= 500:
        code = response[1].get("Error", {}).get("Code", "")
        reason = f"the endpoint answered HTTP {response[0].status_code} {code}".rstrip()
    if reason:
        table = str(pending.request.get("TableName", "?"))
        raise OutcomeUnknown(pending.operation, table, reason)


class ClientTransport(Transport):
    """Requests sent on a boto3 DynamoDB client (any endpoint).

    A ``once=True`` step is sent with botocore's re-send stopped (a handler
    on the client's ``needs-retry`` event, which acts only for such steps).
    """

    def __init__(
        self,
        client: Any,
        *,
        on_close: Callable[[], None] | None = None,
        max_workers: int = 32,
    ) -> None:
        super().__init__(on_close=on_close, max_workers=max_workers)
        self._client = client
        self._streams: Any = None
        client.meta.events.register_first(
            "needs-retry.dynamodb", _refuse_resend, unique_id="tallydb-refuse-resend"
        )

    @property
    def client(self) -> Any:
        return self._client

    @property
    def endpoint(self) -> str:
        return str(self._client.meta.endpoint_url)

    @property
    def region(self) -> str:
        return str(self._client.meta.region_name or "us-east-1")

    def call(self, operation: str, request: dict[str, Any]) -> dict[str, Any]:
        return client_call(self._client, operation, request)

    def call_wire(
        self, operation: str, request: dict[str, Any], wire: dict[str, Any]
    ) -> dict[str, Any]:
        return client_call(self._client, operation, request)

    def send(self, step: Call) -> dict[str, Any]:
        if not step.once:
            return super().send(step)
        _sending_once.step = step
        try:
            return self.call(step.operation, step.request)
        finally:
            _sending_once.step = None

    def streams_client(self) -> Any:
        """A ``dynamodbstreams`` client with the DynamoDB client's endpoint,
        region and credentials (on AWS, the region's Streams endpoint)."""
        with self._lock:
            if self._streams is None:
                self._streams = _streams_client_beside(self._client)
            return self._streams


#: Amazon DynamoDB's own endpoints, whose Streams API lives at another host.
_AWS_ENDPOINT = re.compile(r"^https://dynamodb\.[a-z0-9-]+\.amazonaws\.com(\.cn)?/?$")


def _streams_client_beside(client: Any) -> Any:
    import boto3

    meta = client.meta
    kwargs: dict[str, Any] = {"region_name": meta.region_name, "config": meta.config}
    if not _AWS_ENDPOINT.match(meta.endpoint_url or ""):
        kwargs["endpoint_url"] = meta.endpoint_url
    # botocore has no public accessor for a client's credentials
    credentials = client._request_signer._credentials
    if credentials is not None:
        frozen = credentials.get_frozen_credentials()
        kwargs.update(aws_access_key_id=frozen.access_key,
                      aws_secret_access_key=frozen.secret_key,
                      aws_session_token=frozen.token)
    return boto3.session.Session().client("dynamodbstreams", **kwargs)
