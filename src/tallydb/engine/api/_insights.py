"""Contributor insights: the most accessed and most throttled keys of a
table or index, from a bounded sketch per table and index
(``tallydb.engine.hotkeys``, the console's hot-keys sketch).

A table's settings are kept in its description (``INSIGHTS``: by index
name, "" for the table, its status, mode, the time it was last changed and
the stamp its rule names carry). While a table or index has insights
ENABLED in ACCESSED_AND_THROTTLED_KEYS mode, every item write
(``_indexes.write_item``) and GetItem counts the item it touches in that
sketch; with ``--emulate-limits`` each throttled request counts its
partition. A table without insights pays one dictionary lookup per write.
The sketches live in memory: a restart starts them afresh, as a new
CloudWatch window would.

The rules DynamoDB creates in CloudWatch are named
``DynamoDBContributorInsights-{PKC,SKC,PKT,SKT}-TABLE[-INDEX]-STAMP``:
partition keys (PK) or whole keys (SK, for a key with a sort key), most
accessed (C) or throttled (T); THROTTLED_KEYS mode has only the T rules.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from tallydb.engine.feed import Change
from tallydb.engine.hotkeys import HotKeys
from tallydb.engine.storage import TableRecord

__all__ = ["INSIGHTS", "Insights", "rule_names", "setting_of"]

INSIGHTS = "_ContributorInsights"
ACCESSED = "ACCESSED_AND_THROTTLED_KEYS"


def setting_of(record: TableRecord, index: str | None) -> dict[str, Any] | None:
    found: dict[str, Any] | None = record.description.get(INSIGHTS, {}).get(index or "")
    return found


def rule_names(record: TableRecord, index: str | None, setting: dict[str, Any]) -> list[str]:
    """The names of the CloudWatch rules DynamoDB keeps for these insights."""
    if setting["ContributorInsightsStatus"] != "ENABLED":
        return []
    if index is None:
        schema = record.description["KeySchema"]
    else:
        declared = [*record.description.get("GlobalSecondaryIndexes", ()),
                    *record.description.get("LocalSecondaryIndexes", ())]
        schema = next(i["KeySchema"] for i in declared if i["IndexName"] == index)
    kinds = ["PK"] + (["SK"] if len(schema) > 1 else [])
    suffixes = ["T"] if setting["ContributorInsightsMode"] != ACCESSED else ["C", "T"]
    name = record.name if index is None else f"{record.name}-{index}"
    return [f"DynamoDBContributorInsights-{kind}{suffix}-{name}-{setting['stamp']}"
            for suffix in suffixes for kind in kinds]


class Insights:
    """The sketches of one engine, by (table's catalog key, index or "")."""

    def __init__(self) -> None:
        self._sketches: dict[tuple[str, str], HotKeys] = {}
        self._lock = threading.Lock()

    def sketch(self, table: str, index: str) -> HotKeys:
        key = (table, index)
        found = self._sketches.get(key)
        if found is None:
            with self._lock:
                found = self._sketches.setdefault(key, HotKeys())
        return found

    def forget(self, table: str, index: str) -> None:
        with self._lock:
            self._sketches.pop((table, index), None)

    def accessed(self, record: TableRecord, settings: dict[str, Any], hk: bytes, rk: bytes,
                 item: dict[str, Any] | None) -> None:
        """Count one access of an item of ``record``'s table (and of each
        index with insights that holds it)."""
        if item is None:
            return
        change = Change(record, hk, rk, None, item)
        for index, setting in settings.items():
            if (setting["ContributorInsightsStatus"] != "ENABLED"
                    or setting["ContributorInsightsMode"] != ACCESSED):
                continue
            if index == "":
                self.sketch(record.key, "").record(((change, 1),))
            elif all(k["AttributeName"] in item for k in _index_schema(record, index)):
                self.sketch(record.key, index).record(((change, 1),))

    def throttled(self, record: TableRecord, hk: bytes) -> None:
        for index, setting in record.description.get(INSIGHTS, {}).items():
            if setting["ContributorInsightsStatus"] == "ENABLED":
                self.sketch(record.key, index).throttled(record.name, hk)

    def top(self, record: TableRecord, index: str | None, limit: int) -> list[dict[str, Any]]:
        """The busiest keys of the last minute, busiest first (as the
        console's panel shows them)."""
        found = self._sketches.get((record.key, index or ""))
        if found is None:
            return []
        return [{k: v for k, v in entry.items() if k != "table"}
                for entry in found.top(limit)]


def _index_schema(record: TableRecord, index: str) -> list[dict[str, Any]]:
    for member in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        for declared in record.description.get(member, ()):
            if declared["IndexName"] == index:
                schema: list[dict[str, Any]] = declared["KeySchema"]
                return schema
    return []


def stamp() -> int:
    return int(time.time() * 1000)
