"""Tables to files and back: DynamoDB's S3 export format, JSON lines, CSV.

::

    from tallydb import connect, transfer
    db = connect(path="tallydb-data")
    transfer.export_table(db, "videos", Path("out"))             # AWS's export layout
    transfer.import_table(db, Path("out"), "videos2")            # creates videos2

**dynamodb** (the default) is what ``ExportTableToPointInTime`` writes to S3
and ``ImportTable`` reads (``InputFormat=DYNAMODB_JSON``, ``GZIP``)::

    DIR/AWSDynamoDB/<ExportId>/manifest-summary.json   the export's summary
    DIR/AWSDynamoDB/<ExportId>/manifest-files.json     one line per data file
    DIR/AWSDynamoDB/<ExportId>/data/<name>.json.gz     {"Item": {...}} per line
    DIR/AWSDynamoDB/<ExportId>/table-description.json  tallydb's: CreateTable's shape
    DIR/AWSDynamoDB/<ExportId>/table-creation-parameters.json  ImportTable's shape

Every attribute type comes back exactly. **jsonl** (``items.jsonl``: one
plain JSON object per item) and **csv** (``items.csv``: a header of every
attribute name) are for other tools: sets become lists, binary values base64
text, and a fraction beyond a float's precision loses digits. On import a
CSV cell is a string, but for key attributes, typed by the table's schema.
"""

from __future__ import annotations

import base64
import csv
import datetime as dt
import gzip
import hashlib
import io
import json
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import orjson

from tallydb.convert import from_wire, json_shape, python_shape, to_wire

if TYPE_CHECKING:  # the toolkit is imported when used: `tallydb serve` needs none of it
    from tallydb.database import Database
    from tallydb.table import KeySchema

