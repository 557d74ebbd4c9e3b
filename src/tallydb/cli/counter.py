"""The atomic counter from a shell: ``tallydb counter add`` and ``counter get``."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from pathlib import Path

import click

from tallydb.cli._output import parse_json_object, value_format_option, value_line
from tallydb.cli._store import database, store_options


def _number(_ctx: click.Context, _param: click.Parameter, value: str) -> int | Decimal:
    try:
        number = Decimal(value)
    except InvalidOperation:
        raise click.BadParameter(f"{value!r} is not a number") from None
    if not number.is_finite():
        raise click.BadParameter(f"{value!r} is not a number")
    return int(number) if number == number.to_integral_value() else number


@click.group()
def counter() -> None:
    """Add to and read an item's numeric attribute atomically (UpdateItem ADD).

    \b
    Example:
        tallydb counter add videos '{"PK": "VID#9f3a", "SK": "STATS#TOTAL"}' play_count
    """


@counter.command(context_settings={"ignore_unknown_options": True})  # N may be -2
@click.argument("table")
@click.argument("key")
@click.argument("attribute")
@click.argument("n", default="1", callback=_number)
@click.option("--idempotency-key", metavar="K",
              help="Add at most once for K (within a day): a retry with the same K "
                   "changes nothing and prints the same value.")
@value_format_option
@store_options
def add(
    table: str, key: str, attribute: str, n: int | Decimal, idempotency_key: str | None,
    format: str, data: Path | None, endpoint: str | None,
) -> None:
    """Add N (default 1; negative to subtract) to ATTRIBUTE of the item with
    KEY (a JSON object) in TABLE, and print the new value.

    The item and the attribute are created if missing (starting from 0).

    \b
    Example:
        tallydb counter add videos '{"PK": "VID#9f3a", "SK": "STATS#TOTAL"}' play_count 5
    """
    from tallydb.toolkit.counters import Counter

    parsed = parse_json_object(key, "KEY")
    with database(data, endpoint, table) as db:
        plays = Counter(db.table(table), parsed, attribute)
        click.echo(value_line(plays.add(n, idempotency_key=idempotency_key), format))


@counter.command("get")
@click.argument("table")
@click.argument("key")
@click.argument("attribute")
@value_format_option
@store_options
def get_(
    table: str, key: str, attribute: str, format: str, data: Path | None, endpoint: str | None
) -> None:
    """Print ATTRIBUTE of the item with KEY in TABLE, as JSON (0 if never
    set); a strongly consistent read.

    \b
    Example:
        tallydb counter get videos '{"PK": "VID#9f3a", "SK": "STATS#TOTAL"}' play_count
    """
    from tallydb.toolkit.counters import Counter

    parsed = parse_json_object(key, "KEY")
    with database(data, endpoint, table) as db:
        click.echo(value_line(Counter(db.table(table), parsed, attribute).value(), format))
