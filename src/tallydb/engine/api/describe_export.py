"""DescribeExport: an export's ExportDescription, as its job last left it."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._exports import EXPORT
from tallydb.engine.errors import ExportNotFoundException
from tallydb.engine.storage import Transaction

#: Not on record: ours.
EXPORT_NOT_FOUND = "Export not found: {}"


def describe_export(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    arn = request["ExportArn"]
    document = txn.document(EXPORT, arn)
    if document is None:
        raise ExportNotFoundException(EXPORT_NOT_FOUND.format(arn))
    return {"ExportDescription": document["description"]}
