"""StartBulkPutItems' bulk operations: every item of the objects under an
S3 prefix put into an existing table, in the background, no faster than
MaxWriteRequestUnits a second.

An operation is a document (``BULK``, by BulkOperationArn) holding its
BulkOperationDescription. The job reads the objects as ImportTable's does
(``_imports.items_of``: DYNAMODB_JSON or ION, GZIP, ZSTD or NONE) and puts
each item through PutItem, so the table's indexes, stream, Kinesis
destination and insights see every write. It writes at most
MaxWriteRequestUnits units a second (one unit per KB of item, as a PutItem
costs), sleeping between batches, never while holding the writer. An item
that cannot be put is counted in FailedItemCount and, when OutputType has
ERROR, written (its object, index and the error) as a JSON line to
``S3KeyPrefix/bulk-operation/<id>/errors.json`` in the output bucket; the
operation then ends COMPLETED_WITH_ERRORS. CancelBulkOperation moves it to
CANCELLING; the job stops before its next batch (CANCELLED), leaving what
it had put. The layout of the error file is tallydb's: DynamoDB documents
none.
"""

from __future__ import annotations

import time
from typing import Any

import orjson

from tallydb.engine.api._access import Resolver, Touch
from tallydb.engine.api._imports import items_of
from tallydb.engine.api._jobs import Jobs, job_document
from tallydb.engine.errors import DynamoDBError, ResourceNotFoundException
from tallydb.engine.export_layout import decompressor, export_id
from tallydb.engine.objects import ObjectStoreError
from tallydb.engine.storage import Transaction
from tallydb.engine.values import item_size

__all__ = ["BULK", "bulk_operation", "new_bulk", "on_bulk_operation", "run_bulk", "summary"]

BULK = "bulk"
#: Not on record: ours.
NOT_FOUND = "Requested resource not found: Bulk operation: {} not found"
BATCH = 256
ACCOUNT = "000000000000"


def on_bulk_operation(action: str, write: bool = False) -> Resolver:
    """``ACCESS`` of an operation on the bulk operation its BulkOperationArn
    names: the table it puts into (its stored record; an ARN of no operation
    names no table, which no key limited to tables may use)."""
    def resolve(txn: Transaction, request: dict[str, Any]) -> tuple[Touch, ...]:
        arn = request.get("BulkOperationArn")
        document = txn.document(BULK, arn) if isinstance(arn, str) else None
        return (Touch(action, "*" if document is None else document["table"], write),)
    return resolve


def bulk_operation(txn: Transaction, arn: str) -> dict[str, Any]:
    """The stored record of the bulk operation ``arn`` names."""
    document: dict[str, Any] | None = txn.document(BULK, arn)
    if document is None:
        raise ResourceNotFoundException(NOT_FOUND.format(arn))
    return document


def new_bulk(table: dict[str, Any], request: dict[str, Any], now: float, catalog: str,
             region: str) -> dict[str, Any]:
    started = export_id(now)
    description: dict[str, Any] = {
        "BulkOperationArn": f"arn:aws:dynamodb:ddblocal:{ACCOUNT}:bulk-operation/{started}",
        "BulkOperationStatus": "IN_PROGRESS",
        "TableDetails": [{"TableName": table["TableArn"], "TableId": table["TableId"]}],
        "InputS3Configuration": request["InputS3Configuration"],
        "OutputS3Configuration": request["OutputS3Configuration"],
        "StartTime": now,
        "ProcessedItemCount": 0,
        "ProcessedInputBytes": 0,
        "TotalInputBytes": 0,
        "FailedItemCount": 0,
        "BulkOperationUsage": [{"TableName": table["TableArn"], "BulkPutBytes": 0,
                                "Table": {"BulkPutBytes": 0}}],
        "PerformanceTier": request.get("PerformanceTier", "STANDARD"),
    }
    return job_document(description, request, ("ClientToken", "MaxWriteRequestUnits"),
                        id=started, table=table["TableName"], catalog=catalog, region=region)


def summary(description: dict[str, Any]) -> dict[str, Any]:
    keep = ("BulkOperationArn", "BulkOperationStatus", "StartTime", "EndTime")
    return {k: description[k] for k in keep if k in description}


class _Pace:
    """At most ``units`` write units a second (None: no limit)."""

    def __init__(self, units: int | None) -> None:
        self.units = units
        self.started = time.monotonic()
        self.spent = 0.0

    def spend(self, units: float) -> None:
        self.spent += units
        if self.units:
            ahead = self.spent / self.units - (time.monotonic() - self.started)
            if ahead > 0:
                time.sleep(ahead)


