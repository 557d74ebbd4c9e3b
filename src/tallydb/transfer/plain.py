"""Plain JSON lines and CSV, for tools that don't read DynamoDB's JSON.

They are not exact: sets become lists, binary values base64 text, and a
fraction beyond a float's precision loses digits. On import a CSV cell is a
string, but for key attributes, typed by the table's schema.
"""

from __future__ import annotations

import base64
import csv
import json
import tempfile
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from tallydb.toolkit.convert import from_wire, json_shape, python_shape, to_wire
from tallydb.transfer.errors import Progress, TransferError
from tallydb.transfer.items import pages

if TYPE_CHECKING:
    from tallydb.toolkit.database import Database
    from tallydb.toolkit.table import KeySchema

__all__ = [
    "CSV_FILE",
    "JSONL_FILE",
    "export_csv",
    "export_jsonl",
    "jsonable",
    "plain_item",
    "read_csv",
    "read_jsonl",
]

JSONL_FILE = "items.jsonl"
CSV_FILE = "items.csv"


def _plain(wire: dict[str, Any]) -> Any:
    """A value in DynamoDB's JSON as a plain JSON value."""
    return jsonable(from_wire(python_shape(wire)))


def jsonable(value: Any) -> Any:
    """A plain Python value (the toolkit's) as JSON can hold it: sets as
    sorted lists, bytes as base64 text, fractions as floats (see the module's
    docstring for what does not come back)."""
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, set | frozenset):  # one type: strings, numbers or bytes
        return [jsonable(v) for v in sorted(value)]
    if isinstance(value, list):
        return [jsonable(v) for v in value]
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, Decimal):
        return float(value)
    return value


def plain_item(wire_item: dict[str, Any]) -> dict[str, Any]:
    """An item in DynamoDB's JSON as plain JSON values."""
    return {name: _plain(value) for name, value in wire_item.items()}


def export_jsonl(db: Database, table: str, path: Path, progress: Progress) -> None:
    total = 0
    with path.open("w", encoding="utf-8") as out:
        for page in pages(db, table):
            out.writelines(json.dumps(plain_item(item)) + "\n" for item in page)
            total += len(page)
            progress(total)


def _cell(wire: dict[str, Any]) -> str:
    ((kind, value),) = wire.items()
    if kind in ("S", "N"):
        return str(value)
    if kind == "B":
        return str(value)  # base64 text already
    if kind == "BOOL":
        return "true" if value else "false"
    if kind == "NULL":
        return ""
    return json.dumps(_plain(wire))


def export_csv(
    db: Database, description: dict[str, Any], path: Path, progress: Progress
) -> None:
    """Two passes over a temporary file: the header needs every attribute name."""
    from tallydb.toolkit.table import KeySchema

    schema = KeySchema.from_description(description)
    columns: dict[str, None] = dict.fromkeys(schema.names)
    total = 0
    with tempfile.TemporaryFile() as spool:
        for page in pages(db, description["TableName"]):
            for item in page:
                columns.update(dict.fromkeys(item))
                spool.write(orjson.dumps(item) + b"\n")
            total += len(page)
            progress(total)
        spool.seek(0)
        with path.open("w", encoding="utf-8", newline="") as out:
            writer = csv.writer(out)
            writer.writerow(columns)
            for line in spool:
                item = orjson.loads(line)
                writer.writerow(_cell(item[c]) if c in item else "" for c in columns)


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            value = json.loads(line, parse_float=Decimal)
            if not isinstance(value, dict):
                raise TransferError(f"{path}:{number}: a line is one JSON object (an item)")
            yield json_shape({k: to_wire(v) for k, v in value.items()})


def read_csv(path: Path, schema: KeySchema) -> Iterator[dict[str, Any]]:
    types = {schema.hash_key: schema.hash_type}
    if schema.range_key is not None and schema.range_type is not None:
        types[schema.range_key] = schema.range_type
    with path.open(encoding="utf-8", newline="") as rows:
        for row in csv.DictReader(rows):
            yield {k: {types.get(k, "S"): v} for k, v in row.items() if v != "" and k}
