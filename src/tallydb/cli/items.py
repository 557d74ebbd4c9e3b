"""Tables and items from a shell: tables, describe, scan, query, get, put, delete."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from tallydb.cli._errors import fail
from tallydb.cli._output import (
    echo_items,
    echo_table,
    format_option,
    item_line,
    parse_json_object,
)
from tallydb.cli._store import database, store_options


def _expression_options(command: Any) -> Any:
    command = click.option(
        "--values", "values", metavar="JSON",
        help='The expression\'s values as a JSON object of plain values: \'{":n": 10}\'.',
    )(command)
    command = click.option(
        "--names", "names", metavar="JSON",
        help='The expression\'s names as a JSON object: \'{"#s": "status"}\'.',
    )(command)
    command = click.option(
        "--filter", "filter_", metavar="EXPRESSION",
        help="A FilterExpression: only matching items are printed.",
    )(command)
    command = click.option("--limit", type=click.IntRange(min=1),
                           help="Print at most this many items.")(command)
    command = click.option("--index", metavar="NAME",
                           help="Read this secondary index instead of the table.")(command)
    return command


def _names_values(names: str | None, values: str | None) -> dict[str, Any]:
    return {
        "names": parse_json_object(names, "--names") if names else None,
        "values": parse_json_object(values, "--values") if values else None,
    }


@click.command()
@click.option("--format", "format", type=click.Choice(("json", "table")), default="json",
              show_default=True,
              help="json: one JSON object per table and line; table: columns for people.")
@store_options
def tables(format: str, data: Path | None, endpoint: str | None) -> None:
    """List the tables: name, key, item count and size.

    \b
    Example:
        tallydb tables --data ./tallydb-data
    """
    with database(data, endpoint) as db:
        rows = []
        for name in db.list_tables():
            table = db.table(name).describe()
            types = {a["AttributeName"]: a["AttributeType"] for a in table["AttributeDefinitions"]}
            key = ", ".join(
                f"{k['AttributeName']} ({types[k['AttributeName']]}, {k['KeyType']})"
                for k in table["KeySchema"]
            )
            rows.append({"name": name, "key": key, "items": table.get("ItemCount", 0),
                         "bytes": table.get("TableSizeBytes", 0)})
    if format == "table":
        echo_table(["name", "key", "items", "bytes"],
                   [[r["name"], r["key"], str(r["items"]), str(r["bytes"])] for r in rows])
    else:
        for row in rows:
            click.echo(json.dumps(row))


@click.command()
@click.argument("table")
@store_options
def describe(table: str, data: Path | None, endpoint: str | None) -> None:
    """Print TABLE's description (the Table of DescribeTable's answer), as JSON.

    \b
    Example:
        tallydb describe videos
    """
    with database(data, endpoint, table) as db:
        answer = db.table(table).describe()
    click.echo(json.dumps(answer, indent=2, default=str))


@click.command()
@click.argument("table")
@_expression_options
@format_option
@store_options
def scan(
    table: str, filter_: str | None, names: str | None, values: str | None, limit: int | None,
    index: str | None, format: str, data: Path | None, endpoint: str | None,
) -> None:
    """Print every item of TABLE (every page of a Scan).

    \b
    Example:
        tallydb scan videos --filter "play_count > :n" --values '{":n": 100}' --limit 10
    """
    with database(data, endpoint, table) as db:
        items = db.table(table).scan(
            filter_, index=index, limit=limit, **_names_values(names, values))
        echo_items(items, format)


@click.command()
@click.argument("table")
@click.argument("key")
@click.option("--begins-with", metavar="PREFIX",
              help="Only items whose sort key begins with PREFIX.")
@click.option("--reverse", is_flag=True, help="Descending sort-key order.")
@_expression_options
@format_option
@store_options
def query(
    table: str, key: str, begins_with: str | None, reverse: bool, filter_: str | None,
    names: str | None, values: str | None, limit: int | None, index: str | None, format: str,
    data: Path | None, endpoint: str | None,
) -> None:
    """Print the items of one partition of TABLE, in sort-key order.

    KEY is a JSON object with the partition key (and, to pin one item, the
    sort key).

    \b
    Example:
        tallydb query videos '{"PK": "VID#9f3a"}' --begins-with "STATS#"
    """
    from tallydb.toolkit.conditions import Path as AttributePath

    parsed = parse_json_object(key, "KEY")
    with database(data, endpoint, table) as db:
        target = db.table(table)
        condition = None
        for name, value in parsed.items():
            part = AttributePath(name) == value
            condition = part if condition is None else condition & part
        if condition is None:
            raise click.BadParameter("KEY names the partition key: '{\"PK\": \"a\"}'")
        if begins_with is not None:
            schema = target.schema
            if index is not None or schema.range_key is None:
                raise click.UsageError("--begins-with needs the table's sort key")
            if schema.range_type == "N":
                raise click.UsageError(f"--begins-with needs a String or Binary sort key; "
                                       f"{schema.range_key} is a Number")
            condition = condition & AttributePath(schema.range_key).begins_with(begins_with)
        items = target.query(condition, filter=filter_, index=index, limit=limit,
                             reverse=reverse, **_names_values(names, values))
        echo_items(items, format)


@click.command()
@click.argument("table")
@click.argument("key")
@click.option("--consistent", is_flag=True, help="A strongly consistent read.")
@format_option
@store_options
def get(
    table: str, key: str, consistent: bool, format: str, data: Path | None, endpoint: str | None
) -> None:
    """Print the item of TABLE with KEY (a JSON object); if there is none,
    print nothing on standard output and exit 1 (ItemNotFoundError).

    \b
    Example:
        tallydb get videos '{"PK": "VID#9f3a", "SK": "STATS#TOTAL"}'
    """
    parsed = parse_json_object(key, "KEY")
    with database(data, endpoint, table) as db:
        item = db.table(table).get(parsed, consistent=consistent)
    if item is None:
        fail("ItemNotFoundError", f"table {table!r} has no item with key {key}")
    echo_items([item], format)


def _read_items(argument: str, dynamodb_json: bool) -> list[dict[str, Any]]:
    from tallydb.toolkit.convert import item_from_wire, python_shape

    lines = sys.stdin.read().splitlines() if argument == "-" else [argument]
    items = [parse_json_object(line, "ITEM") for line in lines if line.strip()]
    if not dynamodb_json:
        return items
    try:
        return [item_from_wire(python_shape(item)) for item in items]
    except (AttributeError, TypeError, ValueError, KeyError) as error:
        raise click.BadParameter(
            f'ITEM is not in DynamoDB JSON ({{"PK": {{"S": "a"}}}}): {error}') from None


@click.command()
@click.argument("table")
@click.argument("item")
@click.option("--dynamodb-json", is_flag=True,
              help='ITEM is in DynamoDB JSON ({"N": "5"}), to give sets and binary values.')
@store_options
def put(
    table: str, item: str, dynamodb_json: bool, data: Path | None, endpoint: str | None
) -> None:
    """Write ITEM (a JSON object) to TABLE, replacing any item with its key.

    ITEM "-" reads one item per line from standard input.

    \b
    Example:
        tallydb put videos '{"PK": "VID#9f3a", "SK": "META", "title": "Cats"}'
    """
    items = _read_items(item, dynamodb_json)
    with database(data, endpoint, table) as db:
        target = db.table(table)
        for one in items:
            target.put(one)


@click.command()
@click.argument("table")
@click.argument("key")
@click.option("--print-old", is_flag=True, help="Print the item as it was before the delete.")
@store_options
def delete(
    table: str, key: str, print_old: bool, data: Path | None, endpoint: str | None
) -> None:
    """Delete the item of TABLE with KEY (a JSON object); nothing if there is none.

    \b
    Example:
        tallydb delete videos '{"PK": "VID#9f3a", "SK": "META"}'
    """
    parsed = parse_json_object(key, "KEY")
    with database(data, endpoint, table) as db:
        old = db.table(table).delete(parsed, return_values="ALL_OLD" if print_old else "NONE")
    if print_old and old:
        click.echo(item_line(old, "json"))
