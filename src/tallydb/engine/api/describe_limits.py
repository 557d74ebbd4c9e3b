"""DescribeLimits: DynamoDB's default provisioned-throughput quotas for an
account and a table in a region (documented service quotas)."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._access import on_nothing
from tallydb.engine.storage import Transaction

ACCOUNT_MAX_UNITS = 80_000
TABLE_MAX_UNITS = 40_000


#: What a request touches (``_access``): no table.
ACCESS = on_nothing("DescribeLimits")


def describe_limits(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    return {
        "AccountMaxReadCapacityUnits": ACCOUNT_MAX_UNITS,
        "AccountMaxWriteCapacityUnits": ACCOUNT_MAX_UNITS,
        "TableMaxReadCapacityUnits": TABLE_MAX_UNITS,
        "TableMaxWriteCapacityUnits": TABLE_MAX_UNITS,
    }