__all__ = [
    "DESCRIPTION_FILE",
    "FORMATS",
    "PARAMETERS_FILE",
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
#: Beside the data: the table's key schema, indexes and billing mode, in
#: CreateTable's shape, from which ``import_table`` creates the table.
DESCRIPTION_FILE = "table-description.json"
#: Beside it: ``aws dynamodb import-table --table-creation-parameters file://...``.
PARAMETERS_FILE = "table-creation-parameters.json"
JSONL_FILE = "items.jsonl"
CSV_FILE = "items.csv"
#: Items per gzip file of a DynamoDB-format export.
ITEMS_PER_FILE = 250_000
#: BatchWriteItem takes at most 25 puts.
BATCH = 25
#: BatchWriteItem requests in flight at once during an import.
WRITERS = 4

Progress = Callable[[int], None]


class TransferError(Exception):
    """An export or import that cannot go on: the message says why."""


def _no_progress(_done: int) -> None:
    pass


# -- the table's description ----------------------------------------------------

_INDEX_KEEP = ("IndexName", "KeySchema", "Projection")


def create_table_request(description: dict[str, Any]) -> dict[str, Any]:
    """CreateTable's request for a table like the one ``description``
    (DescribeTable's ``Table``) describes: keys, indexes, billing mode."""
    request: dict[str, Any] = {
        "TableName": description["TableName"],
        "KeySchema": description["KeySchema"],
        "AttributeDefinitions": description["AttributeDefinitions"],
    }
    mode = description.get("BillingModeSummary", {}).get("BillingMode")
    throughput = description.get("ProvisionedThroughput") or {}
    provisioned = mode == "PROVISIONED" or (mode is None and throughput.get("ReadCapacityUnits"))
    if provisioned:
        request["BillingMode"] = "PROVISIONED"
        request["ProvisionedThroughput"] = _throughput(throughput)
    else:
        request["BillingMode"] = "PAY_PER_REQUEST"
    for kind in ("LocalSecondaryIndexes", "GlobalSecondaryIndexes"):
        indexes = []
        for index in description.get(kind) or []:
            kept = {k: index[k] for k in _INDEX_KEEP if k in index}
            if provisioned and kind == "GlobalSecondaryIndexes":
                kept["ProvisionedThroughput"] = _throughput(index.get("ProvisionedThroughput", {}))
            indexes.append(kept)
        if indexes:
            request[kind] = indexes
    return request


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


def _throughput(given: dict[str, Any]) -> dict[str, int]:
    return {
        "ReadCapacityUnits": int(given.get("ReadCapacityUnits") or 5),
        "WriteCapacityUnits": int(given.get("WriteCapacityUnits") or 5),
    }


def parse_key_spec(spec: str) -> tuple[str, str]:
    """``"PK"`` or ``"PK:S"`` (type ``S``, ``N`` or ``B``) as ``(name, type)``."""
    name, _, kind = spec.rpartition(":") if ":" in spec else (spec, "", "S")
    kind = kind.upper()
    if not name or kind not in ("S", "N", "B"):
        raise TransferError(f"a key is NAME or NAME:TYPE with TYPE S, N or B, not {spec!r}")
    return name, kind


# -- reading a table --------------------------------------------------------------


def _describe(db: Database, table: str) -> dict[str, Any]:
    result: dict[str, Any] = db.transport.call("DescribeTable", {"TableName": table})["Table"]
    return result


def _pages(db: Database, table: str) -> Iterator[list[dict[str, Any]]]:
    """Every item of ``table`` in DynamoDB's JSON (binary as base64 text), a
    page at a time."""
    transport = db.transport
    in_wire_shape = _speaks_wire(db)
    start: dict[str, Any] | None = None
    while True:
        request: dict[str, Any] = {"TableName": table}
        if start:
            request["ExclusiveStartKey"] = start
        if in_wire_shape:  # the engine's own answer, read once and let go
            response = transport.call_wire("Scan", request, request)
            yield response.get("Items", [])
            start = response.get("LastEvaluatedKey")
        else:
            response = transport.call("Scan", request)
            yield json_shape(response.get("Items", []))
            start = response.get("LastEvaluatedKey")
        if not start:
            return


def _speaks_wire(db: Database) -> bool:
    """Whether the store answers ``call_wire`` in DynamoDB's JSON (the
    embedded engine does; a boto3 client answers in boto3's shape): then
    items go to and from files with no copy into boto3's shape and back."""
    from tallydb.transport import EngineTransport

    return isinstance(db.transport, EngineTransport)


def _ttl_attribute(db: Database, table: str) -> str | None:
    answer = db.transport.call("DescribeTimeToLive", {"TableName": table})
    ttl = answer.get("TimeToLiveDescription", {})
    if ttl.get("TimeToLiveStatus") in ("ENABLED", "ENABLING"):
        name: str | None = ttl.get("AttributeName")
        return name
    return None


def _wait_active(db: Database, table: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while _describe(db, table).get("TableStatus", "ACTIVE") != "ACTIVE":
        if time.monotonic() > deadline:
            raise TransferError(f"table {table} is not ACTIVE after {timeout:.0f} s")
        time.sleep(0.05)


# -- export -------------------------------------------------------------------------


def export_table(
    db: Database,
    table: str,
    directory: Path,
    *,
    format: Format = "dynamodb",
    progress: Progress = _no_progress,
) -> Path:
    """Write every item of ``table`` under ``directory`` (created if
    missing); the folder that holds the export. ``progress`` is called with
    the number of items written so far, after each page."""
    if format not in FORMATS:
        raise TransferError(f"unknown format {format!r}: one of {', '.join(FORMATS)}")
    description = _describe(db, table)
    ttl = _ttl_attribute(db, table)
    directory.mkdir(parents=True, exist_ok=True)
    if format == "dynamodb":
        folder = _export_dynamodb(db, description, directory, progress)
        _write_description(folder, description, ttl)
        return folder
    _write_description(directory, description, ttl)
    if format == "jsonl":
        _export_jsonl(db, table, directory / JSONL_FILE, progress)
    else:
        _export_csv(db, description, directory / CSV_FILE, progress)
    return directory


def _write_description(folder: Path, description: dict[str, Any], ttl: str | None) -> None:
    kept = create_table_request(description)
    if ttl:
        kept["TimeToLiveAttribute"] = ttl
    (folder / DESCRIPTION_FILE).write_text(json.dumps(kept, indent=2) + "\n")
    parameters = table_creation_parameters(description)
    (folder / PARAMETERS_FILE).write_text(json.dumps(parameters, indent=2) + "\n")


def _md5_base64(data: bytes) -> str:
    return base64.b64encode(hashlib.md5(data).digest()).decode("ascii")


def _timestamp(moment: dt.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _export_dynamodb(
    db: Database, description: dict[str, Any], directory: Path, progress: Progress
) -> Path:
    started = dt.datetime.now(dt.UTC)
    export_id = f"{int(started.timestamp() * 1000):014d}-{uuid.uuid4().hex[:8]}"
    prefix = f"AWSDynamoDB/{export_id}"
    folder = directory / prefix
    (folder / "data").mkdir(parents=True)
    (folder / "_started").touch()
    files: list[dict[str, Any]] = []
    total = 0

    def close(buffer: io.BytesIO, count: int) -> None:
        key = f"{prefix}/data/{uuid.uuid4().hex[:26]}.json.gz"
        data = buffer.getvalue()
        (directory / key).write_bytes(data)
        md5 = hashlib.md5(data)
        files.append(
            {
                "itemCount": count,
                "md5Checksum": base64.b64encode(md5.digest()).decode("ascii"),
                "etag": md5.hexdigest(),
                "dataFileS3Key": key,
            }
        )

    buffer, count = io.BytesIO(), 0
    out = gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=6, mtime=0)
    for page in _pages(db, description["TableName"]):
        out.write(b"".join(orjson.dumps({"Item": item}) + b"\n" for item in page))
        count += len(page)
        total += len(page)
        if count >= ITEMS_PER_FILE:
            out.close()
            close(buffer, count)
            buffer, count = io.BytesIO(), 0
            out = gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=6, mtime=0)
        progress(total)
    out.close()
    if count or not files:
        close(buffer, count)

    manifest_files = b"".join(orjson.dumps(entry) + b"\n" for entry in files)
    (folder / "manifest-files.json").write_bytes(manifest_files)
    (folder / "manifest-files.md5").write_text(_md5_base64(manifest_files))
    table_arn = description.get("TableArn", f"arn:aws:dynamodb:::table/{description['TableName']}")
    summary = {
        "version": "2020-06-30",
        "exportArn": f"{table_arn}/export/{export_id}",
        "startTime": _timestamp(started),
        "endTime": _timestamp(dt.datetime.now(dt.UTC)),
        "tableArn": table_arn,
        "tableId": description.get("TableId", ""),
        "exportTime": _timestamp(started),
        "s3Bucket": "",
        "s3Prefix": None,
        "s3SseAlgorithm": "AES256",
        "s3SseKmsKeyId": None,
        "manifestFilesS3Key": f"{prefix}/manifest-files.json",
        "billedSizeBytes": 0,
        "itemCount": total,
        "outputFormat": "DYNAMODB_JSON",
        "exportType": "FULL_EXPORT",
    }
    summary_bytes = orjson.dumps(summary)
    (folder / "manifest-summary.json").write_bytes(summary_bytes)
    (folder / "manifest-summary.md5").write_text(_md5_base64(summary_bytes))
    return folder


def _plain(wire: dict[str, Any]) -> Any:
    """A value in DynamoDB's JSON as a plain JSON value."""
    return jsonable(from_wire(python_shape(wire)))


def jsonable(value: Any) -> Any:
    """A plain Python value (the toolkit's) as JSON can hold it: sets as
    sorted lists, bytes as base64 text, fractions as floats (see the module's
    docstring for what does not come back)."""
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, list | set | frozenset):
        items = [jsonable(v) for v in value]
        return sorted(items, key=str) if isinstance(value, set | frozenset) else items
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, Decimal):
        return float(value)
    return value


