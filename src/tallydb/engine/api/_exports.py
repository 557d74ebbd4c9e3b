"""ExportTableToPointInTime's exports: their descriptions, and the job that
writes them (``engine/export_layout.py``) to the engine's object store.

An export is a document (``EXPORT``, by ExportArn) holding its
ExportDescription and what the job needs. The job reads the table through a
read view (``storage.reader``): the writer is held only to open it, and
requests go on while the files are written. A full export of "now" (no
ExportTime, or one within the last second) shows the table as it was a
moment after the request (the job's start); one of an earlier ExportTime
shows it as it was when that second began: the items unchanged since as
they are, the others as point-in-time recovery's history kept them
(``_history``). An incremental export holds, for each item changed in
``[ExportFromTime, ExportToTime)`` (to the second), its keys, its image
when the window began (OldImage, in NEW_AND_OLD_IMAGES) and when it ended
(NewImage; none for an item deleted), and the second of its last change in
the window (``WriteTimestampMicros``); an item created and deleted in the
window is left out. Its data files go to ``AWSDynamoDB/data/``, shared by
incremental exports, as DynamoDB's do. DYNAMODB_JSON data lines are the
stored item JSON inside ``{"Item": ...}``, with no parse; ION lines are
converted item by item.

Status moves IN_PROGRESS to COMPLETED, or FAILED with a FailureCode:
``S3NoSuchBucket``, ``S3AccessDenied`` (S3's code after ``S3``), or
``UNKNOWN`` (moto's codes; DynamoDB documents no list).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import orjson

from tallydb.engine.api._history import HISTORY_SOURCE, PITR
from tallydb.engine.api._history import _item_key as history_item_key
from tallydb.engine.api._jobs import Jobs, job_document
from tallydb.engine.api._regions import shown
from tallydb.engine.export_layout import (
    DataWriter,
    export_id,
    export_prefix,
    ion_line,
    timestamp,
    write_manifests,
)
from tallydb.engine.objects import ObjectStoreError
from tallydb.engine.storage import TableRecord
from tallydb.engine.storage.reader import ReadView, read_view

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
    return job_document(description, request, ("ClientToken", "S3BucketOwner", "S3Prefix",
                                               "S3SseKmsKeyId", "IncrementalExportSpecification"),
                        id=started, table=record.name, catalog=record.catalog, region=region)


def summary(description: dict[str, Any]) -> dict[str, Any]:
    """ListExports' ExportSummary."""
    return {k: description[k] for k in ("ExportArn", "ExportStatus", "ExportType")}


#: While requests are writing, an export waits this many times as long as
#: each batch took before the next: it takes about a ninth of the process
#: (it shares the interpreter with the requests), and runs at full speed
#: when nothing else writes.
YIELD = 8.0


