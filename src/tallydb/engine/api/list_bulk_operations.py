"""ListBulkOperations: every bulk operation, oldest first, MaxResults (25
at most) a page; NextToken is hex, as the model requires (the next one's
place, 16 hex digits)."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._access import caller_sees, on_nothing
from tallydb.engine.api._bulk import BULK, summary
from tallydb.engine.storage import Transaction

PAGE = 25


#: What a request touches (``_access``): no table; it lists the operations
#: into the tables the caller may see.
ACCESS = on_nothing("ListBulkOperations")


def list_bulk_operations(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    found = sorted((d["description"] for _, d in txn.documents(BULK)
                    if caller_sees(d["table"])),
                   key=lambda d: (d["StartTime"], d["BulkOperationArn"]))
    token = request.get("NextToken")
    start = int(token, 16) if token else 0
    limit = request.get("MaxResults") or PAGE  # (null is absent, as in every JSON member)
    answer: dict[str, Any] = {"BulkOperationsSummaryList": [
        summary(d) for d in found[start:start + limit]]}
    if start + limit < len(found):
        answer["NextToken"] = f"{start + limit:016x}"
    return answer
