"""DescribeContributorInsights: a table's or index's insights status, mode,
rule names and last change (DISABLED, with no rules, until first enabled)."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._access import on_table
from tallydb.engine.api._insights import rule_names, setting_of
from tallydb.engine.api.describe_table import find_table, table_named
from tallydb.engine.api.update_contributor_insights import indexed
from tallydb.engine.storage import Transaction

#: What a request touches (``_access``): reads the table its TableName names (or
#: the index its IndexName names).
ACCESS = on_table("DescribeContributorInsights", write=False, read=table_named, index=True)


def describe_contributor_insights(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    record = find_table(txn, request["TableName"])
    index = request.get("IndexName")
    indexed(record, index)
    setting = setting_of(record, index)
    answer: dict[str, Any] = {"TableName": record.name}
    if index is not None:
        answer["IndexName"] = index
    if setting is None:
        answer["ContributorInsightsStatus"] = "DISABLED"
        return answer
    answer.update(
        ContributorInsightsRuleList=rule_names(record, index, setting),
        ContributorInsightsStatus=setting["ContributorInsightsStatus"],
        LastUpdateDateTime=setting["LastUpdateDateTime"],
        ContributorInsightsMode=setting["ContributorInsightsMode"],
    )
    return answer
