"""Connecting to a store, and its tables.

::

    import tallydb
    db = tallydb.connect()                                 # embedded, data in ./tallydb-data
    db = tallydb.connect(path="/tmp/demo")                 # embedded, data elsewhere
    db = tallydb.connect(in_memory=True)                   # embedded, gone when closed
    db = tallydb.connect(path="/tmp/demo", sync="full")    # embedded, fsync every commit
    db = tallydb.connect("http://127.0.0.1:8000")          # tallydb serve, or any endpoint
    db = tallydb.connect(client=boto3.client("dynamodb"))  # Amazon DynamoDB, your credentials

    videos = db.create_table("videos", hash_key=("PK", "S"), range_key=("SK", "S"))
    videos = db.table("videos")

Whichever way it connects, the toolkit sends the store only standard
DynamoDB requests. To an endpoint they go on a boto3 client; to the embedded
engine straight into ``engine.call``, in-process, with no botocore and no
JSON on the way (:class:`~tallydb.toolkit.embedded.EngineTransport`), yet with the
same results and the same exceptions as a boto3 client would give.

:class:`DatabaseBase` holds each method once, as a plan; :class:`Database`
(here) and ``tallydb.aio.Database`` run them blocking or awaited.
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Generic, TypeVar

from tallydb.toolkit import sessions
from tallydb.toolkit.conditions import Path as PathArg
from tallydb.toolkit.convert import Item
from tallydb.toolkit.driver import Blocking, operation
from tallydb.toolkit.indexes import Index, LocalIndex, key_spec
from tallydb.toolkit.requests import KeySchema, Named
from tallydb.toolkit.table import Table, TableBase
from tallydb.toolkit.table_spec import create_table_request, p_create_table, p_wait_active
from tallydb.toolkit.transaction import Transaction, TransactionBase, p_transact_get
from tallydb.toolkit.transport import Call, ClientTransport, Plan, Transport

__all__ = [
    "DEFAULT_PATH",
    "Database",
    "DatabaseBase",
    "KeySpec",
    "connect",
    "new_table_request",
    "open_transport",
]

#: Where ``connect()`` keeps the embedded engine's data.
DEFAULT_PATH = "tallydb-data"
#: ``connect(endpoint)``'s defaults: seconds to wait for a connection or an
#: answer, and how many times an idempotent request is sent again after a
#: failure that may be passing (throttling, a dropped connection). An
#: endpoint that never answers fails in about (retries + 1) x timeout.
DEFAULT_TIMEOUT = 5.0
DEFAULT_RETRIES = 2

KeySpec = tuple[str, str]
BILLING_MODES = ("PAY_PER_REQUEST", "PROVISIONED")
STREAM_VIEWS = ("NEW_AND_OLD_IMAGES", "NEW_IMAGE", "OLD_IMAGE", "KEYS_ONLY")


def _http_client(endpoint: str, region: str | None, timeout: float, retries: int) -> Any:
    from botocore.config import Config

    if timeout <= 0:
        raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise ValueError(f"retries must be a whole number >= 0, not {retries!r}")
    config = Config(
        max_pool_connections=sessions.MAX_CONNECTIONS,
        connect_timeout=timeout,
        read_timeout=timeout,
        retries={"mode": "standard", "total_max_attempts": retries + 1},
    )
    with sessions.lock:
        session = sessions.shared()
        region = region or session.region_name or "us-east-1"
        credentials: dict[str, str] = {}
        if session.get_credentials() is None:
            # A local endpoint needs *some* credentials to sign with.
            credentials = {"aws_access_key_id": "tallydb", "aws_secret_access_key": "tallydb"}
        return session.client(
            "dynamodb", endpoint_url=endpoint, region_name=region, config=config, **credentials
        )


def open_transport(
    endpoint: str | None = None,
    *,
    path: str | os.PathLike[str] | None = None,
    client: Any = None,
    in_memory: bool = False,
    region: str | None = None,
    sync: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    retries: int = DEFAULT_RETRIES,
) -> Transport:
    """The transport ``connect`` uses (see :func:`connect` for the arguments)."""
    given = sum(x is not None and x is not False for x in (endpoint, path, client, in_memory))
    if given > 1:
        raise ValueError("pass one of: an endpoint URL, path=, client=, in_memory=True")
    if client is not None or endpoint is not None:
        if sync is not None:
            raise ValueError("sync= is the embedded engine's setting; an endpoint has its own")
        if client is None:
            client = _http_client(str(endpoint), region, timeout, retries)
        return ClientTransport(client, max_workers=sessions.MAX_CONNECTIONS)
    from tallydb.toolkit.embedded import open_engine  # the engine only when embedded

    if in_memory:
        return open_engine(None, sync)
    return open_engine(Path(path if path is not None else DEFAULT_PATH), sync)


def _key_schema(hash_key: KeySpec, range_key: KeySpec | None) -> dict[str, Any]:
    definitions = [{"AttributeName": hash_key[0], "AttributeType": hash_key[1]}]
    schema = [{"AttributeName": hash_key[0], "KeyType": "HASH"}]
    if range_key is not None:
        definitions.append({"AttributeName": range_key[0], "AttributeType": range_key[1]})
        schema.append({"AttributeName": range_key[0], "KeyType": "RANGE"})
    return {"AttributeDefinitions": definitions, "KeySchema": schema}


def new_table_request(
    name: str,
    hash_key: Any,
    range_key: Any,
    billing_mode: str,
    indexes: Sequence[Index] = (),
    types: dict[str, str] | None = None,
    *,
    stream: str | None = None,
) -> dict[str, Any]:
    """CreateTable's request; the keys checked (``(name, type)``) first."""
    if not isinstance(name, str):
        raise TypeError(f"a table name is a str, not {name!r}")
    if billing_mode not in BILLING_MODES:
        raise ValueError(f"billing_mode is one of {', '.join(BILLING_MODES)}, not {billing_mode!r}")
    if stream is not None and stream not in STREAM_VIEWS:
        raise ValueError(f"stream is one of {', '.join(STREAM_VIEWS)}, not {stream!r}")
    hash_key = key_spec("hash_key", hash_key)
    range_key = None if range_key is None else key_spec("range_key", range_key)
    request: dict[str, Any] = {
        "TableName": name,
        "BillingMode": billing_mode,
        **_key_schema(hash_key, range_key),
    }
    throughput = {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}
    if billing_mode == "PROVISIONED":
        request["ProvisionedThroughput"] = throughput
    definitions = {d["AttributeName"]: d["AttributeType"] for d in request["AttributeDefinitions"]}
    for index in indexes:
        if not isinstance(index, Index):
            raise TypeError(f"indexes holds GlobalIndex and LocalIndex, not {index!r}")
        index_hash, index_range = index.resolved(hash_key, types)
        for key_name, key_type in (index_hash, index_range or index_hash):
            if definitions.setdefault(key_name, key_type) != key_type:
                raise TypeError(
                    f"index {index.name!r}: {key_name} is {key_type} here and "
                    f"{definitions[key_name]} elsewhere"
                )
        entry = index.key_request(index_hash, index_range)
        if isinstance(index, LocalIndex):
            request.setdefault("LocalSecondaryIndexes", []).append(entry)
        else:
            if billing_mode == "PROVISIONED":
                entry["ProvisionedThroughput"] = throughput
            request.setdefault("GlobalSecondaryIndexes", []).append(entry)
    request["AttributeDefinitions"] = [
        {"AttributeName": n, "AttributeType": t} for n, t in definitions.items()
    ]
    if stream is not None:
        request["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": stream}
    return request


