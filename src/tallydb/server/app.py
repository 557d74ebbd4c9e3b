"""The server's life: open the store, listen, serve, shut down cleanly."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import logging
import signal
import ssl
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tallydb.console.live import LiveHub
from tallydb.console.metrics import Metrics
from tallydb.console.routes import Console
from tallydb.engine.api import (
    OPERATIONS,
    SWEEP_BATCH,
    SWEEP_INTERVAL,
    TTL_CHANGE_INTERVAL,
    Engine,
    KinesisSender,
    Limits,
    TableDelays,
)
from tallydb.engine.objects import Directory, ObjectStore
from tallydb.engine.storage import Store, Sync
from tallydb.server.auth import Verifier
from tallydb.server.batch import Batcher
from tallydb.server.bodies import BodyBudget
from tallydb.server.clock import CoarseClock
from tallydb.server.console_http import verifier_for
from tallydb.server.credentials import Key
from tallydb.server.limits import ConnectionLimits, Watchdog, raise_descriptor_limit
from tallydb.server.origin import OriginPolicy, is_loopback
from tallydb.server.protocol import Connection
from tallydb.server.routing import MAX_BODY, Router
from tallydb.server.screening import Screen

log = logging.getLogger("tallydb.server")

SHUTDOWN_GRACE = 5.0  # seconds to let clients read their last responses
NO_AUTH_ELSEWHERE = (
    "refusing to listen on {host} without credentials: anyone who can reach it could read "
    "and write every table. Give --credentials FILE, listen on 127.0.0.1, or accept the "
    "risk with --insecure-no-auth"
)


class ConfigError(ValueError):
    """A configuration the server refuses to start with; the message says why."""


@dataclass
class Config:
    """Everything ``tallydb serve`` can be told."""

    host: str = "127.0.0.1"
    port: int = 8000
    data: Path | None = Path("tallydb-data")  # None: in memory
    sync: Sync = Sync.NORMAL
    credentials: Mapping[str, Key | str] = field(default_factory=dict)
    # without credentials: browser origins besides the server's own
    cors_origins: tuple[str, ...] = ()
    # serve without credentials on an address other machines can reach
    insecure_no_auth: bool = False
    tls_cert: Path | None = None
    tls_key: Path | None = None
    log_requests: bool = False  # one access-log line per request (logger tallydb.access)
    limits: ConnectionLimits = field(default_factory=ConnectionLimits)
    # group commits on a worker thread; None: only when COMMIT waits for fsync
    commit_thread: bool | None = None
    # DynamoDB's throughput ceilings (tallydb.engine.api._limits); off by default
    emulate_limits: bool = False
    # the web console at /console
    console: bool = True
    # each region its own tables (DynamoDB's behaviour); shared by default
    separate_regions: bool = False
    # seconds before a global table's change reaches its other replicas
    replication_delay: float = 1.0
    # how long tables stay CREATING, DELETING, UPDATING (None: they change at once)
    table_delays: TableDelays | None = None
    # seconds after a change of a table's TTL during which another is refused
    ttl_change_interval: float = TTL_CHANGE_INTERVAL
    # exports and imports: an S3-compatible endpoint, else a directory per
    # bucket under s3_root (default: s3/ in the data directory)
    s3_endpoint: str | None = None
    s3_region: str = "us-east-1"
    s3_root: Path | None = None
    # Kinesis destinations' records: a Kinesis-compatible endpoint
    kinesis_endpoint: str | None = None
    kinesis_region: str = "us-east-1"

    def kinesis(self) -> KinesisSender | None:
        """Where Kinesis destinations' records go (None: nowhere; they wait)."""
        if self.kinesis_endpoint is None:
            return None
        from tallydb.server.connectors import KinesisStreams

        return KinesisStreams(self.kinesis_endpoint, self.kinesis_region)

    def objects(self) -> ObjectStore | None:
        """Where exports go and imports come from (None: the engine's default)."""
        if self.s3_endpoint is not None:
            from tallydb.server.connectors import S3Objects

            return S3Objects(self.s3_endpoint, self.s3_region)
        if self.s3_root is not None:
            return Directory(self.s3_root)
        return None

    def offloads(self) -> bool:
        if self.commit_thread is not None:
            return self.commit_thread
        return self.data is not None and self.sync is Sync.FULL

    def check(self) -> None:
        """Raise ConfigError for a configuration the server must not run with."""
        if not self.credentials and not self.insecure_no_auth and not is_loopback(self.host):
            raise ConfigError(NO_AUTH_ELSEWHERE.format(host=self.host))
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ConfigError("TLS needs both --tls-cert and --tls-key")
        if self.limits.max_body_memory < MAX_BODY:
            raise ConfigError(f"--max-body-memory must hold one request of DynamoDB's largest "
                              f"({MAX_BODY} bytes)")
        try:
            self.origin_policy()
        except ValueError as error:
            raise ConfigError(str(error)) from None

    def origin_policy(self) -> OriginPolicy:
        return OriginPolicy.build(bool(self.credentials), self.cors_origins, self.host)

    def tls(self) -> ssl.SSLContext | None:
        if self.tls_cert is None or self.tls_key is None:
            return None
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.tls_cert, self.tls_key)
        return context

    def describe_storage(self) -> str:
        if self.data is None:
            return "in memory"
        return f"data: {self.data.resolve()}, sync: {self.sync.value}"


