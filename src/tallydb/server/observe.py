"""What the console's operational view learns of each request, while a
console page listens (``Batcher.metrics`` is set): its table, operation,
consumed read and write units, whether it was throttled, and its latency
(from the request's last byte to its answer being written out).

Units are DynamoDB's own ConsumedCapacity: a request that did not ask for
it is run with ``ReturnConsumedCapacity: TOTAL`` and the member is taken
out of its answer again, so the client sees what it would have seen. With
no page open none of this runs.
"""

from __future__ import annotations

from typing import Any

from tallydb.console.metrics import Metrics
from tallydb.engine.errors import DynamoDBError
from tallydb.server.exchange import Exchange

#: The operations that take ReturnConsumedCapacity.
CAPACITY = frozenset({
    "GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "Scan", "BatchGetItem",
    "BatchWriteItem", "TransactGetItems", "TransactWriteItems", "ExecuteStatement",
    "BatchExecuteStatement", "ExecuteTransaction",
})
READS = frozenset({"GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems"})
THROTTLES = frozenset({"ThrottlingException", "ProvisionedThroughputExceededException",
                       "RequestLimitExceeded"})
UNKNOWN = "(no table)"


def ask_capacity(ex: Exchange) -> bool:
    """Ask for the request's ConsumedCapacity if it did not; whether we did."""
    request = ex.request
    if ex.operation in CAPACITY and type(request) is dict and request.get(
            "ReturnConsumedCapacity") in (None, "NONE"):
        request["ReturnConsumedCapacity"] = "TOTAL"
        return True
    return False


def _table(request: Any) -> str:
    if type(request) is dict:
        name = request.get("TableName")
        if isinstance(name, str):
            return name
        items = request.get("RequestItems")
        if isinstance(items, dict) and items:
            return str(next(iter(items)))
    return UNKNOWN


def answered(ex: Exchange, result: dict[str, Any], asked: bool) -> None:
    """Note the units a request consumed (per table), taking them out of
    the answer if the client did not ask for them."""
    consumed = result.pop("ConsumedCapacity", None) if asked else result.get("ConsumedCapacity")
    reads = ex.operation in READS
    if type(consumed) is dict and len(consumed) == 2:  # TOTAL, one table: the common answer
        total = consumed.get("CapacityUnits")
        table = consumed.get("TableName")
        if type(table) is str and type(total) is float:
            ex.observed = [(table, total, 0.0, False) if reads else (table, 0.0, total, False)]
            return
    entries = consumed if isinstance(consumed, list) else [consumed] if consumed else []
    units: list[tuple[str, float, float, bool]] = []
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        total = float(entry.get("CapacityUnits") or 0.0)
        read = entry.get("ReadCapacityUnits")
        write = entry.get("WriteCapacityUnits")
        if read is None and write is None:
            read, write = (total, 0.0) if reads else (0.0, total)
        units.append((str(entry.get("TableName") or _table(ex.request)),
                      float(read or 0.0), float(write or 0.0), False))
    ex.observed = units or [(_table(ex.request), 0.0, 0.0, False)]


def refused(ex: Exchange, error: DynamoDBError) -> None:
    """Note a request answered with an error (a throttle is counted as one)."""
    ex.observed = [(_table(ex.request), 0.0, 0.0, type(error).__name__ in THROTTLES)]


def record(metrics: Metrics, queue: list[Exchange], now: float) -> None:
    """Hand the answered requests of a batch to the metrics."""
    metrics.record_all(
        (table, ex.operation, now - started if started else 0.0, read, write, throttled)
        for ex in queue if ex.observed is not None and ex.operation is not None
        for started in (getattr(ex, "started", 0.0),)
        for table, read, write, throttled in ex.observed)