TableT = TypeVar("TableT", bound=TableBase)
TransactionT = TypeVar("TransactionT", bound=TransactionBase)


class DatabaseBase(Generic[TableT, TransactionT]):
    """What the blocking and the asyncio database share: every method, as a plan."""

    #: The API's own table and transaction classes.
    _table_class: type[TableT]
    _transaction_class: type[TransactionT]

    def __init__(self, transport: Transport) -> None:
        self.transport = transport

    @property
    def client(self) -> Any:
        """A boto3 DynamoDB client on the same store (for anything the toolkit
        lacks): the one given or made for an endpoint; for the embedded engine
        an in-process client, made on first use."""
        return self.transport.client

    @operation
    def create_table(
        self,
        name: str,
        *,
        hash_key: KeySpec,
        range_key: KeySpec | None = None,
        billing_mode: str | None = None,
        ttl_attribute: str | None = None,
        stream: str | None = None,
        exist_ok: bool = False,
        timeout: float = 60.0,
        indexes: Sequence[Index] = (),
    ) -> Plan[TableT]:
        """CreateTable, then wait until it is ACTIVE; the :class:`~tallydb.toolkit.table.Table`.

        ``hash_key``/``range_key`` are ``(name, type)`` with type ``"S"``,
        ``"N"`` or ``"B"``. ``indexes`` are :class:`~tallydb.toolkit.indexes.GlobalIndex`
        and :class:`~tallydb.toolkit.indexes.LocalIndex`. ``billing_mode`` is
        ``"PAY_PER_REQUEST"`` (the default for a new table) or ``"PROVISIONED"``
        (5 read and 5 write units). ``ttl_attribute`` turns on TTL expiry on
        that attribute; ``stream`` turns on a DynamoDB stream showing
        ``"NEW_AND_OLD_IMAGES"``, ``"NEW_IMAGE"``, ``"OLD_IMAGE"`` or ``"KEYS_ONLY"``.

        With ``exist_ok=True`` an existing table is made what is asked for if
        it is not so already: a missing global index is created, the billing
        mode switched (when given), a stream or TTL turned on. What cannot be
        changed in place (the keys, a local index, an index's keys or
        projection, TTL on another attribute, another stream view) raises
        :class:`~tallydb.toolkit.exceptions.SchemaMismatchError` naming each
        difference. Nothing the call does not ask for is removed.
        """
        request = new_table_request(
            name, hash_key, range_key, billing_mode or "PAY_PER_REQUEST", indexes, stream=stream
        )
        yield from p_create_table(
            request, ttl_attribute, exist_ok, timeout, billing_given=billing_mode is not None
        )
        return self._table_class(self, name, KeySchema.from_description(request))

    @operation
    def create_table_from(
        self,
        description: Mapping[str, Any],
        *,
        name: str | None = None,
        ttl_attribute: str | None = None,
        exist_ok: bool = False,
        timeout: float = 60.0,
    ) -> Plan[TableT]:
        """CreateTable from a request in DynamoDB's own JSON shape, or like a
        table a description shows (DescribeTable's answer, as ``aws dynamodb
        describe-table`` prints it), then wait until it is ACTIVE.

        Kept: the keys, the billing mode and throughput, the indexes and the
        stream; a description's ARNs, counts and dates are ignored. ``name``
        gives the table another name than the description's.
        ``ttl_attribute`` and ``exist_ok`` are as for :meth:`create_table`
        (the billing mode counts as given)."""
        request = create_table_request(description)
        if name is not None:
            request["TableName"] = name
        yield from p_create_table(request, ttl_attribute, exist_ok, timeout)
        return self._table_class(
            self, request["TableName"], KeySchema.from_description(request))

    @operation
    def restore_table(
        self,
        source: str,
        target: str,
        *,
        at: datetime.datetime | float | None = None,
        timeout: float = 60.0,
    ) -> Plan[TableT]:
        """RestoreTableToPointInTime, then wait until the new table is ACTIVE;
        its :class:`~tallydb.toolkit.table.Table`.

        ``target`` gets ``source``'s items (and indexes) as they were at
        ``at``: a datetime (a naive one is local time) or epoch seconds,
        counted to the second; None restores the latest restorable time.
        ``source`` needs point-in-time recovery on
        (``UpdateContinuousBackups``), and ``at`` must be within its window.
        """
        request: dict[str, Any] = {"SourceTableName": source, "TargetTableName": target}
        if at is None:
            request["UseLatestRestorableTime"] = True
        else:
            request["RestoreDateTime"] = (
                at.timestamp() if isinstance(at, datetime.datetime) else float(at))
        yield Call("RestoreTableToPointInTime", request)
        yield from p_wait_active(target, timeout)
        return self._table_class(self, target)

    def table(self, name: str) -> TableT:
        """The :class:`~tallydb.toolkit.table.Table` called ``name`` (no request is sent)."""
        return self._table_class(self, name)

    @operation
    def delete_table(self, name: str) -> Plan[None]:
        """DeleteTable."""
        return self._p_delete_table(name)

    @operation
    def list_tables(self) -> Plan[list[str]]:
        """Every table's name (all pages of ListTables)."""
        return self._p_list_tables()

    def transaction(self, *, token: str | None = None) -> TransactionT:
        """Puts, updates, deletes and condition checks across tables, sent
        as one TransactWriteItems when the ``with`` block ends (see
        :mod:`tallydb.toolkit.transaction`). ``token`` is the ClientRequestToken
        (a fresh UUID by default)."""
        return self._transaction_class(self.transport, token)

    @operation
    def transact_get(
        self,
        gets: Sequence[tuple[Named | str, Mapping[str, Any]]],
        *,
        projection: Sequence[str | PathArg] | None = None,
    ) -> Plan[list[Item | None]]:
        """TransactGetItems: the item (or None) of each ``(table, key)``, in
        order, read as of one moment."""
        return p_transact_get(gets, projection)

    @operation
    def close(self) -> Plan[None]:
        """Release the embedded engine (and the asyncio API's thread pool)."""
        self.transport.close()
        return
        yield  # a plan that sends nothing

    def __repr__(self) -> str:
        api = "aio." if getattr(self, "awaited", False) else ""
        return f"<{api}Database {self.transport.endpoint}>"

    # -- plans -------------------------------------------------------------------

    def _p_delete_table(self, name: str) -> Plan[None]:
        yield Call("DeleteTable", {"TableName": name})

    def _p_list_tables(self) -> Plan[list[str]]:
        names: list[str] = []
        request: dict[str, Any] = {}
        while True:
            response = yield Call("ListTables", request)
            names.extend(response.get("TableNames", []))
            last = response.get("LastEvaluatedTableName")
            if not last:
                return names
            request = {"ExclusiveStartTableName": last}


