"""``tallydb serve``: DynamoDB's API over HTTP, from the command line."""

from __future__ import annotations

import errno
import logging
import os
import sys
from pathlib import Path
from typing import Any

import click

from tallydb.cli._errors import EXIT_UNAVAILABLE, fail


def _credentials(
    _ctx: click.Context, _param: click.Parameter, value: Path | None
) -> dict[str, Any]:
    """The keys of --credentials FILE, else of $TALLYDB_CREDENTIALS, else none."""
    from tallydb.server import credentials

    try:
        if value is not None:
            return dict(credentials.load(value))
        pairs = os.environ.get(credentials.ENVIRONMENT)
        return dict(credentials.from_pairs(pairs)) if pairs else {}
    except ValueError as error:
        raise click.BadParameter(str(error)) from None


def _table_delays(_ctx: click.Context, _param: click.Parameter, value: str | None) -> Any:
    """--table-delays CREATE,DELETE,UPDATE (milliseconds), or None."""
    if value is None:
        return None
    from tallydb.engine.api import TableDelays

    try:
        return TableDelays.parse(value)
    except ValueError as error:
        raise click.BadParameter(str(error)) from None


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (0.0.0.0 for every interface).")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535),
              help="Port to listen on; 0 picks a free one (the banner says which).")
@click.option("--data", "data", default="./tallydb-data", show_default=True,
              type=click.Path(file_okay=False, path_type=Path),
              help="Data directory (created if missing).")
@click.option("--in-memory", is_flag=True,
              help="Keep everything in memory and lose it on exit (ignores --data).")
@click.option("--sync", type=click.Choice(["off", "normal", "full"]), default="normal",
              show_default=True,
              help="Durability before a write is acknowledged: off and normal survive the "
                   "server being killed (kill -9); normal also keeps the database intact "
                   "through an OS crash; full fsyncs every group commit (survives power loss).")
@click.option("--credentials", "credentials", metavar="FILE", callback=_credentials,
              type=click.Path(dir_okay=False, path_type=Path),
              help="Require SigV4 signatures by the keys of this TOML file "
                   "([keys.ACCESS_KEY] secret = ..., optional access = \"read-only\", "
                   "tables = [...]). Without it, ACCESS_KEY:SECRET pairs from "
                   "$TALLYDB_CREDENTIALS; with neither, any request is accepted, signed or "
                   "not, as DynamoDB Local does, from this machine only.")
@click.option("--insecure-no-auth", is_flag=True,
              help="Allow serving without credentials on an address other machines can "
                   "reach (--host other than loopback).")
@click.option("--cors-origin", "cors_origins", multiple=True, metavar="ORIGIN",
              help="Without credentials, let web pages of this origin (http://host:port) "
                   "call the server (repeatable); other origins get 403.")
@click.option("--tls-cert", type=click.Path(dir_okay=False, exists=True, path_type=Path),
              help="Serve HTTPS with this PEM certificate (needs --tls-key).")
@click.option("--tls-key", type=click.Path(dir_okay=False, exists=True, path_type=Path),
              help="The private key of --tls-cert (PEM).")
@click.option("--header-timeout", default=10.0, show_default=True, type=click.FloatRange(min=0.1),
              help="Seconds a client has from a request's first byte to the end of its "
                   "headers (then 408 and close), and from connecting to the end of its TLS "
                   "handshake (then close).")
@click.option("--body-timeout", default=60.0, show_default=True, type=click.FloatRange(min=0.1),
              help="Seconds a client has from the end of a request's headers to the end of "
                   "its body (then 408 and close).")
@click.option("--idle-timeout", default=60.0, show_default=True, type=click.FloatRange(min=0.1),
              help="Seconds a keep-alive connection may sit idle before it is closed; also "
                   "how long a client's answers (the console's live feed included) may wait "
                   "without draining before its connection is reset.")
@click.option("--max-connections", default=4096, show_default=True, type=click.IntRange(min=1),
              help="Connections open at once (capped by the file-descriptor limit); more are "
                   "answered 503 and closed.")
