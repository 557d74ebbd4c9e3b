"""``tallydb export`` and ``tallydb import``: a table to files and back
(:mod:`tallydb.transfer`), with a progress bar."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import click

from tallydb.cli._errors import fail
from tallydb.cli._store import database, store_options
from tallydb.transfer import FORMATS, Format, TransferError, parse_key_spec


@contextlib.contextmanager
def _progress(what: str, total: int | None, quiet: bool) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr (none when it is not a terminal, or with
    --quiet); yields the function to call with the count so far."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    console = Console(stderr=True)
    bar = Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
        TimeElapsedColumn(), TimeRemainingColumn(),
        console=console, disable=quiet or not console.is_terminal, transient=False,
    )
    with bar:
        task = bar.add_task(what, total=total or None)

        def update(done: int) -> None:
            bar.update(task, completed=done)

        yield update


def _quiet_option(command: Callable[..., None]) -> Callable[..., None]:
    return click.option("--quiet", "-q", is_flag=True,
                        help="No progress bar and no summary line.")(command)


@click.command()
@click.argument("table")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--format", "format", type=click.Choice(FORMATS), default="dynamodb",
              show_default=True,
              help="dynamodb: DynamoDB's S3 export layout (gzip files of DynamoDB JSON "
                   "and the manifests), exact for every type and what `aws dynamodb "
                   "import-table` reads; jsonl: items.jsonl of plain JSON; csv: items.csv.")
@_quiet_option
@store_options
def export(
    table: str, directory: Path, format: Format, quiet: bool, data: Path | None,
    endpoint: str | None,
) -> None:
    """Write every item of TABLE to files under DIRECTORY, with the table's
    description beside them.

    \b
    Example:
        tallydb export videos ./videos-export --data ./tallydb-data
        aws s3 sync ./videos-export s3://my-bucket/videos/
    """
    from tallydb.transfer import export_table

    with database(data, endpoint, table) as db:
        total = db.table(table).describe().get("ItemCount")
        try:
            with _progress(f"export {table}", total, quiet) as progress:
                folder = export_table(db, table, directory, format=format, progress=progress)
        except TransferError as error:
            fail("TransferError", f"table {table!r}: {error}")
    if not quiet:
        click.echo(f"exported {table} to {folder}", err=True)


@click.command("import")
@click.argument("directory", type=click.Path(exists=True, path_type=Path))
@click.argument("table")
@click.option("--format", "format", type=click.Choice(FORMATS),
              help="What DIRECTORY holds (found out by default).")
@click.option("--hash-key", metavar="NAME[:TYPE]",
              help="Create TABLE with this partition key (TYPE S, N or B; default S) "
                   "rather than as the export's table-description.json says; needed "
                   "for an export made by AWS.")
@click.option("--range-key", metavar="NAME[:TYPE]",
              help="The sort key of the table --hash-key creates.")
@_quiet_option
@store_options
def import_(
    directory: Path, table: str, format: Format | None, hash_key: str | None,
    range_key: str | None, quiet: bool, data: Path | None, endpoint: str | None,
) -> None:
    """Put every item of an export (DIRECTORY, or a .jsonl or .csv file) into
    TABLE, creating TABLE if it does not exist.

    DIRECTORY is what `tallydb export` wrote, or an export of Amazon
    DynamoDB copied from S3 (`aws s3 sync s3://bucket/prefix/AWSDynamoDB/ID DIR`).

    \b
    Example:
        tallydb import ./videos-export videos2 --data ./tallydb-data
        tallydb import ./prod-export videos --hash-key PK:S --range-key SK:S
    """
    from tallydb.transfer import expected_items, import_table

    try:
        keys = (parse_key_spec(hash_key) if hash_key else None,
                parse_key_spec(range_key) if range_key else None)
    except TransferError as error:
        raise click.BadParameter(str(error)) from None
    if keys[1] is not None and keys[0] is None:
        raise click.UsageError("--range-key needs --hash-key")
    with database(data, endpoint, table) as db:
        try:
            with _progress(f"import {table}", expected_items(directory), quiet) as progress:
                count = import_table(db, directory, table, format=format, hash_key=keys[0],
                                     range_key=keys[1], progress=progress)
        except TransferError as error:
            fail("TransferError", f"table {table!r}: {error}")
    if not quiet:
        click.echo(f"imported {count} items into {table}", err=True)
    sys.stdout.flush()
