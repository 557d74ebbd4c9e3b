"""ExportTableToPointInTime's exports: their descriptions, and the job that
writes them (``_export_layout``) to the engine's object store.

An export is a document (``EXPORT``, by ExportArn) holding its
ExportDescription and what the job needs. The job reads the table through a
read view (``storage.reader``): the writer is held only to open it, and
requests go on while the files are written. The view shows the table as it
was a moment after the request (the job's start). DYNAMODB_JSON data lines
are the stored item JSON inside ``{"Item": ...}``, with no parse; ION lines
are converted item by item.

Status moves IN_PROGRESS to COMPLETED, or FAILED with a FailureCode:
``S3NoSuchBucket``, ``S3AccessDenied`` (S3's code after ``S3``), or
``UNKNOWN`` (moto's codes; DynamoDB documents no list).
"""

from __future__ import annotations

import time
from typing import Any

from tallydb.engine.api._export_layout import (
    DataWriter,
    export_id,
    export_prefix,
    ion_line,
    timestamp,
    write_manifests,
)
from tallydb.engine.api._jobs import Jobs
from tallydb.engine.api._regions import shown
from tallydb.engine.objects import ObjectStoreError
from tallydb.engine.storage import TableRecord
from tallydb.engine.storage.reader import read_view

__all__ = ["EXPORT", "new_export", "run_export", "summary"]

EXPORT = "export"


def new_export(record: TableRecord, request: dict[str, Any], now: float,
               export_time: float, region: str) -> dict[str, Any]:
    """The document of a new export of ``record``'s table."""
    table = record.description
    started = export_id(now)
    description: dict[str, Any] = {
        "ExportArn": f"{table['TableArn']}/export/{started}",
        "ExportStatus": "IN_PROGRESS",
        "StartTime": now,
        "TableArn": table["TableArn"],
        "TableId": table["TableId"],
        "ExportTime": export_time,
        "S3Bucket": request["S3Bucket"],
        "S3SseAlgorithm": request.get("S3SseAlgorithm", "AES256"),
        "ExportFormat": request.get("ExportFormat", "DYNAMODB_JSON"),
        "ExportType": request.get("ExportType", "FULL_EXPORT"),
    }
    for member in ("ClientToken", "S3BucketOwner", "S3Prefix", "S3SseKmsKeyId",
                   "IncrementalExportSpecification"):
        if member in request:
            description[member] = request[member]
    return {"description": description, "id": started, "table": record.name,
            "catalog": record.catalog, "request": request, "region": region}


def summary(description: dict[str, Any]) -> dict[str, Any]:
    """ListExports' ExportSummary."""
    return {k: description[k] for k in ("ExportArn", "ExportStatus", "ExportType")}


class Stopped(Exception):
    """The server is stopping: the job stays IN_PROGRESS, to run again at the next start."""


def _failed(document: dict[str, Any], code: str, message: str) -> None:
    description = document["description"]
    description.update(ExportStatus="FAILED", EndTime=time.time(), FailureCode=code,
                       FailureMessage=message)


def run_export(jobs: Jobs, kind: str, name: str) -> None:
    """Write export ``name`` to its bucket (a job's runner)."""
    document = jobs.document(kind, name)
    if document is None or document["description"]["ExportStatus"] != "IN_PROGRESS":
        return
    assert jobs.integrations is not None
    objects = jobs.integrations.objects
    description = document["description"]
    bucket = description["S3Bucket"]
    folder = export_prefix(description.get("S3Prefix"), document["id"])
    try:
        objects.put(bucket, f"{folder}/_started", b"")
        counts = _write_full(jobs, document, folder)
    except Stopped:
        return
    except ObjectStoreError as error:
        code, message = f"S3{error.code}", error.message
        jobs.update(kind, name, lambda d: _failed(d, code, message))
        return
    except LookupError as error:
        text = str(error)
        jobs.update(kind, name, lambda d: _failed(d, "UNKNOWN", text))
        return
    items, size, manifest = counts

    def completed(d: dict[str, Any]) -> None:
        d["description"].update(ExportStatus="COMPLETED", EndTime=time.time(),
                                ExportManifest=manifest, ItemCount=items,
                                BilledSizeBytes=size)

    jobs.update(kind, name, completed)


def _table(jobs: Jobs, document: dict[str, Any]) -> TableRecord:
    with jobs.store.transaction() as txn:
        before = txn.catalog
        txn.catalog = document["catalog"]
        try:
            record = txn.table(document["table"])
        finally:
            txn.catalog = before
    if record is None or record.description["TableArn"] != document["description"]["TableArn"]:
        raise LookupError(f"the table {document['table']} was deleted during its export")
    return record


def _write_full(jobs: Jobs, document: dict[str, Any], folder: str) -> tuple[int, int, str]:
    """(items, bytes, manifest key) of a full export, written."""
    assert jobs.integrations is not None
    objects = jobs.integrations.objects
    description = document["description"]
    record = _table(jobs, document)
    export_format = description["ExportFormat"]
    writer = DataWriter(objects, description["S3Bucket"], folder, export_format)
    with read_view(jobs.store) as view:
        _, size = view.counts(record)
        batch: list[bytes] = []
        for _, _, blob in view.rows(record):
            if export_format == "ION":
                import orjson

                batch.append(ion_line({"Item": orjson.loads(blob)}) + b"\n")
            else:
                batch.append(b'{"Item":' + blob + b"}\n")
            if len(batch) >= 4096:
                writer.write(batch, len(batch))
                batch = []
                if jobs.closing.is_set():
                    raise Stopped
        writer.write(batch, len(batch))
    entries = writer.finish()
    summary_body = {
        "version": "2020-06-30",
        "exportArn": description["ExportArn"],
        "startTime": timestamp(description["StartTime"]),
        "endTime": timestamp(time.time()),
        "tableArn": description["TableArn"],
        "tableId": description["TableId"],
        "exportTime": timestamp(description["ExportTime"]),
        "s3Bucket": description["S3Bucket"],
        "s3Prefix": description.get("S3Prefix"),
        "s3SseAlgorithm": description["S3SseAlgorithm"],
        "s3SseKmsKeyId": description.get("S3SseKmsKeyId"),
        "billedSizeBytes": size,
        "itemCount": writer.total,
        "outputFormat": export_format,
    }
    manifest = write_manifests(objects, description["S3Bucket"], folder, entries,
                               shown(summary_body, document["region"]))
    return writer.total, size, manifest
