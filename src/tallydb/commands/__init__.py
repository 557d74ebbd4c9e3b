"""The ``tallydb`` commands beyond ``serve``: each opens a store with
:func:`~tallydb.commands._store.database` and calls the toolkit.

``register(main)`` adds them to the ``tallydb`` group (``tallydb.cli``).
"""

from __future__ import annotations

import click

from tallydb.commands.counter import counter
from tallydb.commands.items import delete, describe, get, put, query, scan, tables
from tallydb.commands.reset import reset
from tallydb.commands.transfer import export, import_

__all__ = ["register"]


def register(group: click.Group) -> None:
    """Add every command of this package to ``group``."""
    for command in (tables, describe, scan, query, get, put, delete, counter, export, import_,
                    reset):
        group.add_command(command)