class Database(DatabaseBase[Table, Transaction], Blocking):
    """A connection to a store (blocking API). Make one with :func:`connect`;
    close it (or use ``with``) to release the embedded engine."""

    _table_class = Table
    _transaction_class = Transaction

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def connect(
    endpoint: str | None = None,
    *,
    path: str | os.PathLike[str] | None = None,
    client: Any = None,
    in_memory: bool = False,
    region: str | None = None,
    sync: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    retries: int = DEFAULT_RETRIES,
) -> Database:
    """Open a store.

    * ``connect()``: the embedded engine, data in ``./tallydb-data``;
    * ``connect(path="/tmp/demo")``: the embedded engine, data there;
    * ``connect(in_memory=True)``: the embedded engine, nothing on disk;
    * ``connect("http://127.0.0.1:8000")``: any DynamoDB-compatible endpoint
      (``tallydb serve``, DynamoDB Local, Alternator, moto). Credentials and
      region come from the environment as boto3 finds them; a local endpoint
      without any gets dummy ones, and region ``us-east-1``;
    * ``connect(client=boto3.client("dynamodb"))``: the client you made, e.g.
      for Amazon DynamoDB with your own credentials.

    ``sync`` is the embedded engine's durability (:class:`tallydb.engine.storage.Sync`):
    ``"normal"`` (the default: every acknowledged write survives the process
    being killed), ``"full"`` (each commit is fsynced first: survives power
    loss) or ``"off"``. Every call commits before it returns, whichever.

    ``timeout`` (seconds, for a connection and for each answer) and
    ``retries`` (how often an idempotent request is sent again) apply to an
    endpoint URL; a client you pass keeps its own configuration. A request
    that is not idempotent (a counter's ``add`` without an idempotency key)
    is never sent twice, whatever the client's retry setting: if its answer
    is lost, :class:`~tallydb.toolkit.exceptions.OutcomeUnknown` is raised.
    """
    return Database(
        open_transport(
            endpoint,
            path=path,
            client=client,
            in_memory=in_memory,
            region=region,
            sync=sync,
            timeout=timeout,
            retries=retries,
        )
    )
