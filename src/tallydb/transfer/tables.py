"""A table's description travels with its items: written beside an export
(CreateTable's shape, and ImportTable's), read back to create the table.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tallydb.toolkit import table_spec
from tallydb.transfer.errors import TransferError

if TYPE_CHECKING:
    from tallydb.toolkit.database import Database
    from tallydb.toolkit.table import KeySchema

__all__ = [
    "DESCRIPTION_FILE",
    "PARAMETERS_FILE",
    "create_table_request",
    "describe",
    "ensure_table",
    "parse_key_spec",
    "read_description",
    "table_creation_parameters",
    "ttl_attribute",
    "write_description",
]

#: Beside the data: the table's key schema, indexes and billing mode, in
#: CreateTable's shape, from which ``import_table`` creates the table.
DESCRIPTION_FILE = "table-description.json"
#: Beside it: ``aws dynamodb import-table --table-creation-parameters file://...``.
PARAMETERS_FILE = "table-creation-parameters.json"


def create_table_request(description: dict[str, Any]) -> dict[str, Any]:
    """CreateTable's request for a table like the one ``description``
    (DescribeTable's ``Table``) describes: keys, indexes, billing mode (its
    stream is the source table's own, not the copy's)."""
    return table_spec.create_table_request(description, keep_stream=False)


def table_creation_parameters(description: dict[str, Any]) -> dict[str, Any]:
    """``aws dynamodb import-table``'s ``TableCreationParameters`` for a table
    like this one. ImportTable creates no local secondary index, so those
    (and attribute definitions only they use) are left out."""
    request = create_table_request(description)
    request.pop("LocalSecondaryIndexes", None)
    used = {k["AttributeName"] for k in request["KeySchema"]}
    for index in request.get("GlobalSecondaryIndexes", []):
        used |= {k["AttributeName"] for k in index["KeySchema"]}
    request["AttributeDefinitions"] = [
        a for a in request["AttributeDefinitions"] if a["AttributeName"] in used
    ]
    return request


def parse_key_spec(spec: str) -> tuple[str, str]:
    """``"PK"`` or ``"PK:S"`` (type ``S``, ``N`` or ``B``) as ``(name, type)``."""
    name, _, kind = spec.rpartition(":") if ":" in spec else (spec, "", "S")
    kind = kind.upper()
    if not name or kind not in ("S", "N", "B"):
        raise TransferError(f"a key is NAME or NAME:TYPE with TYPE S, N or B, not {spec!r}")
    return name, kind


def describe(db: Database, table: str) -> dict[str, Any]:
    result: dict[str, Any] = db.transport.call("DescribeTable", {"TableName": table})["Table"]
    return result


def ttl_attribute(db: Database, table: str) -> str | None:
    answer = db.transport.call("DescribeTimeToLive", {"TableName": table})
    ttl = answer.get("TimeToLiveDescription", {})
    if ttl.get("TimeToLiveStatus") in ("ENABLED", "ENABLING"):
        name: str | None = ttl.get("AttributeName")
        return name
    return None


def wait_active(db: Database, table: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while describe(db, table).get("TableStatus", "ACTIVE") != "ACTIVE":
        if time.monotonic() > deadline:
            raise TransferError(f"table {table} is not ACTIVE after {timeout:.0f} s")
        time.sleep(0.05)


def write_description(folder: Path, description: dict[str, Any], ttl: str | None) -> None:
    kept = create_table_request(description)
    if ttl:
        kept["TimeToLiveAttribute"] = ttl
    (folder / DESCRIPTION_FILE).write_text(json.dumps(kept, indent=2) + "\n")
    parameters = table_creation_parameters(description)
    (folder / PARAMETERS_FILE).write_text(json.dumps(parameters, indent=2) + "\n")


def read_description(folder: Path) -> dict[str, Any] | None:
    path = folder / DESCRIPTION_FILE
    if not path.is_file():
        return None
    result: dict[str, Any] = json.loads(path.read_text())
    return result


def ensure_table(
    db: Database,
    table: str,
    description: dict[str, Any] | None,
    hash_key: tuple[str, str] | None,
    range_key: tuple[str, str] | None,
) -> KeySchema:
    """The table's key schema, creating the table first if it is missing."""
    from tallydb.engine.errors import ResourceNotFoundException
    from tallydb.toolkit.table import KeySchema

    try:
        return KeySchema.from_description(describe(db, table))
    except ResourceNotFoundException:
        pass
    if hash_key is not None:
        attributes = [hash_key] if range_key is None else [hash_key, range_key]
        request: dict[str, Any] = {
            "KeySchema": [
                {"AttributeName": name, "KeyType": kind}
                for (name, _), kind in zip(attributes, ("HASH", "RANGE"), strict=False)
            ],
            "AttributeDefinitions": [
                {"AttributeName": name, "AttributeType": kind} for name, kind in attributes
            ],
            "BillingMode": "PAY_PER_REQUEST",
        }
    elif description is not None:
        request = {k: v for k, v in description.items() if k != "TimeToLiveAttribute"}
    else:
        raise TransferError(
            f"table {table} does not exist and the export has no {DESCRIPTION_FILE}: "
            "give its key with --hash-key NAME:TYPE (and --range-key)"
        )
    request["TableName"] = table
    db.transport.call("CreateTable", request)
    wait_active(db, table)
    ttl = (description or {}).get("TimeToLiveAttribute")
    if ttl:
        db.table(table).enable_ttl(ttl)
    return KeySchema.from_description(describe(db, table))