def plain_item(wire_item: dict[str, Any]) -> dict[str, Any]:
    """An item in DynamoDB's JSON as plain JSON values."""
    return {name: _plain(value) for name, value in wire_item.items()}


def _export_jsonl(db: Database, table: str, path: Path, progress: Progress) -> None:
    total = 0
    with path.open("w", encoding="utf-8") as out:
        for page in _pages(db, table):
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


def _export_csv(
    db: Database, description: dict[str, Any], path: Path, progress: Progress
) -> None:
    """Two passes over a temporary file: the header needs every attribute name."""
    from tallydb.table import KeySchema

    schema = KeySchema.from_description(description)
    columns: dict[str, None] = dict.fromkeys(schema.names)
    total = 0
    with tempfile.TemporaryFile() as spool:
        for page in _pages(db, description["TableName"]):
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


# -- import -------------------------------------------------------------------------


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
    if (source / "manifest-summary.json").is_file():
        return "dynamodb", source
    exports = sorted((source / "AWSDynamoDB").glob("*/manifest-summary.json"))
    if len(exports) == 1:
        return "dynamodb", exports[0].parent
    if len(exports) > 1:
        choices = ", ".join(str(e.parent) for e in exports)
        raise TransferError(f"{source} holds {len(exports)} exports: name one of {choices}")
    if (source / JSONL_FILE).is_file():
        return "jsonl", source / JSONL_FILE
    if (source / CSV_FILE).is_file():
        return "csv", source / CSV_FILE
    raise TransferError(
        f"{source} holds no export: no manifest-summary.json, {JSONL_FILE} or {CSV_FILE}"
    )


def expected_items(source: Path) -> int | None:
    """How many items an export holds, if its manifest says (for a progress bar)."""
    try:
        detected, where = detect_format(source)
        if detected != "dynamodb":
            return None
        count = json.loads((where / "manifest-summary.json").read_text()).get("itemCount")
    except (TransferError, OSError, ValueError, AttributeError):
        return None
    return count if isinstance(count, int) else None


