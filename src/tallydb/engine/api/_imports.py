"""ImportTable's imports: their descriptions, and the job that reads every
object under the source prefix into the new table.

ImportTable creates the table in its own request (CreateTable's checks and
errors), records the import as a document (``IMPORT``, by ImportArn), and
starts the job. The job lists the objects under ``S3KeyPrefix``, opens each
(GZIP, ZSTD or NONE), reads its items (DYNAMODB_JSON lines, Ion values, or
CSV rows) and puts them through PutItem's own checks, a few hundred to a
transaction. An item that fails (a missing or mistyped key, an item too
large, a line that does not parse) is counted in ErrorCount and written to
the import's error log, one JSON line each, as CloudWatch's
``/aws-dynamodb/imports`` log group holds them: under ``logs/`` beside the
data (``ERROR_LOG``). The import then ends FAILED (``ItemValidationError``);
one without errors ends COMPLETED. The table is ACTIVE (and writable)
while its items arrive: tallydb does not hold it in CREATING.

CSV: the first row is the header unless ``HeaderList`` gives it; every
value is a string but for the key attributes, typed by the table's
AttributeDefinitions; an empty cell is no attribute.
"""

from __future__ import annotations

import base64
import csv
import io
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from tallydb.engine.api._jobs import Jobs, job_document
from tallydb.engine.api._regions import shown
from tallydb.engine.errors import DynamoDBError
from tallydb.engine.export_layout import decompressor, export_id, from_ion, lines_of
from tallydb.engine.objects import ObjectStoreError

__all__ = ["ERROR_LOG", "IMPORT", "LOG_GROUP", "new_import", "run_import", "summary"]

IMPORT = "import"
LOG_GROUP = "/aws-dynamodb/imports"
#: An import's error log, below the engine's log directory.
ERROR_LOG = "aws-dynamodb/imports/{id}/error"
#: Not on record: the console's wording, as we recall it.
VALIDATION_FAILED = ("Some of the items failed validation checks and were not imported. "
                     "Please check CloudWatch error logs for more details.")
BATCH = 256


def new_import(table: dict[str, Any], request: dict[str, Any], now: float, catalog: str,
               region: str) -> dict[str, Any]:
    """The document of a new import into the table ``table`` describes."""
    started = export_id(now)
    arn = f"{table['TableArn']}/import/{started}"
    region_account = table["TableArn"].split(":")[3:5]
    description: dict[str, Any] = {
        "ImportArn": arn,
        "ImportStatus": "IN_PROGRESS",
        "TableArn": table["TableArn"],
        "TableId": table["TableId"],
        "S3BucketSource": request["S3BucketSource"],
        "ErrorCount": 0,
        "CloudWatchLogGroupArn": "arn:aws:logs:{}:{}:log-group:{}:*".format(
            *region_account, LOG_GROUP),
        "InputFormat": request["InputFormat"],
        "InputCompressionType": request.get("InputCompressionType", "NONE"),
        "TableCreationParameters": request["TableCreationParameters"],
        "StartTime": now,
        "ProcessedSizeBytes": 0,
        "ProcessedItemCount": 0,
        "ImportedItemCount": 0,
    }
    return job_document(description, request, ("ClientToken", "InputFormatOptions"),
                        id=started, table=table["TableName"], catalog=catalog, region=region)


def summary(description: dict[str, Any]) -> dict[str, Any]:
    """ListImports' ImportSummary."""
    keep = ("ImportArn", "ImportStatus", "TableArn", "S3BucketSource", "CloudWatchLogGroupArn",
            "InputFormat", "StartTime", "EndTime")
    return {k: description[k] for k in keep if k in description}


# --- reading items ------------------------------------------------------------------------

Parsed = Iterator[tuple[int, dict[str, Any] | str]]


def _json_items(data: bytes) -> Parsed:
    for number, line in enumerate(lines_of(data)):
        try:
            document = orjson.loads(line)
            item = document["Item"]
            if not isinstance(item, dict):
                raise TypeError
        except (orjson.JSONDecodeError, KeyError, TypeError):
            yield number, "The line is not a DynamoDB JSON item: {\"Item\": {...}}"
            continue
        yield number, item


def _ion_items(data: bytes) -> Parsed:
    from amazon.ion import simpleion

    try:
        values = simpleion.loads(data.decode("utf-8"), single_value=False)
    except Exception as error:  # amazon.ion raises bare exceptions of its own
        yield 0, f"The object is not Amazon Ion text: {error}"
        return
    for number, value in enumerate(values):
        try:
            image = value["Item"]
            yield number, {str(name): from_ion(v) for name, v in image.items()}
        except (KeyError, TypeError, AttributeError, ValueError) as error:
            yield number, f"The value is not an item in Ion: {error}"


def _csv_items(data: bytes, options: dict[str, Any], key_types: dict[str, str]) -> Parsed:
    text = data.decode("utf-8-sig")
    rows = csv.reader(io.StringIO(text), delimiter=options.get("Delimiter", ","))
    header: list[str] | None = options.get("HeaderList")
    for number, row in enumerate(rows):
        if header is None:
            header = row
            continue
        if not any(row):
            continue
        item: dict[str, Any] = {}
        for name, cell in zip(header, row, strict=False):
            if cell == "":
                continue
            kind = key_types.get(name, "S")
            if kind == "B":
                try:
                    base64.b64decode(cell, validate=True)
                except ValueError:
                    yield number, f"The value of {name} is not base64"
                    break
            item[name] = {kind: cell}
        else:
            yield number, item


