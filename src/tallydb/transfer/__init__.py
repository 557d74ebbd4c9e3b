"""Tables to files and back: DynamoDB's S3 export format, JSON lines, CSV.

::

    from tallydb import connect, transfer
    db = connect(path="tallydb-data")
    transfer.export_table(db, "videos", Path("out"))             # AWS's export layout
    transfer.import_table(db, Path("out"), "videos2")            # creates videos2

**dynamodb** (the default, :mod:`~tallydb.transfer.dynamodb_json`) is what
``ExportTableToPointInTime`` writes to S3 and ``ImportTable`` reads; every
attribute type comes back exactly. **jsonl** (``items.jsonl``) and **csv**
(``items.csv``, :mod:`~tallydb.transfer.plain`) are for other tools, and
lose what plain JSON cannot hold. Beside the items, an export holds the
table's description (:mod:`~tallydb.transfer.tables`), from which an import
creates the table.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import orjson

from tallydb.transfer import dynamodb_json, plain
from tallydb.transfer.errors import Progress, TransferError, no_progress
from tallydb.transfer.items import put_all
from tallydb.transfer.plain import jsonable, plain_item
from tallydb.transfer.tables import (
    DESCRIPTION_FILE,
    PARAMETERS_FILE,
    create_table_request,
    describe,
    ensure_table,
    parse_key_spec,
    read_description,
    table_creation_parameters,
    ttl_attribute,
    write_description,
)

if TYPE_CHECKING:
    from collections.abc import Iterable

    from tallydb.toolkit.database import Database

__all__ = [
    "DESCRIPTION_FILE",
    "FORMATS",
    "PARAMETERS_FILE",
    "Format",
    "TransferError",
    "create_table_request",
    "detect_format",
    "expected_items",
    "export_table",
    "import_table",
    "jsonable",
    "parse_key_spec",
    "plain_item",
    "table_creation_parameters",
]

Format = Literal["dynamodb", "jsonl", "csv"]
FORMATS: tuple[Format, ...] = ("dynamodb", "jsonl", "csv")


def export_table(
    db: Database,
    table: str,
    directory: Path,
    *,
    format: Format = "dynamodb",
    progress: Progress = no_progress,
) -> Path:
    """Write every item of ``table`` under ``directory`` (created if
    missing); the folder that holds the export. ``progress`` is called with
    the number of items written so far, after each page."""
    if format not in FORMATS:
        raise TransferError(f"unknown format {format!r}: one of {', '.join(FORMATS)}")
    description = describe(db, table)
    ttl = ttl_attribute(db, table)
    directory.mkdir(parents=True, exist_ok=True)
    if format == "dynamodb":
        folder = dynamodb_json.export(db, description, directory, progress)
        write_description(folder, description, ttl)
        return folder
    write_description(directory, description, ttl)
    if format == "jsonl":
        plain.export_jsonl(db, table, directory / plain.JSONL_FILE, progress)
    else:
        plain.export_csv(db, description, directory / plain.CSV_FILE, progress)
    return directory


def detect_format(source: Path) -> tuple[Format, Path]:
    """The format of what ``source`` holds, and the folder or file to read:
    an export's folder (``manifest-summary.json``), a folder holding one
    ``AWSDynamoDB/<ExportId>``, ``items.jsonl`` or ``items.csv``, or such a file."""
    if source.is_file():
        if source.name.endswith(".csv"):
            return "csv", source
        if source.name.endswith((".jsonl", ".json")):
            return "jsonl", source
        raise TransferError(f"{source}: a .jsonl or .csv file, or an export's folder")
    exports = dynamodb_json.find_exports(source)
    if len(exports) == 1:
        return "dynamodb", exports[0]
    if len(exports) > 1:
        choices = ", ".join(str(e) for e in exports)
        raise TransferError(f"{source} holds {len(exports)} exports: name one of {choices}")
    plain_files: tuple[tuple[Format, str], ...] = (
        ("jsonl", plain.JSONL_FILE), ("csv", plain.CSV_FILE))
    for format, name in plain_files:
        if (source / name).is_file():
            return format, source / name
    raise TransferError(
        f"{source} holds no export: no {dynamodb_json.SUMMARY}, {plain.JSONL_FILE} "
        f"or {plain.CSV_FILE}"
    )


def expected_items(source: Path) -> int | None:
    """How many items an export holds, if its manifest says (for a progress bar)."""
    try:
        detected, where = detect_format(source)
    except TransferError:
        return None
    return dynamodb_json.item_count(where) if detected == "dynamodb" else None


def import_table(
    db: Database,
    source: Path,
    table: str,
    *,
    format: Format | None = None,
    hash_key: tuple[str, str] | None = None,
    range_key: tuple[str, str] | None = None,
    progress: Progress = no_progress,
) -> int:
    """Put every item of an export into ``table``; how many were written.

    ``table`` is created if missing: with ``hash_key``/``range_key`` when
    given, else as the export's ``table-description.json`` says (an export
    made by AWS has none). An item whose key is already there replaces it.
    """
    detected, where = detect_format(source)
    if format is not None and format != detected:
        raise TransferError(f"{source} holds a {detected} export, not {format}")
    folder = where if where.is_dir() else where.parent
    schema = ensure_table(db, table, read_description(folder), hash_key, range_key)
    if detected == "dynamodb":
        return put_all(db, table, dynamodb_json.read_puts(where), progress)
    items: Iterable[dict[str, Any]] = (
        plain.read_jsonl(where) if detected == "jsonl" else plain.read_csv(where, schema))
    return put_all(db, table, (orjson.dumps({"Item": item}) for item in items), progress)
