"""ListGlobalTables (global tables version 2017.11.29): the legacy groups
by name, those with a replica in RegionName if given, paged by Limit and
ExclusiveStartGlobalTableName."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._access import caller_sees, on_nothing
from tallydb.engine.api._global import GLOBAL
from tallydb.engine.api._legacy_global import LEGACY
from tallydb.engine.storage import Transaction

DEFAULT_LIMIT = 100


#: What a request touches (``_access``): no table (it lists only the groups the caller may see).
ACCESS = on_nothing("ListGlobalTables")


def list_global_tables(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    groups: dict[str, list[dict[str, str]]] = {}
    for record in txn.all_tables():
        group = record.description.get(GLOBAL)
        if group is not None and group.get("Version") == LEGACY and caller_sees(record.name):
            groups[record.name] = [{"RegionName": r["RegionName"]} for r in group["Replicas"]]
    region = request.get("RegionName")
    start = request.get("ExclusiveStartGlobalTableName")
    names = [n for n in sorted(groups) if (start is None or n > start) and (
        region is None or {"RegionName": region} in groups[n])]
    limit = request.get("Limit") or DEFAULT_LIMIT
    answer: dict[str, Any] = {"GlobalTables": [
        {"GlobalTableName": n, "ReplicationGroup": groups[n]} for n in names[:limit]]}
    if len(names) > limit:
        answer["LastEvaluatedGlobalTableName"] = names[limit - 1]
    return answer