def items_of(data: bytes, input_format: str, options: dict[str, Any],
             key_types: dict[str, str]) -> Parsed:
    """(index in the object, item or why it is not one) of every item of an object."""
    if input_format == "DYNAMODB_JSON":
        return _json_items(data)
    if input_format == "ION":
        return _ion_items(data)
    return _csv_items(data, options.get("Csv", {}), key_types)


# --- the job ---------------------------------------------------------------------------------


class _Log:
    """The import's error log, opened on the first error."""

    def __init__(self, path: Path, arn: str) -> None:
        self.path, self.arn = path, arn
        self.file: Any = None

    def error(self, bucket: str, key: str, index: int, message: str) -> None:
        if self.file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.file = self.path.open("ab")
        self.file.write(orjson.dumps({
            "timestamp": int(time.time() * 1000),
            "message": orjson.dumps({
                "itemS3Pointer": {"bucket": bucket, "key": key, "itemIndex": index},
                "importArn": self.arn, "errorMessages": [message]}).decode(),
        }) + b"\n")

    def close(self) -> None:
        if self.file is not None:
            self.file.close()


def run_import(jobs: Jobs, kind: str, name: str) -> None:
    """Put every item of import ``name``'s objects into its table (a job's runner)."""
    document = jobs.document(kind, name)
    if document is None or document["description"]["ImportStatus"] != "IN_PROGRESS":
        return
    integrations = jobs.integrations
    assert integrations is not None
    description = document["description"]
    source = description["S3BucketSource"]
    bucket, prefix = source["S3Bucket"], source.get("S3KeyPrefix", "")
    params = description["TableCreationParameters"]
    key_names = {k["AttributeName"] for k in params["KeySchema"]}
    key_types = {a["AttributeName"]: a["AttributeType"] for a in params["AttributeDefinitions"]
                 if a["AttributeName"] in key_names}
    opened = decompressor(description["InputCompressionType"])
    log = _Log(integrations.logs / ERROR_LOG.format(id=document["id"]),
               shown(name, document["region"]))
    counts = {"ProcessedSizeBytes": 0, "ProcessedItemCount": 0, "ImportedItemCount": 0,
              "ErrorCount": 0}
    failure: tuple[str, str] | None = None
    try:
        keys = list(integrations.objects.keys(bucket, prefix))
    except ObjectStoreError as error:
        failure = (f"S3{error.code}", error.message)
        keys = []
    try:
        for key, _ in keys:
            if jobs.closing.is_set():
                return  # IN_PROGRESS still: it runs again at the next start
            _import_object(jobs, document, bucket, key, opened, key_types, counts, log)
            jobs.update(kind, name, lambda d: d["description"].update(counts))
    finally:
        log.close()

    def finished(d: dict[str, Any]) -> None:
        d["description"].update(counts, EndTime=time.time())
        if failure is not None:
            d["description"].update(ImportStatus="FAILED", FailureCode=failure[0],
                                    FailureMessage=failure[1])
        elif counts["ErrorCount"]:
            d["description"].update(ImportStatus="FAILED", FailureCode="ItemValidationError",
                                    FailureMessage=VALIDATION_FAILED)
        else:
            d["description"]["ImportStatus"] = "COMPLETED"

    jobs.update(kind, name, finished)


def _import_object(jobs: Jobs, document: dict[str, Any], bucket: str, key: str,
                   opened: Any, key_types: dict[str, str], counts: dict[str, int],
                   log: _Log) -> None:
    integrations = jobs.integrations
    assert integrations is not None
    description = document["description"]
    try:
        data = opened(integrations.objects.get(bucket, key))
    except ObjectStoreError as error:
        counts["ErrorCount"] += 1
        log.error(bucket, key, 0, error.message)
        return
    except Exception as error:  # gzip's, zstandard's: a file that is not what it says
        counts["ErrorCount"] += 1
        log.error(bucket, key, 0, f"The object could not be decompressed: {error}")
        return
    counts["ProcessedSizeBytes"] += len(data)
    parsed = items_of(data, description["InputFormat"],
                      description.get("InputFormatOptions", {}), key_types)
    table = document["table"]
    batch: list[tuple[int, dict[str, Any] | str]] = []

    def flush() -> None:
        with jobs.store.transaction() as txn:
            before = txn.catalog
            txn.catalog = document["catalog"]
            try:
                for index, item in batch:
                    counts["ProcessedItemCount"] += 1
                    if isinstance(item, str):
                        counts["ErrorCount"] += 1
                        log.error(bucket, key, index, item)
                        continue
                    try:
                        integrations.run(txn, "PutItem", {"TableName": table, "Item": item})
                    except DynamoDBError as error:
                        counts["ErrorCount"] += 1
                        log.error(bucket, key, index, error.message or error.code())
                    else:
                        counts["ImportedItemCount"] += 1
            finally:
                txn.catalog = before
        batch.clear()

    for entry in parsed:
        batch.append(entry)
        if len(batch) >= BATCH:
            flush()
    if batch:
        flush()
