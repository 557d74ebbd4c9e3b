"""Where a command's store is: ``--data DIR`` (the embedded engine) or
``--endpoint URL`` (a running ``tallydb serve``, the default, or any
DynamoDB endpoint); and the one-line error when a data directory is taken."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

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


def holder_of(directory: Path) -> str | None:
    """Which process holds the lock on ``directory`` (Linux's /proc/locks):
    ``"process 1234 (tallydb serve --port 8000)"``, or None if unknown."""
    try:
        inode = (directory / "tallydb.lock").stat().st_ino
        locks = Path("/proc/locks").read_text()
    except OSError:
        return None
    for line in locks.splitlines():
        fields = line.split()
        # "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5].endswith(f":{inode}"):
            pid = fields[4]
            try:
                raw = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                return f"process {pid}"
            words = [w.decode(errors="replace") for w in raw.split(b"\0") if w]
            if words and Path(words[0]).name.startswith("python"):
                words = words[1:]
            if words[:2] == ["-m", "tallydb"]:
                words = ["tallydb", *words[2:]]
            elif words:
                words[0] = Path(words[0]).name
            return f"process {pid} ({' '.join(words)})"
    return None


def in_use_message(directory: Path) -> str:
    """The one line that says a data directory is taken, and by whom."""
    holder = holder_of(directory) or "another process"
    return f"the data directory {directory} is in use by {holder}"


def _from_environment(parameter: str) -> bool:
    context = click.get_current_context(silent=True)
    if context is None:
        return False
    return context.get_parameter_source(parameter) is click.core.ParameterSource.ENVIRONMENT


@contextlib.contextmanager
def database(data: Path | None, endpoint: str | None) -> Iterator[Database]:
    """The store a command works on, closed when it is done; any
    :class:`~tallydb.engine.errors.DynamoDBError` or unreachable endpoint becomes a
    one-line error."""
    from tallydb.engine.errors import DynamoDBError
    from tallydb.engine.storage.sqlite import StoreInUseError
    from tallydb.toolkit.database import connect
    from tallydb.toolkit.exceptions import TallyError, TransportError

    if data is not None and endpoint is not None:
        if _from_environment("endpoint"):
            endpoint = None  # an explicit --data wins over $TALLYDB_ENDPOINT
        else:
            raise click.UsageError("give --data or --endpoint, not both")
    try:
        db = connect(path=data) if data is not None else connect(endpoint or DEFAULT_ENDPOINT)
    except StoreInUseError:
        assert data is not None
        raise click.ClickException(
            in_use_message(data) + ": stop it, or use --endpoint to talk to it") from None
    try:
        yield db
    except DynamoDBError as error:
        raise click.ClickException(f"{error.code()}: {error}") from None
    except TransportError as error:
        where = endpoint or os.environ.get("TALLYDB_ENDPOINT") or DEFAULT_ENDPOINT
        raise click.ClickException(
            f"cannot reach {where} ({error}); start `tallydb serve`, or use --data DIR"
        ) from None
    except TallyError as error:  # the toolkit's own: a counter's bound, say
        raise click.ClickException(f"{type(error).__name__}: {error}") from None
    finally:
        db.close()
