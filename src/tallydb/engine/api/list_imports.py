"""ListImports: the imports (into one table, given TableArn), oldest first,
PageSize (25 at most) a page; NextToken is hex, as the model requires
(at least 112 digits, 16 at a time: the last one's ImportArn, hex-encoded)."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._imports import IMPORT, summary
from tallydb.engine.api._job_access import on_jobs, visible_job
from tallydb.engine.storage import Transaction

PAGE = 25


def _token(arn: str) -> str:
    digits = arn.encode().hex()
    return digits.ljust(max(112, -(-len(digits) // 16) * 16), "0")


#: What a request touches (``_access``): the jobs of the table its TableArn
#: names, or of every table the caller may see (the list shows no other).
ACCESS = on_jobs("ListImports")


def list_imports(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    table = request.get("TableArn")
    documents = sorted((d["description"] for _, d in txn.documents(IMPORT)),
                       key=lambda d: (d["StartTime"], d["ImportArn"]))
    if table is not None:
        documents = [d for d in documents if d["TableArn"] == table]
    documents = [d for d in documents if visible_job(d)]
    after = request.get("NextToken")
    if after is not None:
        tokens = [_token(d["ImportArn"]) for d in documents]
        documents = documents[tokens.index(after) + 1:] if after in tokens else []
    limit = request.get("PageSize") or PAGE  # (null is absent, as in every JSON member)
    page = documents[:limit]
    answer: dict[str, Any] = {"ImportSummaryList": [summary(d) for d in page]}
    if len(documents) > limit:
        answer["NextToken"] = _token(page[-1]["ImportArn"])
    return answer