def _data_files(folder: Path) -> Iterator[Path]:
    """The data files ``manifest-files.json`` names, found as S3 keys below
    the folder's root, or else by name in its data/ folder."""
    root = folder.parent.parent if folder.parent.name == "AWSDynamoDB" else folder
    manifest = folder / "manifest-files.json"
    if not manifest.is_file():
        raise TransferError(f"{folder} has manifest-summary.json but no manifest-files.json")
    for line in manifest.read_text().splitlines():
        if not line.strip():
            continue
        key = json.loads(line)["dataFileS3Key"]
        for candidate in (root / key, folder / "data" / Path(key).name):
            if candidate.is_file():
                yield candidate
                break
        else:
            raise TransferError(f"the data file {key} named in {manifest} is missing")


def _dynamodb_items(folder: Path) -> Iterator[dict[str, Any]]:
    for path in _data_files(folder):
        with gzip.open(path, "rb") as lines:
            for line in lines:
                if line.strip():
                    yield orjson.loads(line)["Item"]


def _jsonl_items(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            value = json.loads(line, parse_float=Decimal)
            if not isinstance(value, dict):
                raise TransferError(f"{path}:{number}: a line is one JSON object (an item)")
            yield json_shape({k: to_wire(v) for k, v in value.items()})


def _csv_items(path: Path, schema: KeySchema) -> Iterator[dict[str, Any]]:
    types = {schema.hash_key: schema.hash_type}
    if schema.range_key is not None and schema.range_type is not None:
        types[schema.range_key] = schema.range_type
    with path.open(encoding="utf-8", newline="") as rows:
        for row in csv.DictReader(rows):
            yield {k: {types.get(k, "S"): v} for k, v in row.items() if v != "" and k}


def _read_description(folder: Path) -> dict[str, Any] | None:
    path = folder / DESCRIPTION_FILE
    if not path.is_file():
        return None
    result: dict[str, Any] = json.loads(path.read_text())
    return result


def _ensure_table(
    db: Database,
    table: str,
    description: dict[str, Any] | None,
    hash_key: tuple[str, str] | None,
    range_key: tuple[str, str] | None,
) -> KeySchema:
    """The table's key schema, creating the table first if it is missing."""
    from tallydb.errors import ResourceNotFoundException
    from tallydb.table import KeySchema

    try:
        return KeySchema.from_description(_describe(db, table))
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
    _wait_active(db, table)
    ttl = (description or {}).get("TimeToLiveAttribute")
    if ttl:
        db.table(table).enable_ttl(ttl)
    return KeySchema.from_description(_describe(db, table))


def _write_batch(db: Database, table: str, items: list[dict[str, Any]]) -> None:
    """One BatchWriteItem of up to 25 puts, sending what comes back
    unprocessed again (after a short pause) until none is left."""
    in_wire_shape = _speaks_wire(db)
    requests = [
        {"PutRequest": {"Item": item if in_wire_shape else python_shape(item)}} for item in items
    ]
    pause = 0.01
    while requests:
        request = {"RequestItems": {table: requests}}
        if in_wire_shape:
            # The wire shape stands in for boto3's too: botocore's own check,
            # run only on a refused request, takes base64 text for a Binary.
            response = db.transport.call_wire("BatchWriteItem", request, request)
        else:
            response = db.transport.call("BatchWriteItem", request)
        requests = response.get("UnprocessedItems", {}).get(table, [])
        if requests:
            time.sleep(pause)
            pause = min(pause * 2, 1.0)


def _batches(items: Iterable[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    batch: list[dict[str, Any]] = []
    for item in items:
        batch.append(item)
        if len(batch) == BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def import_table(
    db: Database,
    source: Path,
    table: str,
    *,
    format: Format | None = None,
    hash_key: tuple[str, str] | None = None,
    range_key: tuple[str, str] | None = None,
    progress: Progress = _no_progress,
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
    schema = _ensure_table(db, table, _read_description(folder), hash_key, range_key)
    if detected == "dynamodb":
        items: Iterable[dict[str, Any]] = _dynamodb_items(where)
    elif detected == "jsonl":
        items = _jsonl_items(where)
    else:
        items = _csv_items(where, schema)
    written = 0
    with ThreadPoolExecutor(WRITERS) as pool:
        pending: set[Future[None]] = set()
        for batch in _batches(items):
            if len(pending) >= WRITERS * 2:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    future.result()
            pending.add(pool.submit(_write_batch, db, table, batch))
            written += len(batch)
            if written % (BATCH * 40) == 0:
                progress(written)
        for future in pending:
            future.result()
    progress(written)
    return written
