"""What the export and import operations touch (``_access``): the table an
export was taken of, or an import fills, as the job's stored record names it."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._access import Resolver, Touch, caller_sees
from tallydb.engine.api.describe_table import table_name_of
from tallydb.engine.storage import Transaction


def job_table(txn: Transaction, kind: str, arn: Any) -> str:
    """The table of the job ``arn`` names: its stored record's TableArn (an
    ARN of no job: the table it names, ``.../table/NAME/export/ID``)."""
    document = txn.document(kind, arn) if isinstance(arn, str) else None
    if document is not None:
        return table_name_of(document["description"]["TableArn"])
    named, _, job = (arn if isinstance(arn, str) else "").partition(":table/")[2].partition("/")
    return named if named and job else "*"


def on_job(action: str, kind: str, member: str) -> Resolver:
    """``ACCESS`` of an operation reading the job its ``member`` ARN names."""
    def resolve(txn: Transaction, request: dict[str, Any]) -> tuple[Touch, ...]:
        return (Touch(action, job_table(txn, kind, request.get(member))),)
    return resolve


def on_jobs(action: str) -> Resolver:
    """``ACCESS`` of a listing of jobs: of the table its TableArn names, or of
    every table the caller may see (the list shows no other)."""
    def resolve(txn: Transaction, request: dict[str, Any]) -> tuple[Touch, ...]:
        arn = request.get("TableArn")
        return (Touch(action, table_name_of(arn) if isinstance(arn, str) else None),)
    return resolve


def visible_job(description: dict[str, Any]) -> bool:
    """Whether the running operation's caller may see a job (its table)."""
    return caller_sees(table_name_of(description["TableArn"]))
