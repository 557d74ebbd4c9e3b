"""Where a command's store is: ``--data DIR`` (the embedded engine) or
``--endpoint URL`` (a running ``tallydb serve``, the default, or any
DynamoDB endpoint); and how a command's failures read (one line naming the
table, see :mod:`tallydb.cli._errors`)."""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from tallydb.cli._errors import EXIT_UNAVAILABLE, fail
from tallydb.cli._processes import lock_holder

if TYPE_CHECKING:
    from tallydb.toolkit.database import Database

F = TypeVar("F", bound=Callable[..., Any])

DEFAULT_ENDPOINT = "http://127.0.0.1:8000"


def store_options(command: F) -> F:
    """``--data`` and ``--endpoint``, passed to the command as ``store``."""
    command = click.option(
        "--endpoint", metavar="URL", envvar="TALLYDB_ENDPOINT",
        help=f"A running server to talk to (default {DEFAULT_ENDPOINT}, or $TALLYDB_ENDPOINT).",
    )(command)
    command = click.option(
        "--data", metavar="DIR", envvar="TALLYDB_DATA",
        type=click.Path(file_okay=False, path_type=Path),
        help="Open this data directory in-process instead of talking to a server "
             "(it must not be in use by a running server).",
    )(command)
    return command


def in_use_message(directory: Path) -> str:
    """What says a data directory is taken, and by whom."""
    holder = lock_holder(directory / "tallydb.lock") or "another process"
    return f"the data directory {directory} is in use by {holder}"


def _from_environment(parameter: str) -> bool:
    context = click.get_current_context(silent=True)
    if context is None:
        return False
    return context.get_parameter_source(parameter) is click.core.ParameterSource.ENVIRONMENT


@contextlib.contextmanager
def database(
    data: Path | None, endpoint: str | None, table: str | None = None
) -> Iterator[Database]:
    """The store a command works on, closed when it is done. A failure is
    one line naming ``table`` (:mod:`tallydb.cli._errors`): a DynamoDB error
    or the toolkit's exits 1, an endpoint that cannot be reached or a data
    directory in use 3."""
    from tallydb.engine.errors import DynamoDBError
    from tallydb.engine.storage.ownership import StoreInUseError
    from tallydb.toolkit.database import connect
    from tallydb.toolkit.exceptions import ConditionRefused, TallyError, TransportError

    if data is not None and endpoint is not None:
        if _from_environment("endpoint"):
            endpoint = None  # an explicit --data wins over $TALLYDB_ENDPOINT
        else:
            raise click.UsageError("give --data or --endpoint, not both")
    try:
        db = connect(path=data) if data is not None else connect(endpoint or DEFAULT_ENDPOINT)
    except StoreInUseError:
        assert data is not None
        fail("StoreInUseError",
             in_use_message(data) + ": stop it, or use --endpoint to talk to it",
             EXIT_UNAVAILABLE)
    try:
        yield db
    except ConditionRefused as error:  # the toolkit's: a counter's bound, say
        fail(type(error).__name__, _about(table, error.explanation or str(error)))
    except DynamoDBError as error:
        message = str(error.message or error.code())
        if table is not None and error.message == KEY_MISMATCH:
            message += _key_of(db, table)
        fail(error.code(), _about(table, message))
    except TransportError as error:
        where = endpoint or os.environ.get("TALLYDB_ENDPOINT") or DEFAULT_ENDPOINT
        fail("TransportError",
             f"cannot reach {where} ({error}); start `tallydb serve`, or use --data DIR",
             EXIT_UNAVAILABLE)
    except TallyError as error:  # the toolkit's own: a counter's bound, say
        fail(type(error).__name__, _about(table, str(error)))
    finally:
        db.close()


#: DynamoDB's message for a key that is not the table's.
KEY_MISMATCH = "The provided key element does not match the schema"


def _about(table: str | None, message: str) -> str:
    """``message``, naming the table the command was about (unless it does)."""
    if table is None or re.search(rf"(?<![\w.-]){re.escape(table)}(?![\w.-])", message):
        return message
    return f"table {table!r}: {message}"


def _key_of(db: Database, table: str) -> str:
    """``" (the key of 'videos' is PK (S), SK (S))"``, or nothing if it cannot be read."""
    from tallydb.engine.errors import DynamoDBError
    from tallydb.toolkit.exceptions import TallyError

    try:
        schema = db.table(table).schema
    except (DynamoDBError, TallyError):
        return ""
    shown = f"{schema.hash_key} ({schema.hash_type})"
    if schema.range_key is not None:
        shown += f", {schema.range_key} ({schema.range_type})"
    return f"; its key is {shown}"