@click.option("--max-output-bytes", default=64 << 10, show_default=True,
              type=click.IntRange(min=1),
              help="Response bytes waiting for one client before the server stops reading its "
                   "requests (a client that does not read its answers).")
@click.option("--max-body-memory", default=256 << 20, show_default=True,
              type=click.IntRange(min=1),
              help="Bytes of request bodies still arriving that all connections together may "
                   "hold (each request's whole Content-Length, from the end of its headers); "
                   "a request past it is answered 503 before its body is read. At least "
                   "16777216 (one request of DynamoDB's largest).")
@click.option("--log-requests", is_flag=True,
              help="Log one line per request to stderr: operation, table, status, duration "
                   "and request id (never a secret or an item value).")
@click.option("--commit-thread/--no-commit-thread", default=None,
              help="Run each group commit on a worker thread while the event loop reads the "
                   "next batch. Default: only with --sync full, whose COMMIT waits for fsync "
                   "(otherwise the hand-off costs more CPU per request than it overlaps).")
@click.option("--emulate-limits", is_flag=True,
              help="Throttle as DynamoDB does: 1,000 write and 3,000 read units a second per "
                   "partition key, and a PROVISIONED table's own throughput (with 300 s of "
                   "burst).")
@click.option("--separate-regions/--shared-regions", default=False, show_default=True,
              help="Give each region (the one a request is signed for) its own tables, as "
                   "DynamoDB does, or let every region see the same tables, as DynamoDB "
                   "Local with -sharedDb does. Unsigned requests are in us-east-1, whose "
                   "tables are the shared ones. ARNs always name the request's region.")
@click.option("--replication-delay", default=1.0, show_default=True, metavar="SECONDS",
              type=click.FloatRange(min=0),
              help="With --separate-regions: how long a global table's change takes to reach "
                   "its other replicas (multi-Region eventual consistency), and the window in "
                   "which a strongly consistent one refuses another region's write to the same "
                   "item (ReplicatedWriteConflictException). 0 for tests.")
@click.option("--table-delays", metavar="CREATE,DELETE,UPDATE", callback=_table_delays,
              help="Keep tables CREATING, DELETING and UPDATING for these many "
                   "milliseconds, as DynamoDB does (its item operations answer "
                   "ResourceNotFoundException meanwhile; waiters and the console wait), "
                   "e.g. 500,500,500. Off by default: a table is ACTIVE at once.")
@click.option("--ttl-change-interval", default=3600.0, show_default=True, metavar="SECONDS",
              type=click.FloatRange(min=0),
              help="How long after a change of a table's TTL (UpdateTimeToLive) another is "
                   "refused, as DynamoDB refuses it: ValidationException \"Time to live has "
                   "been modified multiple times within a fixed interval\". 0 for tests that "
                   "turn TTL on and off at once.")
@click.option("--s3-endpoint", metavar="URL",
              help="Write exports to and read imports from this S3-compatible endpoint "
                   "(AWS S3, MinIO, LocalStack...), with boto3's credentials, or "
                   "$TALLYDB_S3_ACCESS_KEY_ID and $TALLYDB_S3_SECRET_ACCESS_KEY. Without it, "
                   "each bucket is a directory under --s3-root.")
@click.option("--s3-region", default="us-east-1", show_default=True,
              help="The region of --s3-endpoint.")
@click.option("--s3-root", type=click.Path(file_okay=False, path_type=Path),
              help="Without --s3-endpoint: the directory holding a directory per bucket, "
                   "objects at their keys' paths.  [default: s3/ in the data directory]")
@click.option("--kinesis-endpoint", metavar="URL",
              help="Send Kinesis streaming destinations' records to this Kinesis-compatible "
                   "endpoint (AWS, kinesalite, LocalStack), with boto3's credentials, or "
                   "$TALLYDB_KINESIS_ACCESS_KEY_ID and $TALLYDB_KINESIS_SECRET_ACCESS_KEY. "
                   "Without it, records wait in the data directory.")
