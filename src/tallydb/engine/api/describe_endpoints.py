"""DescribeEndpoints: the one endpoint, cached for a day, as DynamoDB answers
for its regional endpoint (SDKs with endpoint discovery call it)."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._access import on_nothing
from tallydb.engine.storage import Transaction

#: DynamoDB's answer names its regional host; a local server names the
#: conventional local address, which SDKs only read when discovery is on.
ADDRESS = "localhost:8000"
CACHE_PERIOD_MINUTES = 1440


#: What a request touches (``_access``): no table.
ACCESS = on_nothing("DescribeEndpoints")


def describe_endpoints(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    return {"Endpoints": [{"Address": ADDRESS, "CachePeriodInMinutes": CACHE_PERIOD_MINUTES}]}