class _Courtesy:
    """Paces a job's batches behind the store's writers."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.writes = store.writes
        self.since = time.perf_counter()

    def batch_done(self) -> None:
        now = time.perf_counter()
        if self.store.writes != self.writes:  # requests are writing: make room for them
            time.sleep((now - self.since) * YIELD)
        self.writes = self.store.writes
        self.since = time.perf_counter()


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
        if description["ExportType"] == "INCREMENTAL_EXPORT":
            counts = _write_incremental(jobs, document, folder)
        else:
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
    courtesy = _Courtesy(jobs.store)
    with read_view(jobs.store) as view:
        size = 0
        batch: list[bytes] = []
        for blob in _items_at(view, record, description):
            size += len(blob)
            if export_format == "ION":
                batch.append(ion_line({"Item": orjson.loads(blob)}) + b"\n")
            else:
                batch.append(b'{"Item":' + blob + b"}\n")
            if len(batch) >= 4096:
                writer.write(batch, len(batch))
                batch = []
                courtesy.batch_done()
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


def _second(second: int) -> bytes:
    return second.to_bytes(8, "big")


def _items_at(view: ReadView, record: TableRecord, description: dict[str, Any]
              ) -> Iterator[bytes]:
    """Each item's JSON as the table stores it, as of the export's time: the
    table as it is (a moment after the request), or as it was when the
    second of an earlier ExportTime began."""
    export_time = description["ExportTime"]
    if export_time >= description["StartTime"] - 1.0 or HISTORY_SOURCE not in record.indexes:
        for _, _, blob in view.rows(record):
            yield blob
        return
    then: dict[tuple[bytes, bytes], bytes] = {}
    for _, row_rk, blob in view.rows(record, HISTORY_SOURCE,
                                     after=(_second(int(export_time)), b"")):
        then.setdefault(history_item_key(row_rk), blob)
    for hk, rk, blob in view.rows(record):
        if (hk, rk) not in then:
            yield blob
    for blob in then.values():
        if blob != b"null":
            yield blob


def _write_incremental(jobs: Jobs, document: dict[str, Any], folder: str
                       ) -> tuple[int, int, str]:
    """(changes, bytes, manifest key) of an incremental export, written."""
    assert jobs.integrations is not None
    objects = jobs.integrations.objects
    description = document["description"]
    record = _table(jobs, document)
    if PITR not in record.description or HISTORY_SOURCE not in record.indexes:
        raise LookupError(f"point in time recovery of {record.name} was turned off")
    spec = description["IncrementalExportSpecification"]
    start = int(spec["ExportFromTime"])
    end = int(description["ExportTime"])
    view_type = spec.get("ExportViewType", "NEW_AND_OLD_IMAGES")
    names = [k["AttributeName"] for k in record.description["KeySchema"]]
    data_folder = folder.rpartition("/")[0]  # PREFIX/AWSDynamoDB: its data/ is shared
    writer = DataWriter(objects, description["S3Bucket"], data_folder,
                        description["ExportFormat"])
    size = 0
    with read_view(jobs.store) as view:
        before: dict[tuple[bytes, bytes], bytes] = {}
        last: dict[tuple[bytes, bytes], int] = {}
        after: dict[tuple[bytes, bytes], bytes] = {}
        for row_hk, row_rk, blob in view.rows(record, HISTORY_SOURCE,
                                              after=(_second(start), b"")):
            second = int.from_bytes(row_hk, "big")
            key = history_item_key(row_rk)
            if second < end:
                before.setdefault(key, blob)
                last[key] = second
            elif key in before and key not in after:
                after[key] = blob
        batch: list[bytes] = []
        for key, old_blob in before.items():
            new_blob = after[key] if key in after else (view.get(record, *key) or b"null")
            if old_blob == b"null" and new_blob == b"null":
                continue  # made and deleted within the window
            old = orjson.loads(old_blob)
            new = orjson.loads(new_blob)
            image = new if new is not None else old
            line: dict[str, Any] = {
                "Metadata": {"WriteTimestampMicros": {"N": str(last[key] * 1_000_000)}},
                "Keys": {name: image[name] for name in names},
            }
            if new is not None:
                line["NewImage"] = new
            if old is not None and view_type == "NEW_AND_OLD_IMAGES":
                line["OldImage"] = old
            encoded = (ion_line(line) if description["ExportFormat"] == "ION"
                       else orjson.dumps(line))
            size += len(new_blob) + len(old_blob)
            batch.append(encoded + b"\n")
            if len(batch) >= 4096:
                writer.write(batch, len(batch))
                batch = []
        writer.write(batch, len(batch))
    entries = writer.finish()
    summary_body = {
        "version": "2023-08-01",
        "exportArn": description["ExportArn"],
        "startTime": timestamp(description["StartTime"]),
        "endTime": timestamp(time.time()),
        "tableArn": description["TableArn"],
        "tableId": description["TableId"],
        "exportFromTime": timestamp(float(start)),
        "exportToTime": timestamp(float(end)),
        "s3Bucket": description["S3Bucket"],
        "s3Prefix": description.get("S3Prefix"),
        "s3SseAlgorithm": description["S3SseAlgorithm"],
        "s3SseKmsKeyId": description.get("S3SseKmsKeyId"),
        "billedSizeBytes": size,
        "itemCount": writer.total,
        "outputFormat": description["ExportFormat"],
        "outputView": view_type,
        "exportType": "INCREMENTAL_EXPORT",
    }
    manifest = write_manifests(objects, description["S3Bucket"], folder, entries,
                               shown(summary_body, document["region"]))
    return writer.total, size, manifest
