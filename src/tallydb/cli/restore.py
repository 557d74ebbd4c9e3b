"""``tallydb restore``: a table as it was at a moment, under a new name
(RestoreTableToPointInTime)."""

from __future__ import annotations

import datetime
import re
import time
from pathlib import Path

import click

from tallydb.cli._store import database, store_options

#: "10m ago"-style times: a number and a unit.
_AGO = re.compile(r"^(\d+(?:\.\d+)?)\s*(s|m|h|d)\s+ago$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def _moment(_ctx: click.Context, _param: click.Parameter, value: str) -> float | None:
    """``latest``, epoch seconds, ISO 8601 (naive: local time) or ``N{s,m,h,d} ago``."""
    text = value.strip()
    if text == "latest":
        return None
    ago = _AGO.match(text)
    if ago:
        return time.time() - float(ago.group(1)) * _UNITS[ago.group(2)]
    try:
        return float(text)
    except ValueError:
        pass
    try:
        return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        raise click.BadParameter(
            f"{value!r} is not a time: give ISO 8601 (2026-05-01T12:00:00Z), epoch seconds, "
            "'10m ago' or 'latest'") from None


@click.command()
@click.argument("table")
@click.option("--to-time", "to_time", required=True, callback=_moment, metavar="TIME",
              help="The moment to restore: ISO 8601 (a time without a zone is local), "
                   "epoch seconds, 'N{s,m,h,d} ago', or 'latest'. Counted to the second.")
@click.option("--as", "target", required=True, metavar="NEW",
              help="The name of the new table (it must not exist).")
@store_options
def restore(table: str, to_time: float | None, target: str, data: Path | None,
            endpoint: str | None) -> None:
    """Make a new table NEW holding TABLE's items (and indexes) as they were
    at --to-time. TABLE needs point-in-time recovery on
    (UpdateContinuousBackups); the time must be within its recovery window.

    \b
    Example:
        tallydb restore videos --to-time 2026-05-01T12:00:00Z --as videos_before
    """
    with database(data, endpoint) as db:
        db.restore_table(table, target, at=to_time)
        count = db.client.describe_table(TableName=target)["Table"]["ItemCount"]
    when = "the latest restorable time" if to_time is None else time.strftime(
        "%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(to_time)))
    click.echo(f"restored {table} as of {when} into {target} ({count} items)")
