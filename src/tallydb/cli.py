"""The ``tallydb`` command: a thin layer of click commands over the library."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import click

from tallydb import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="tallydb")
def main() -> None:
    """tallydb: a local, DynamoDB-compatible store built for atomic counters."""


def _credentials(
    _ctx: click.Context, _param: click.Parameter, value: tuple[str, ...]
) -> dict[str, str]:
    from tallydb.server.auth import parse_credentials

    try:
        return parse_credentials(value)
    except ValueError as error:
        raise click.BadParameter(str(error)) from None


@main.command()
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
@click.option("--credentials", "credentials", multiple=True, metavar="ACCESS_KEY:SECRET",
              callback=_credentials,
              help="Require SigV4 signatures by this key (repeatable). Without it any "
                   "request is accepted, signed or not, as DynamoDB Local does.")
@click.option("--commit-thread/--no-commit-thread", default=None,
              help="Run each group commit on a worker thread while the event loop reads the "
                   "next batch. Default: only with --sync full, whose COMMIT waits for fsync.")
@click.option("--emulate-limits", is_flag=True,
              help="Throttle as DynamoDB does: 1,000 write and 3,000 read units a second per "
                   "partition key, and a PROVISIONED table's own throughput (with 300 s of "
                   "burst).")
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
    credentials: dict[str, str],
    commit_thread: bool | None,
    emulate_limits: bool,
    no_console: bool,
    log_level: str,
) -> None:
    """Serve DynamoDB's API over HTTP until SIGINT or SIGTERM.

    Once listening, prints to stdout
    "tallydb listening on http://HOST:PORT (data: DIR, sync: LEVEL)",
    then "console at http://HOST:PORT/console" (unless --no-console),
    then "Press Ctrl+C to stop.".
    """
    from tallydb.server import Config, run
    from tallydb.storage import StoreInUseError, Sync

    logging.basicConfig(level=log_level.upper(), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    config = Config(
        host=host,
        port=port,
        data=None if in_memory else data,
        sync=Sync(sync),
        credentials=credentials,
        commit_thread=commit_thread,
        emulate_limits=emulate_limits,
        console=not no_console,
    )

    def announce(line: str) -> None:
        click.echo(line)
        if not config.console or line.startswith("console at"):  # the banner's last line
            click.echo("Press Ctrl+C to stop.")
        sys.stdout.flush()

    try:
        run(config, announce)
    except OSError as error:
        raise click.ClickException(str(error)) from None
    except StoreInUseError:
        from tallydb.commands._store import in_use_message

        raise click.ClickException(in_use_message(data)) from None


def _register_commands() -> None:
    from tallydb.commands import register

    register(main)


_register_commands()
