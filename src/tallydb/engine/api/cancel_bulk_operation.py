"""CancelBulkOperation: ask a running bulk operation to stop (CANCELLING,
then CANCELLED once its job has put its current batch); one that has ended
keeps its status."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._bulk import BULK, bulk_operation, on_bulk_operation
from tallydb.engine.storage import Transaction

ACCESS = on_bulk_operation("CancelBulkOperation", write=True)


def cancel_bulk_operation(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    arn = request["BulkOperationArn"]
    document = bulk_operation(txn, arn)
    description = document["description"]
    if description["BulkOperationStatus"] == "IN_PROGRESS":
        description["BulkOperationStatus"] = "CANCELLING"
        txn.put_document(BULK, arn, document)
    return {"BulkOperationArn": arn, "BulkOperationStatus": description["BulkOperationStatus"]}