def run_bulk(jobs: Jobs, kind: str, name: str) -> None:
    """Put every item of bulk operation ``name``'s objects (a job's runner)."""
    document = jobs.document(kind, name)
    if document is None:
        return
    status = document["description"]["BulkOperationStatus"]
    if status == "CANCELLING":
        _end(jobs, kind, name, {}, "CANCELLED")
        return
    if status != "IN_PROGRESS":
        return
    integrations = jobs.integrations
    assert integrations is not None
    description = document["description"]
    source = description["InputS3Configuration"]
    bucket, prefix = source["S3Bucket"], source.get("S3KeyPrefix", "")
    counts = {"ProcessedItemCount": 0, "ProcessedInputBytes": 0, "FailedItemCount": 0,
              "TotalInputBytes": 0}
    try:
        keys = list(integrations.objects.keys(bucket, prefix))
    except ObjectStoreError as error:
        _end(jobs, kind, name, counts, "FAILED", (f"S3{error.code}", error.message))
        return
    counts["TotalInputBytes"] = sum(size for _, size in keys)
    opened = decompressor(source.get("InputCompressionType", "NONE"))
    pace = _Pace(description.get("MaxWriteRequestUnits"))
    errors: list[bytes] = []
    written = 0
    for key, size in keys:
        try:
            data = opened(integrations.objects.get(bucket, key))
        except Exception as error:  # S3's, gzip's, zstandard's
            counts["FailedItemCount"] += 1
            errors.append(_error_line(key, 0, str(error)))
            continue
        batch: list[tuple[int, dict[str, Any] | str]] = []
        for entry in items_of(data, source["InputFormat"], {}, {}):
            batch.append(entry)
            if len(batch) >= BATCH:
                written += _put(jobs, document, key, batch, counts, errors, pace)
                batch = []
                if _stopping(jobs, kind, name):
                    _end(jobs, kind, name, counts, "CANCELLED", written=written)
                    return
        written += _put(jobs, document, key, batch, counts, errors, pace)
        counts["ProcessedInputBytes"] += size
        jobs.update(kind, name, lambda d: d["description"].update(counts))
        if _stopping(jobs, kind, name):
            _end(jobs, kind, name, counts, "CANCELLED", written=written)
            return
    output = description["OutputS3Configuration"]
    if errors and "ERROR" in output.get("OutputType", ()) and output.get("S3Bucket"):
        base = output.get("S3KeyPrefix", "").rstrip("/")
        where = f"{base}/bulk-operation/{document['id']}/errors.json".lstrip("/")
        try:
            integrations.objects.put(output["S3Bucket"], where, b"".join(errors))
        except ObjectStoreError as error:
            _end(jobs, kind, name, counts, "FAILED", (f"S3{error.code}", error.message),
                 written=written)
            return
    _end(jobs, kind, name, counts,
         "COMPLETED_WITH_ERRORS" if counts["FailedItemCount"] else "COMPLETED", written=written)


def _stopping(jobs: Jobs, kind: str, name: str) -> bool:
    if jobs.closing.is_set():
        return False  # (stays IN_PROGRESS: runs again at the next start)
    document = jobs.document(kind, name)
    return document is not None and document["description"]["BulkOperationStatus"] == "CANCELLING"


def _error_line(key: str, index: int, message: str) -> bytes:
    return orjson.dumps({"key": key, "itemIndex": index, "error": message}) + b"\n"


def _put(jobs: Jobs, document: dict[str, Any], key: str,
         batch: list[tuple[int, dict[str, Any] | str]], counts: dict[str, int],
         errors: list[bytes], pace: _Pace) -> int:
    """Put one batch; the bytes written."""
    integrations = jobs.integrations
    assert integrations is not None
    written = 0
    units = 0.0
    with jobs.store.transaction() as txn:
        before = txn.catalog
        txn.catalog = document["catalog"]
        try:
            for index, item in batch:
                counts["ProcessedItemCount"] += 1
                if isinstance(item, str):
                    counts["FailedItemCount"] += 1
                    errors.append(_error_line(key, index, item))
                    continue
                try:
                    integrations.run(txn, "PutItem", {"TableName": document["table"],
                                                      "Item": item})
                except DynamoDBError as error:
                    counts["FailedItemCount"] += 1
                    errors.append(_error_line(key, index, error.message or error.code()))
                    continue
                size = item_size(item)
                written += size
                units += max(1, -(-size // 1024))
        finally:
            txn.catalog = before
    pace.spend(units)
    return written


def _end(jobs: Jobs, kind: str, name: str, counts: dict[str, int], status: str,
         failure: tuple[str, str] | None = None, written: int = 0) -> None:
    def ended(d: dict[str, Any]) -> None:
        description = d["description"]
        description.update(counts, BulkOperationStatus=status, EndTime=time.time())
        for usage in description["BulkOperationUsage"]:
            usage["BulkPutBytes"] = usage["Table"]["BulkPutBytes"] = written
        if failure is not None:
            description.update(FailureCode=failure[0], FailureMessage=failure[1])

    jobs.update(kind, name, ended)
