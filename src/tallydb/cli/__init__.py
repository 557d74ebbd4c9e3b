"""The ``tallydb`` command: a thin layer of click commands over the library.

``serve`` runs the server; the other commands open a store (a server's
endpoint, or a data directory) with :func:`tallydb.cli._store.database` and
call the toolkit. Every failure is one line (:mod:`tallydb.cli._errors`).
"""

from __future__ import annotations

import importlib

import click

from tallydb.cli._errors import Group
from tallydb.engine.version import __version__, build_form

__all__ = ["main"]

#: Each command's module and name there, by command name: a module is
#: imported when its command runs (or help lists it), so that ``serve`` does
#: not load what only the other commands use (the toolkit, the transfer
#: formats, botocore's HTTP client): less for a server to start.
COMMANDS = {
    "serve": ("serve", "serve"),
    "tables": ("items", "tables"),
    "create-table": ("table_lifecycle", "create_table"),
    "delete-table": ("table_lifecycle", "delete_table"),
    "describe": ("items", "describe"),
    "scan": ("items", "scan"),
    "query": ("items", "query"),
    "get": ("items", "get"),
    "put": ("items", "put"),
    "delete": ("items", "delete"),
    "counter": ("counter", "counter"),
    "export": ("transfer", "export"),
    "import": ("transfer", "import_"),
    "restore": ("restore", "restore"),
    "reset": ("reset", "reset"),
}


class _Commands(Group):
    """The ``tallydb`` group, each command imported on first use (``COMMANDS``)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        where = COMMANDS.get(cmd_name)
        if where is None:
            return None
        command = getattr(importlib.import_module(f"tallydb.cli.{where[0]}"), where[1])
        assert isinstance(command, click.Command)
        return command


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(
    __version__, prog_name="tallydb", message=f"%(prog)s, version %(version)s ({build_form()})")
def main() -> None:
    """tallydb: a local, DynamoDB-compatible store built for atomic counters.

    A failure prints one line, "tallydb: <Exception>: <message>", and exits
    1 (the store refused the request), 2 (the command line is wrong) or 3
    (the store could not be reached or opened).
    """
