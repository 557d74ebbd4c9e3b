"""ExportTableToPointInTime: a table's items to an S3 bucket, in the
background (``_exports``), as DynamoDB's export layout.

DynamoDB's order: the table (TableNotFoundException, moto's wording "Table
not found: ARN"), point-in-time recovery on (PointInTimeRecoveryUnavailableException,
moto's wording), ExportTime within the recovery window
(InvalidExportTimeException; not on record, ours), then a ClientToken seen
before: the same request answers the same export, another is an
ExportConflictException (not on record, ours).
"""

from __future__ import annotations

import time
from typing import Any

from tallydb.engine.api._exports import EXPORT, new_export
from tallydb.engine.api._jobs import integrations
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
#: The export's history reaches back no further than this many seconds
#: (tallydb exports the table as it is: a time in the past is refused).
NOW_SLACK = 5.0
INCREMENTAL_NEEDS_SPEC = (
    "IncrementalExportSpecification is required when ExportType is INCREMENTAL_EXPORT")


def export_table_to_point_in_time(txn: Transaction, request: dict[str, Any]
                                  ) -> dict[str, Any]:
    arn = request["TableArn"]
    record = txn.table(table_name_of(arn))
    if record is None or record.description.get("TableArn") != arn:
        raise TableNotFoundException(TABLE_NOT_FOUND.format(arn))
    pitr = record.description.get("_PointInTimeRecovery")
    if pitr is None:
        raise PointInTimeRecoveryUnavailableException(NO_RECOVERY.format(record.name))
    now = time.time()
    export_time = float(request.get("ExportTime", now))
    earliest = max(float(pitr["Enabled"]), now - NOW_SLACK)
    if not earliest <= export_time <= now + 1.0:
        raise InvalidExportTimeException(BAD_TIME.format(record.name, earliest, now))
    export_time = min(export_time, now)
    if request.get("ExportType") == "INCREMENTAL_EXPORT":
        raise ValidationException(INCREMENTAL_NEEDS_SPEC)
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
