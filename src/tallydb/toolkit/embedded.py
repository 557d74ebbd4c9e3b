"""The embedded engine as a transport: the one module of the toolkit that
imports the engine.

``tallydb.connect()`` (a data directory) and ``connect(in_memory=True)``
open an :class:`~tallydb.engine.api.Engine` here and run a TTL sweeper
beside it; requests go to ``engine.call`` in-process, with no HTTP.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from botocore.exceptions import ParamValidationError

from tallydb.engine.api import Engine
from tallydb.engine.errors import DynamoDBError, SerializationException, ValidationException
from tallydb.engine.storage import Store
from tallydb.engine.sweeper import Sweeper
from tallydb.toolkit import inprocess, sessions
from tallydb.toolkit.convert import json_shape, python_shape
from tallydb.toolkit.exceptions import error_from_engine
from tallydb.toolkit.transport import Transport, client_call

__all__ = ["DIRECT_OPERATIONS", "EngineTransport", "open_engine"]


#: The operations :class:`EngineTransport` hands to the engine itself: those
#: whose requests and responses differ from boto3's only in Binary values.
#: Anything else (table management, rare and with timestamps in its answers)
#: goes through the in-process boto3 client, so it is botocore's to the letter.
DIRECT_OPERATIONS = frozenset(
    {
        "GetItem",
        "PutItem",
        "UpdateItem",
        "DeleteItem",
        "Query",
        "Scan",
        "BatchGetItem",
        "BatchWriteItem",
        "TransactGetItems",
        "TransactWriteItems",
    }
)

#: The errors a request botocore would have refused to send can get from
#: the engine instead; only then is botocore's own check run (it costs more
#: than the engine's whole UpdateItem).
_REFUSABLE = (ValidationException, SerializationException)


class EngineTransport(Transport):
    """Requests answered by the embedded engine, in-process, without botocore.

    The item operations (:data:`DIRECT_OPERATIONS`) go straight to
    ``engine.call``: the request is copied into DynamoDB's JSON shape
    (:func:`~tallydb.toolkit.convert.json_shape`, Binary values as base64 text) and
    the response copied back into boto3's (:func:`~tallydb.convert.python_shape`),
    so the engine never holds or changes the caller's dicts, and the caller
    never holds the engine's. :meth:`call_wire` skips both copies for the
    requests the toolkit itself keeps in that shape (a counter's add):
    ``engine.call`` never changes a request (``tests/test_engine_requests.py``
    pins it), so one that nobody changes can be handed over as it is. An error is raised as
    :func:`~tallydb.toolkit.exceptions.error_from_engine` makes it: the class, code,
    message and extras a botocore client would have raised; and a request
    that botocore would have refused to send (a parameter of the wrong type,
    say) is refused with botocore's own message.

    Everything else, and :attr:`client`, goes through an in-process boto3
    client on the same engine (:mod:`tallydb.toolkit.inprocess`), made on first use
    by ``client_factory``.
    """

    def __init__(
        self,
        engine: Engine,
        client_factory: Callable[[], Any],
        *,
        on_close: Callable[[], None] | None = None,
        max_workers: int = 32,
    ) -> None:
        super().__init__(on_close=on_close, max_workers=max_workers)
        self.engine = engine
        self._engine_call = engine.call
        self._client_factory = client_factory
        self._client: Any = None
        self._streams: Any = None

    @property
    def client(self) -> Any:
        client = self._client
        if client is None:
            with self._lock:
                if self._client is None:
                    self._client = self._client_factory()
                client = self._client
        return client

    @property
    def endpoint(self) -> str:
        return f"embedded:{self.engine.store.location}"

    speaks_wire = True

    def streams_client(self) -> Any:
        """The in-process ``dynamodbstreams`` client on the same engine."""
        with self._lock:
            if self._streams is None:
                self._streams = inprocess.streams_client(self.engine)
            return self._streams

    def call(self, operation: str, request: dict[str, Any]) -> dict[str, Any]:
        if operation not in DIRECT_OPERATIONS:
            return client_call(self.client, operation, request)
        try:
            response = self._engine_call(operation, json_shape(request))
        except DynamoDBError as e:
            if isinstance(e, _REFUSABLE):
                self._refuse_as_botocore(operation, request)
            raise error_from_engine(e) from None
        result: dict[str, Any] = python_shape(response)
        return result

    def call_wire(
        self, operation: str, request: dict[str, Any], wire: dict[str, Any]
    ) -> dict[str, Any]:
        if operation not in DIRECT_OPERATIONS:
            return client_call(self.client, operation, request)
        try:
            response: dict[str, Any] = self._engine_call(operation, wire)
        except DynamoDBError as e:
            if isinstance(e, _REFUSABLE):
                self._refuse_as_botocore(operation, request)
            raise error_from_engine(e) from None
        return response

    def _refuse_as_botocore(self, operation: str, request: dict[str, Any]) -> None:
        """Raise what botocore raises for a request it will not send, if it
        would not send this one."""
        from botocore.validate import ParamValidator  # only on this rare path

        model = self.client.meta.service_model.operation_model(operation)
        report = ParamValidator().validate(request, model.input_shape)
        if report.has_errors():
            raise ValidationException(
                str(ParamValidationError(report=report.generate_report()))
            ) from None


def open_engine(path: str | os.PathLike[str] | None, sync: str | None) -> EngineTransport:
    """The transport on a new embedded engine (``path`` None: in memory),
    with a TTL sweeper running until it is closed."""
    location = None if path is None else os.fspath(path)
    engine = Engine(Store(location) if sync is None else Store(location, sync=sync))
    sweeper = Sweeper(engine).start()

    def close() -> None:
        sweeper.stop()
        engine.close()

    def make_client() -> Any:
        """The in-process boto3 client on the same engine (``db.client``,
        and table management)."""
        from botocore.config import Config

        config = Config(max_pool_connections=sessions.MAX_CONNECTIONS)
        with sessions.lock:
            return inprocess.client(engine, config=config, session=sessions.shared())

    return EngineTransport(engine, make_client, on_close=close,
                           max_workers=sessions.MAX_CONNECTIONS)