@click.option("--kinesis-region", default="us-east-1", show_default=True,
              help="The region of --kinesis-endpoint.")
@click.option("--no-console", "no_console", is_flag=True,
              help="Do not serve the web console at /console.")
@click.option("--log-level", default="warning", show_default=True,
              type=click.Choice(["debug", "info", "warning", "error"]),
              help="How much the server logs to stderr.")
def serve(
    host: str,
    port: int,
    data: Path,
    in_memory: bool,
    sync: str,
    credentials: dict[str, Any],
    insecure_no_auth: bool,
    cors_origins: tuple[str, ...],
    tls_cert: Path | None,
    tls_key: Path | None,
    header_timeout: float,
    body_timeout: float,
    idle_timeout: float,
    max_connections: int,
    max_output_bytes: int,
    max_body_memory: int,
    log_requests: bool,
    commit_thread: bool | None,
    emulate_limits: bool,
    separate_regions: bool,
    replication_delay: float,
    table_delays: Any,
    ttl_change_interval: float,
    s3_endpoint: str | None,
    s3_region: str,
    s3_root: Path | None,
    kinesis_endpoint: str | None,
    kinesis_region: str,
    no_console: bool,
    log_level: str,
) -> None:
    """Serve DynamoDB's API over HTTP until SIGINT or SIGTERM.

    Once listening, prints to stdout
    "tallydb listening on http://HOST:PORT (data: DIR, sync: LEVEL)",
    then "console at http://HOST:PORT/console" (unless --no-console),
    then "Press Ctrl+C to stop.".

    A port in use is refused before anything is created, naming the
    process that holds it (PortInUseError, exit 3), as is a data directory
    another server holds (StoreInUseError, exit 3).
    """
    from tallydb.engine.storage import StoreInUseError, Sync
    from tallydb.server import Config, ConfigError, run
    from tallydb.server.limits import ConnectionLimits

    logging.basicConfig(level=log_level.upper(), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    config = Config(
        host=host,
        port=port,
        data=None if in_memory else data,
        sync=Sync(sync),
        credentials=credentials,
        cors_origins=cors_origins,
        insecure_no_auth=insecure_no_auth,
        tls_cert=tls_cert,
        tls_key=tls_key,
        log_requests=log_requests,
        limits=ConnectionLimits(
            header_timeout=header_timeout,
            body_timeout=body_timeout,
            idle_timeout=idle_timeout,
            max_connections=max_connections,
            max_output=max_output_bytes,
            max_body_memory=max_body_memory,
        ),
        commit_thread=commit_thread,
        emulate_limits=emulate_limits,
        separate_regions=separate_regions,
        replication_delay=replication_delay,
        table_delays=table_delays,
        ttl_change_interval=ttl_change_interval,
        s3_endpoint=s3_endpoint,
        s3_region=s3_region,
        s3_root=s3_root,
        kinesis_endpoint=kinesis_endpoint,
        kinesis_region=kinesis_region,
        console=not no_console,
    )

    try:
        config.check()
    except ConfigError as error:
        raise click.UsageError(str(error)) from None

    def announce(line: str) -> None:
        click.echo(line)
        if not config.console or line.startswith("console at"):  # the banner's last line
            click.echo("Press Ctrl+C to stop.")
        sys.stdout.flush()

    try:
        run(config, announce)
    except StoreInUseError:
        from tallydb.cli._store import in_use_message

        fail("StoreInUseError", in_use_message(data), EXIT_UNAVAILABLE)
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            fail("PortInUseError", _port_taken(host, port), EXIT_UNAVAILABLE)
        fail(type(error).__name__, str(error), EXIT_UNAVAILABLE)


def _port_taken(host: str, port: int) -> str:
    """What says ``serve``'s port is taken, by whom, and what to do."""
    from tallydb.cli._processes import port_holder

    holder = port_holder(port) or "another process"
    return (f"port {port} on {host} is in use by {holder}: stop it, or serve on another "
            f"port (--port {port + 1}; --port 0 picks a free one)")
