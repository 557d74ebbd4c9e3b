"""ListContributorInsights: the insights of every table (or one table) and
its global secondary indexes, each with its status and mode; MaxResults a
page (100 at most), NextToken where the next page starts."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._access import Touch, caller_sees
from tallydb.engine.api._insights import setting_of
from tallydb.engine.api.describe_table import find_table, table_named
from tallydb.engine.storage import Transaction

PAGE = 100


def access(txn: Transaction, request: dict[str, Any]) -> tuple[Touch, ...]:
    """What a request touches (``_access``): the insights of the table its
    TableName names, or of every table the caller may see (the list shows
    no other)."""
    return (Touch("ListContributorInsights", table_named(request.get("TableName"))),)


ACCESS = access


def list_contributor_insights(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    table = request.get("TableName")
    records = [find_table(txn, table)] if table is not None else [
        record for record in txn.tables() if caller_sees(record.name)]
    summaries = []
    for record in records:
        indexes = [None] + [i["IndexName"]
                            for i in record.description.get("GlobalSecondaryIndexes", ())]
        for index in indexes:
            setting = setting_of(record, index)
            summary: dict[str, Any] = {"TableName": record.name}
            if index is not None:
                summary["IndexName"] = index
            summary["ContributorInsightsStatus"] = (
                "DISABLED" if setting is None else setting["ContributorInsightsStatus"])
            if setting is not None:
                summary["ContributorInsightsMode"] = setting["ContributorInsightsMode"]
            summaries.append(summary)
    start = int(request["NextToken"]) if str(request.get("NextToken", "")).isdigit() else 0
    limit = request.get("MaxResults") or PAGE
    page = summaries[start:start + limit]
    answer: dict[str, Any] = {"ContributorInsightsSummaries": page}
    if start + limit < len(summaries):
        answer["NextToken"] = str(start + limit)
    return answer