class Server:
    """One listening socket (or several, for a name with many addresses),
    its connections, and the batcher in front of the engine."""

    def __init__(
        self,
        engine: Engine,
        loop: asyncio.AbstractEventLoop,
        credentials: Mapping[str, Key | str] | None = None,
        operations: Iterable[str] | None = None,
        offload: bool = False,
        origins: OriginPolicy | None = None,
        tls: ssl.SSLContext | None = None,
        log_requests: bool = False,
        limits: ConnectionLimits | None = None,
        console: bool = False,
    ) -> None:
        self.engine = engine
        self.loop = loop
        self.limits = limits or ConnectionLimits()
        self.clock = CoarseClock(loop.time())  # the watchdog moves it once a tick
        self.bodies = BodyBudget(self.limits.max_body_memory, MAX_BODY)
        self.screen = Screen(loop)
        verifier = Verifier(credentials) if credentials else None
        self.console = None if not console else _console(engine, loop, verifier,
                                                         self._observe)
        self.router = Router(
            OPERATIONS if operations is None else operations, verifier, self.console, origins,
            regional=engine.regional, log_requests=log_requests)
        self.tls = tls
        self.batcher = Batcher(engine, loop, offload, log_requests)
        self.log_requests = log_requests
        self.connections: set[Connection] = set()
        self._server: asyncio.Server | None = None
        self._watchdog: asyncio.Task[None] | None = None

    def _observe(self, metrics: Metrics | None) -> None:
        """The console's operational view: record each answered request
        into ``metrics`` while a page listens (None: record nothing)."""
        self.batcher.units = self.engine.report_units(metrics is not None)
        self.batcher.metrics = metrics

    async def listen(self, host: str, port: int) -> int:
        """Start accepting; return the bound port (useful with port 0)."""
        return await self.accept(await bind(self.loop, host, port, self.tls))

    async def accept(self, listener: Listener) -> int:
        """Start accepting on ``listener`` (bound by :func:`bind`); the bound port."""
        listener.server = self
        self._server = listener.sockets
        await listener.sockets.start_serving()
        if self._watchdog is None:
            self._watchdog = self.loop.create_task(Watchdog(self).run())
        name = listener.sockets.sockets[0].getsockname()
        self.router.address = url_for(name[0], name[1]).split("://", 1)[1]
        return int(name[1])

    async def sweep_expired(self) -> None:
        """Delete items whose TTL has passed, every SWEEP_INTERVAL seconds
        (at once again while a sweep finds a full batch). A sweep is a write
        transaction: it runs where batches run, so it never races one."""
        while True:
            await asyncio.sleep(SWEEP_INTERVAL)
            deleted = SWEEP_BATCH
            while deleted >= SWEEP_BATCH:
                try:
                    if self.batcher.executor is not None:
                        deleted = await self.loop.run_in_executor(
                            self.batcher.executor, self.engine.sweep_expired)
                    else:
                        deleted = self.engine.sweep_expired()
                except Exception:
                    log.exception("the TTL sweep failed")
                    break
                await asyncio.sleep(0)  # requests between two full sweeps

    async def shutdown(self) -> None:
        """Stop accepting, commit and answer what is in progress, close."""
        if self._server is not None:
            self._server.close()
        if self._watchdog is not None:
            self._watchdog.cancel()
        for conn in list(self.connections):
            conn.stopped = True
        await self.batcher.drain()
        for conn in list(self.connections):
            conn.shutdown()
        if self.console is not None:
            self.console.close()
        self.screen.close()
        deadline = self.loop.time() + SHUTDOWN_GRACE
        while self.connections and self.loop.time() < deadline:
            await asyncio.sleep(0.01)
        self.engine.close()


