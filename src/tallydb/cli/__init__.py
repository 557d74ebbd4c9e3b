"""The ``tallydb`` command: a thin layer of click commands over the library.

``serve`` runs the server; the other commands open a store (a server's
endpoint, or a data directory) with :func:`tallydb.cli._store.database` and
call the toolkit. Every failure is one line (:mod:`tallydb.cli._errors`).
"""

from __future__ import annotations

import click

from tallydb.cli._errors import Group
from tallydb.cli.counter import counter
from tallydb.cli.items import delete, describe, get, put, query, scan, tables
from tallydb.cli.reset import reset
from tallydb.cli.restore import restore
from tallydb.cli.serve import serve
from tallydb.cli.table_lifecycle import create_table, delete_table
from tallydb.cli.transfer import export, import_
from tallydb.engine.version import __version__

__all__ = ["main"]


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="tallydb")
def main() -> None:
    """tallydb: a local, DynamoDB-compatible store built for atomic counters.

    A failure prints one line, "tallydb: <Exception>: <message>", and exits
    1 (the store refused the request), 2 (the command line is wrong) or 3
    (the store could not be reached or opened).
    """


for _command in (serve, tables, create_table, delete_table, describe, scan, query, get, put,
                 delete, counter, export, import_, restore, reset):
    main.add_command(_command)
