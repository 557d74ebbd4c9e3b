"""DescribeEndpoints: the one endpoint, cached for a day, as DynamoDB answers
for its regional endpoint (SDKs with endpoint discovery call it).

Over HTTP the server answers it with the address the request reached (its
``Host``, as :func:`endpoints` words it); in process there is no address,
and the conventional local one stands in."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._access import on_nothing
from tallydb.engine.storage import Transaction

#: The address of an engine reached in process (no HTTP endpoint at all).
ADDRESS = "localhost:8000"
CACHE_PERIOD_MINUTES = 1440


#: What a request touches (``_access``): no table.
ACCESS = on_nothing("DescribeEndpoints")


def endpoints(address: str) -> dict[str, Any]:
    """DescribeEndpoints' answer naming ``address`` (``host:port``)."""
    return {"Endpoints": [{"Address": address, "CachePeriodInMinutes": CACHE_PERIOD_MINUTES}]}


def describe_endpoints(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    return endpoints(ADDRESS)
