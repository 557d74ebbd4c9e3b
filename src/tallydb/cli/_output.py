"""How commands print items and values: plain JSON lines (the default),
DynamoDB JSON lines, or a table for people; sets always in order."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from typing import Any, TypeVar

import click

from tallydb.toolkit.convert import item_to_wire, json_shape, to_wire
from tallydb.transfer import jsonable

F = TypeVar("F", bound=Callable[..., Any])

ITEM_FORMATS = ("json", "dynamodb", "table")


def format_option(command: F) -> F:
    """``--format json|dynamodb|table``, passed to the command as ``format``."""
    return click.option(
        "--format", "format", type=click.Choice(ITEM_FORMATS), default="json",
        show_default=True,
        help="json: one plain JSON object per line; dynamodb: one item per line in "
             'DynamoDB JSON ({"N": "5"}), exact for every type; table: columns for people.',
    )(command)


def parse_json_object(text: str, what: str) -> dict[str, Any]:
    """A command-line argument that is a JSON object, e.g. a key."""
    try:
        value = json.loads(text, parse_float=Decimal)
    except json.JSONDecodeError as error:
        raise click.BadParameter(f"{what} is not JSON ({error}): {text}") from None
    if not isinstance(value, dict):
        raise click.BadParameter(f"{what} is a JSON object, like '{{\"PK\": \"a\"}}': {text}")
    return value


def item_line(item: Mapping[str, Any], format: str) -> str:
    """One item (plain Python values) as a line of output: plain JSON, or
    with ``format="dynamodb"`` DynamoDB's JSON; sets as sorted lists."""
    if format == "dynamodb":
        wire = json_shape(item_to_wire(item))
        return json.dumps({k: _ordered(v) for k, v in wire.items()}, ensure_ascii=False)
    return json.dumps(jsonable(item), ensure_ascii=False)


def value_line(value: Any, format: str) -> str:
    """One attribute's value (a plain Python value) as a line of output:
    JSON (a set as a sorted list), or with ``format="dynamodb"`` DynamoDB's
    JSON, which says its type (``{"SS": ["x", "y"]}``, ``{"N": "6"}``)."""
    if format == "dynamodb":
        return json.dumps(_ordered(json_shape(to_wire(value))), ensure_ascii=False)
    return json.dumps(jsonable(value), ensure_ascii=False)


def _ordered(wire: Mapping[str, Any]) -> Any:
    """A value in DynamoDB's JSON with its sets (and sets inside it) sorted."""
    ((kind, inner),) = wire.items()
    if kind == "SS":
        return {kind: sorted(inner)}
    if kind == "NS":
        return {kind: sorted(inner, key=Decimal)}
    if kind == "BS":
        return {kind: sorted(inner, key=base64.b64decode)}
    if kind == "M":
        return {kind: {k: _ordered(v) for k, v in inner.items()}}
    if kind == "L":
        return {kind: [_ordered(v) for v in inner]}
    return wire


def value_format_option(command: F) -> F:
    """``--format json|dynamodb`` for a command that prints one value."""
    return click.option(
        "--format", "format", type=click.Choice(("json", "dynamodb")), default="json",
        show_default=True,
        help='json: the value as JSON (a set as a sorted list); dynamodb: DynamoDB JSON, '
             'which also says its type ({"N": "6"}, {"SS": ["x", "y"]}).',
    )(command)


def echo_items(items: Iterable[Mapping[str, Any]], format: str) -> int:
    """Print items as ``format`` asks; how many there were."""
    if format != "table":
        count = 0
        for item in items:
            click.echo(item_line(item, format))
            count += 1
        return count
    rows = [jsonable(item) for item in items]
    columns: dict[str, None] = {}
    for row in rows:
        columns.update(dict.fromkeys(row))
    echo_table(list(columns), [[_text(row.get(c)) for c in columns] for row in rows])
    return len(rows)


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def echo_table(columns: list[str], rows: list[list[str]]) -> None:
    """Rows under a header, with rich."""
    from rich.console import Console
    from rich.table import Table

    table = Table(*columns, box=None, header_style="bold")
    for row in rows:
        table.add_row(*row)
    Console(soft_wrap=True).print(table)
