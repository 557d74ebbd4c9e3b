"""ListExports: the exports (of one table, given TableArn), oldest first,
MaxResults (25 at most) a page, NextToken the last one's ExportArn."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._exports import EXPORT, summary
from tallydb.engine.api._job_access import on_jobs, visible_job
from tallydb.engine.storage import Transaction

PAGE = 25


#: What a request touches (``_access``): the jobs of the table its TableArn
#: names, or of every table the caller may see (the list shows no other).
ACCESS = on_jobs("ListExports")


def list_exports(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    table = request.get("TableArn")
    documents = sorted((d["description"] for _, d in txn.documents(EXPORT)),
                       key=lambda d: (d["StartTime"], d["ExportArn"]))
    if table is not None:
        documents = [d for d in documents if d["TableArn"] == table]
    documents = [d for d in documents if visible_job(d)]
    after = request.get("NextToken")
    if after is not None:
        arns = [d["ExportArn"] for d in documents]
        documents = documents[arns.index(after) + 1:] if after in arns else []
    limit = request.get("MaxResults") or PAGE  # (null is absent, as in every JSON member)
    page = documents[:limit]
    answer: dict[str, Any] = {"ExportSummaries": [summary(d) for d in page]}
    if len(documents) > limit:
        answer["NextToken"] = page[-1]["ExportArn"]
    return answer
