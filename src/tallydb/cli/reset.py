"""``tallydb reset``: empty a data directory."""

from __future__ import annotations

from pathlib import Path

import click

from tallydb.cli._errors import EXIT_UNAVAILABLE, fail
from tallydb.cli._store import in_use_message

#: What a store keeps in its data directory: the database, its WAL, the item
#: log and the lock file.
STORE_FILES = "tallydb.*"


@click.command()
@click.option("--data", "data", default="./tallydb-data", show_default=True,
              type=click.Path(file_okay=False, path_type=Path),
              help="The data directory to empty.")
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
def reset(data: Path, yes: bool) -> None:
    """Delete every table, item and backup in a data directory (after asking).

    The directory must not be in use: stop `tallydb serve` first.

    \b
    Example:
        tallydb reset --data ./tallydb-data
    """
    from tallydb.engine.storage import Store, StoreInUseError

    files = sorted(data.glob(STORE_FILES)) if data.is_dir() else []
    if not files:
        click.echo(f"{data} holds no tallydb data: nothing to do")
        return
    try:
        Store(str(data)).close()  # takes the directory's lock, so no server holds it
    except StoreInUseError:
        fail("StoreInUseError", in_use_message(data) + ": stop it first", EXIT_UNAVAILABLE)
    if not yes:
        click.confirm(f"Delete every table, item and backup in {data}?", abort=True)
    for path in sorted(data.glob(STORE_FILES)):
        path.unlink()
    click.echo(f"emptied {data}")
