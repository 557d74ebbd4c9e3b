"""ExportTableToPointInTime: a table's items (FULL_EXPORT, at ExportTime)
or its changes between two times (INCREMENTAL_EXPORT) to an S3 bucket, in
the background (``_exports``), as DynamoDB's export layout.

DynamoDB's order (``_pipeline``): the request's own consistency first
(an incremental export's specification, and no ExportTime with it; a full
export without one), then the table (TableNotFoundException, moto's wording "Table
not found: ARN"), point-in-time recovery on (PointInTimeRecoveryUnavailableException,
moto's wording), the times within the recovery window
(InvalidExportTimeException) and an incremental window of at most 24 hours,
then a ClientToken seen before: the same request answers the same export,
another is an ExportConflictException. The texts of these refusals are not
on record: ours. Times count to the second, the history's granularity.
DynamoDB also refuses an incremental window under 15 minutes; tallydb
takes any window of a second or more, so that a test can rehearse one.
"""

from __future__ import annotations

import time
from typing import Any

from tallydb.engine.api import _history as history
from tallydb.engine.api._access import Touch, bucket
from tallydb.engine.api._exports import EXPORT, new_export
from tallydb.engine.api._jobs import integrations
from tallydb.engine.api._shapes import modelled
from tallydb.engine.api.describe_table import table_name_of
from tallydb.engine.errors import (
    ExportConflictException,
    InvalidExportTimeException,
    PointInTimeRecoveryUnavailableException,
    TableNotFoundException,
    ValidationException,
)
from tallydb.engine.storage import Transaction

TABLE_NOT_FOUND = "Table not found: {}"
NO_RECOVERY = "Point in time recovery is not enabled for table '{}'"
#: ExportTime outside the window (not on record: ours).
BAD_TIME = ("ExportTime must be within the point in time recovery window of table '{}' "
            "(between {:.3f} and {:.3f})")
#: A ClientToken reused with other parameters (not on record: ours).
TOKEN_REUSED = "The ClientToken {} was used for another export request"
INCREMENTAL_NEEDS_SPEC = ("IncrementalExportSpecification with an ExportFromTime is required "
                          "when ExportType is INCREMENTAL_EXPORT")
NO_EXPORT_TIME = "ExportTime cannot be given with ExportType INCREMENTAL_EXPORT"
SPEC_FOR_INCREMENTAL = "IncrementalExportSpecification is only for ExportType INCREMENTAL_EXPORT"
WINDOW = ("ExportFromTime must be at least a second before ExportToTime, and at most 24 hours "
          "before it")
DAY = 86_400


def access(txn: Transaction, request: dict[str, Any]) -> tuple[Touch, ...]:
    """What a request touches (``_access``): the table its TableArn names,
    read whole into a new export (a job: a write, as a backup is), and the
    S3 bucket its files are written to."""
    arn = request.get("TableArn")
    return (Touch("ExportTableToPointInTime", table_name_of(arn) if isinstance(arn, str)
                  else "*", write=True),
            bucket("ExportTableToPointInTime", request.get("S3Bucket"), write=True))


ACCESS = access


def validate(request: dict[str, Any]) -> None:
    """The checks before the table is looked up: the export type against
    the members that go with it."""
    spec = request.get("IncrementalExportSpecification")
    if request.get("ExportType") == "INCREMENTAL_EXPORT":
        if spec is None or "ExportFromTime" not in spec:
            raise ValidationException(INCREMENTAL_NEEDS_SPEC)
        if "ExportTime" in request:
            raise ValidationException(NO_EXPORT_TIME)
    elif spec is not None:
        raise ValidationException(SPEC_FOR_INCREMENTAL)


def export_table_to_point_in_time(txn: Transaction, request: dict[str, Any], checked: None
                                  ) -> dict[str, Any]:
    request = modelled("ExportTableToPointInTime", request)  # kept as given: the model's members
    arn = request["TableArn"]
    record = txn.table(table_name_of(arn))
    if record is None or record.description.get("TableArn") != arn:
        raise TableNotFoundException(TABLE_NOT_FOUND.format(arn))
    pitr = record.description.get("_PointInTimeRecovery")
    if pitr is None:
        raise PointInTimeRecoveryUnavailableException(NO_RECOVERY.format(record.name))
    now = time.time()
    first = history.earliest(pitr, now) if "Since" in pitr else float(pitr["Enabled"])
    if request.get("ExportType") == "INCREMENTAL_EXPORT":
        spec = request["IncrementalExportSpecification"]  # (given: ``validate``)
        start = float(spec["ExportFromTime"])
        end = float(spec.get("ExportToTime", now))
        for moment in (start, end):
            if not first <= moment <= now + 1.0:
                raise InvalidExportTimeException(BAD_TIME.format(record.name, first, now))
        if not 1.0 <= end - start <= DAY:
            raise ValidationException(WINDOW)
        export_time = min(end, now)
    else:
        export_time = float(request.get("ExportTime", now))
        enabled = min(first, float(pitr["Enabled"]))  # (now is exportable from the start)
        if not enabled <= export_time <= now + 1.0:
            raise InvalidExportTimeException(BAD_TIME.format(record.name, enabled, now))
        export_time = min(export_time, now)
    token = request.get("ClientToken")
    if token is not None:
        for _, document in txn.documents(EXPORT):
            if document["description"].get("ClientToken") == token:
                if document["request"] != request:
                    raise ExportConflictException(TOKEN_REUSED.format(token))
                return {"ExportDescription": document["description"]}
    document = new_export(record, request, now, export_time, integrations(txn).region)
    arn = document["description"]["ExportArn"]
    txn.put_document(EXPORT, arn, document)
    integrations(txn).jobs.start(EXPORT, arn)
    return {"ExportDescription": document["description"]}
