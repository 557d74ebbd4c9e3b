"""DescribeExport: an export's ExportDescription, as its job last left it."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._exports import EXPORT
from tallydb.engine.api._job_access import on_job
from tallydb.engine.errors import ExportNotFoundException
from tallydb.engine.storage import Transaction

#: Not on record: ours.
EXPORT_NOT_FOUND = "Export not found: {}"


#: What a request touches (``_access``): reads the job its ExportArn names (so
#: the table it is of).
ACCESS = on_job("DescribeExport", EXPORT, "ExportArn")


def describe_export(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    arn = request["ExportArn"]
    document = txn.document(EXPORT, arn)
    if document is None:
        raise ExportNotFoundException(EXPORT_NOT_FOUND.format(arn))
    return {"ExportDescription": document["description"]}
