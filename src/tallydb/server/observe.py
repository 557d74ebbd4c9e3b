"""What the console's operational view learns of each request, while a
console page listens (``Batcher.metrics`` is set): its table, operation,
consumed read and write units, whether it was throttled, and its latency
(from the request's last byte to its answer being written out, on
``time.perf_counter``: the event loop's clock counts whole milliseconds).

Units are DynamoDB's own ConsumedCapacity: a request that did not ask for
it is run with ``ReturnConsumedCapacity: TOTAL`` and the member is taken
out of its answer again, so the client sees what it would have seen. The
answer's entry is kept on the exchange as it is and read once per batch
(``Metrics.record_answers``). With no page open none of this runs.
"""

from __future__ import annotations

from typing import Any

from tallydb.console.metrics import Metrics, table_of
from tallydb.engine.errors import DynamoDBError
from tallydb.server.exchange import Exchange

#: The operations that take ReturnConsumedCapacity.
CAPACITY = frozenset({
    "GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "Scan", "BatchGetItem",
    "BatchWriteItem", "TransactGetItems", "TransactWriteItems", "ExecuteStatement",
    "BatchExecuteStatement", "ExecuteTransaction",
})
THROTTLES = frozenset({"ThrottlingException", "ProvisionedThroughputExceededException",
                       "RequestLimitExceeded"})


def ask_capacity(ex: Exchange) -> bool:
    """Ask for the request's ConsumedCapacity if it did not; whether we did."""
    request = ex.request
    if type(request) is dict and ex.operation in CAPACITY and request.get(
            "ReturnConsumedCapacity") in (None, "NONE"):
        request["ReturnConsumedCapacity"] = "TOTAL"
        return True
    return False


def answered(ex: Exchange, result: dict[str, Any], asked: bool) -> None:
    """Keep the units a request consumed, taking them out of the answer
    if the client did not ask for them."""
    consumed = result.pop("ConsumedCapacity", None) if asked else result.get("ConsumedCapacity")
    ex.observed = consumed if consumed is not None else (table_of(ex.request), False)


def refused(ex: Exchange, error: DynamoDBError) -> None:
    """Note a request answered with an error (a throttle is counted as one)."""
    ex.observed = (table_of(ex.request), type(error).__name__ in THROTTLES)


def record(metrics: Metrics, queue: list[Exchange], now: float) -> None:
    """Hand the answered requests of a batch to the metrics."""
    metrics.record_answers(queue, now)
