"""How the toolkit reaches an endpoint: standard DynamoDB requests on a boto3 client.

Every toolkit operation is written once, as a *plan*: a generator that yields
the DynamoDB requests it needs (:class:`Call`) and the pauses it wants
between retries (:class:`Sleep`), receives each response, and returns the
operation's result. A plan does no I/O itself, so the same plan runs

* synchronously: :meth:`Transport.run` sends each request on the client, and
* asynchronously: :meth:`Transport.arun` sends it from a thread pool and
  sleeps with ``asyncio.sleep``,

which is how :mod:`tallydb.aio` has exactly the behaviour of the blocking
API. A DynamoDB error is thrown *into* the plan (as a :mod:`tallydb.errors`
exception, see :mod:`tallydb.exceptions`) so that a plan can turn, say, a
failed condition into a :class:`~tallydb.exceptions.CounterLimitError`.

The client is any ``boto3.client("dynamodb")``: the embedded engine's
in-process client, one pointed at ``tallydb serve``, or the user's own for
Amazon DynamoDB. The toolkit sends nothing else, which is why it runs
unchanged on all of them.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Generator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from botocore.exceptions import BotoCoreError, ClientError, ParamValidationError

from tallydb.errors import DynamoDBError, ValidationException
from tallydb.exceptions import TransportError, error_from_response

__all__ = ["Call", "Plan", "Sleep", "Transport"]

T = TypeVar("T")


@dataclass(frozen=True)
class Call:
    """One DynamoDB request: ``Call("UpdateItem", {"TableName": ..., ...})``."""

    operation: str
    request: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Sleep:
    """A pause (between retries), in seconds."""

    seconds: float


Step = Call | Sleep
#: A toolkit operation: yields steps, is sent each Call's response, returns T.
Plan = Generator[Step, Any, T]

_METHODS: dict[str, str] = {}


def _method_name(operation: str) -> str:
    name = _METHODS.get(operation)
    if name is None:
        name = "".join("_" + c.lower() if c.isupper() else c for c in operation).lstrip("_")
        _METHODS[operation] = name
    return name


class Transport:
    """A boto3 DynamoDB client, and the drivers that run plans on it.

    ``close`` releases what the transport owns (the embedded engine, the
    thread pool of the async driver); a client passed in by the user is the
    user's to close.
    """

    def __init__(
        self,
        client: Any,
        *,
        on_close: Callable[[], None] | None = None,
        max_workers: int = 32,
    ) -> None:
        self.client = client
        self._on_close = on_close
        self._max_workers = max_workers
        self._executor: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self.closed = False

    # -- one request -------------------------------------------------------

    def call(self, operation: str, request: dict[str, Any]) -> dict[str, Any]:
        """Send one request; the response without botocore's ResponseMetadata.

        Raises the :mod:`tallydb.errors` exception for a DynamoDB error,
        :class:`~tallydb.errors.ValidationException` for a request botocore
        refuses to send, :class:`~tallydb.exceptions.TransportError` when the
        endpoint cannot be reached.
        """
        method = getattr(self.client, _method_name(operation))
        try:
            response: dict[str, Any] = method(**request)
        except ClientError as e:
            raise error_from_response(e.response) from None
        except ParamValidationError as e:
            raise ValidationException(str(e)) from None
        except BotoCoreError as e:
            raise TransportError(str(e)) from e
        response.pop("ResponseMetadata", None)
        return response

    # -- plans -----------------------------------------------------------------

    def run(self, plan: Plan[T]) -> T:
        """Run a plan to its end, blocking."""
        reply: Any = None
        error: BaseException | None = None
        while True:
            try:
                step = plan.throw(error) if error is not None else plan.send(reply)
            except StopIteration as stop:
                result: T = stop.value
                return result
            reply, error = None, None
            if isinstance(step, Sleep):
                time.sleep(step.seconds)
                continue
            try:
                reply = self.call(step.operation, step.request)
            except (DynamoDBError, TransportError) as e:
                error = e

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
            reply, error = None, None
            if isinstance(step, Sleep):
                await asyncio.sleep(step.seconds)
                continue
            try:
                reply = await loop.run_in_executor(
                    executor, self.call, step.operation, step.request
                )
            except (DynamoDBError, TransportError) as e:
                error = e

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