class Listener:
    """Listening sockets bound before the server that will accept on them
    exists, so that a taken port fails before a data directory is made."""

    def __init__(self) -> None:
        self.server: Server | None = None
        self.sockets: asyncio.Server

    def __call__(self) -> asyncio.BaseProtocol:
        server = self.server
        assert server is not None, "no connection is accepted before Server.accept"
        conn = Connection(server)
        return conn if server.tls is None else conn.secured(server.tls)


async def bind(
    loop: asyncio.AbstractEventLoop, host: str, port: int, tls: ssl.SSLContext | None
) -> Listener:
    """Bind ``host:port`` (OSError if it is taken), accepting nothing yet."""
    listener = Listener()
    # TLS is put around each connection as it is accepted (Connection.secured),
    # so that a handshake counts against --max-connections and --header-timeout.
    listener.sockets = await loop.create_server(
        listener, host, port, reuse_address=True, backlog=1024, start_serving=False,
    )
    return listener


def _console(engine: Engine, loop: asyncio.AbstractEventLoop, verifier: Verifier | None,
             observe: Callable[[Metrics | None], None]) -> Console:
    """The web console over ``engine``'s change feed (and its throttles);
    ``observe`` is told the metrics to keep while a page listens (None after)."""
    hub = LiveHub(engine.feed, loop, on_listening=observe)
    if engine.limits is not None:
        insights = engine.limits.on_throttle

        def throttled(table: str, hk: bytes) -> None:
            if insights is not None:
                insights(table, hk)
            hub.throttled(table, hk)

        engine.limits.on_throttle = throttled
    return Console(hub, verify=None if verifier is None else verifier_for(verifier),
                   emulate_limits=engine.limits is not None, top_keys=engine.top_keys,
                   replication=engine.replication_status)


def url_for(host: str, port: int, tls: bool = False) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"{'https' if tls else 'http'}://{shown}:{port}"


async def serve(config: Config, announce: Callable[[str], None] = print) -> None:
    """Serve until SIGINT or SIGTERM; ``announce`` gets the one-line banner."""
    config.check()
    tls = config.tls()
    loop = asyncio.get_running_loop()
    listener = await bind(loop, config.host, config.port, tls)  # before anything is made
    try:
        store = Store(config.data, config.sync)
    except BaseException:
        listener.sockets.close()
        raise
    try:
        engine = Engine(store, limits=Limits() if config.emulate_limits else None,
                        separate_regions=config.separate_regions, objects=config.objects(),
                        kinesis=config.kinesis(),
                        replication_delay=config.replication_delay,
                        table_delays=config.table_delays,
                        ttl_change_interval=config.ttl_change_interval)
    except BaseException:
        store.close()
        listener.sockets.close()
        raise
    allowed = raise_descriptor_limit(config.limits.max_connections)
    if allowed < config.limits.max_connections:
        log.warning("the file-descriptor limit allows %d connections, not %d",
                    allowed, config.limits.max_connections)
    limits = dataclasses.replace(config.limits, max_connections=allowed)
    server = Server(engine, loop, config.credentials, offload=config.offloads(),
                    origins=config.origin_policy(), tls=tls, log_requests=config.log_requests,
                    limits=limits, console=config.console)
    if config.log_requests:
        logging.getLogger("tallydb.access").setLevel(logging.INFO)
    try:
        port = await server.accept(listener)
    except BaseException:
        listener.sockets.close()
        engine.close()
        raise
    stop = asyncio.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # Windows has none
            loop.add_signal_handler(signum, stop.set)
    if not config.credentials and not is_loopback(config.host):
        log.warning("serving without credentials on %s (--insecure-no-auth)", config.host)
    url = url_for(config.host, port, tls is not None)
    announce(f"tallydb listening on {url} ({config.describe_storage()})")
    if config.console:
        announce(f"console at {url}/console")
    # What start-up loaded lives as long as the server: keep it out of the
    # collector's full scans, which otherwise walk it all (a pause of several
    # ms in the middle of a batch) while requests leave only garbage behind.
    gc.collect()
    gc.freeze()
    sweeper = loop.create_task(server.sweep_expired())
    try:
        await stop.wait()
    finally:
        log.info("shutting down")
        sweeper.cancel()
        await server.shutdown()


def run(config: Config, announce: Callable[[str], None] = print) -> None:
    """Run ``serve`` on uvloop (plain asyncio where uvloop is unavailable)."""
    try:
        import uvloop
    except ImportError:  # pragma: no cover - Windows
        asyncio.run(serve(config, announce))
    else:
        uvloop.run(serve(config, announce))
