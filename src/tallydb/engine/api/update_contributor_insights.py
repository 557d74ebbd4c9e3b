"""UpdateContributorInsights: turn contributor insights on or off for a
table or one of its indexes (``_insights``). DynamoDB answers ENABLING or
DISABLING and shows ENABLED or DISABLED a moment later; tallydb's switch is
immediate, so the answer says ENABLED or DISABLED. An index the table does
not have is DynamoDB's ResourceNotFoundException (its wording for a
missing index, "Requested resource not found: Index: ... not found", as
for a Query)."""

from __future__ import annotations

import time
from typing import Any

from tallydb.engine.api._access import on_table
from tallydb.engine.api._insights import INSIGHTS, stamp
from tallydb.engine.api._jobs import integrations
from tallydb.engine.api.describe_table import find_table, table_named
from tallydb.engine.errors import ResourceNotFoundException
from tallydb.engine.storage import Transaction

INDEX_NOT_FOUND = "Requested resource not found: Index: {} not found"


def indexed(record: Any, index: str | None) -> None:
    if index is None:
        return
    declared = [i["IndexName"] for member in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes")
                for i in record.description.get(member, ())]
    if index not in declared:
        raise ResourceNotFoundException(INDEX_NOT_FOUND.format(index))


#: What a request touches (``_access``): writes the table its TableName names (or
#: the index its IndexName names).
ACCESS = on_table("UpdateContributorInsights", write=True, read=table_named, index=True)


def update_contributor_insights(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    record = find_table(txn, request["TableName"])
    index = request.get("IndexName")
    indexed(record, index)
    enable = request["ContributorInsightsAction"] == "ENABLE"
    settings = dict(record.description.get(INSIGHTS, {}))
    previous = settings.get(index or "", {})
    mode = request.get("ContributorInsightsMode",
                       previous.get("ContributorInsightsMode", "ACCESSED_AND_THROTTLED_KEYS"))
    settings[index or ""] = {
        "ContributorInsightsStatus": "ENABLED" if enable else "DISABLED",
        "ContributorInsightsMode": mode,
        "LastUpdateDateTime": time.time(),
        "stamp": previous.get("stamp", stamp()) if enable else stamp(),
    }
    txn.update_table(record.with_description({**record.description, INSIGHTS: settings}))
    if not enable:
        integrations(txn).extras["insights"].forget(record.key, index or "")
    answer: dict[str, Any] = {"TableName": record.name,
                              "ContributorInsightsStatus": "ENABLED" if enable else "DISABLED",
                              "ContributorInsightsMode": mode}
    if index is not None:
        answer["IndexName"] = index
    return answer
