"""DescribeImport: an import's ImportTableDescription, as its job last left it."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._imports import IMPORT
from tallydb.engine.api._job_access import on_job
from tallydb.engine.errors import ImportNotFoundException
from tallydb.engine.storage import Transaction

#: Not on record: ours.
IMPORT_NOT_FOUND = "Import not found: {}"


#: What a request touches (``_access``): reads the job its ImportArn names (so
#: the table it is of).
ACCESS = on_job("DescribeImport", IMPORT, "ImportArn")


def describe_import(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    arn = request["ImportArn"]
    document = txn.document(IMPORT, arn)
    if document is None:
        raise ImportNotFoundException(IMPORT_NOT_FOUND.format(arn))
    return {"ImportTableDescription": document["description"]}
