"""What the console's operational view learns of each request, while a
console page listens (``Batcher.metrics`` is set): its table, operation,
consumed read and write units, whether it was throttled, and its latency
(from the request's last byte to its answer being written out, on
``time.perf_counter``: the event loop's clock counts whole milliseconds).

Units are DynamoDB's own ConsumedCapacity, TOTAL. PutItem, UpdateItem and
DeleteItem leave theirs in the engine's units report while a page listens
(``Engine.report_units``), whether the request asked for them or not: the
request and its answer are left as they are, and what the report holds
(``(table, units)``, or the table's name for one unit) is kept on the
exchange by the batch itself (``Batcher._run``). Any other request that
did not ask for them is run with ``ReturnConsumedCapacity: TOTAL`` and the
member is taken out of its answer again, so the client sees what it would
have seen; the answer's entry is kept on the exchange as it is. Each
batch's exchanges are read in one pass (``Metrics.record_answers``). With
no page open none of this runs.
"""

from __future__ import annotations

from typing import Any

from tallydb.console.metrics import Metrics, table_of
from tallydb.engine.api import UnitsReport
from tallydb.engine.errors import DynamoDBError
from tallydb.server.exchange import Exchange

#: The operations that take ReturnConsumedCapacity.
CAPACITY = frozenset({
    "GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "Scan", "BatchGetItem",
    "BatchWriteItem", "TransactGetItems", "TransactWriteItems", "ExecuteStatement",
    "BatchExecuteStatement", "ExecuteTransaction",
})
#: The operations that leave their units in the engine's report.
REPORTED = frozenset({"PutItem", "UpdateItem", "DeleteItem"})
#: The operations whose units are asked for, when the request did not.
ASKED = CAPACITY - REPORTED
THROTTLES = frozenset({"ThrottlingException", "ProvisionedThroughputExceededException",
                       "RequestLimitExceeded"})


def ask_capacity(ex: Exchange) -> bool:
    """Ask for the request's ConsumedCapacity if it did not and the engine
    does not report it; whether we did."""
    request = ex.request
    if ex.operation in ASKED and type(request) is dict and request.get(
            "ReturnConsumedCapacity") in (None, "NONE"):
        # (a copy: routing may share one parsed request between exchanges)
        ex.request = {**request, "ReturnConsumedCapacity": "TOTAL"}
        return True
    return False


def answered(ex: Exchange, result: dict[str, Any], asked: bool,
             report: UnitsReport | None) -> None:
    """Keep the units a request consumed: from the engine's ``report``,
    or from the answer (taken out of it if the client did not ask)."""
    if asked:
        consumed = result.pop("ConsumedCapacity", None)
    else:
        if report is not None and ex.operation in REPORTED:
            last = report.last
            if last is not None:
                report.last = None
                ex.observed = last
                return
        consumed = result.get("ConsumedCapacity")
    ex.observed = consumed if consumed is not None else (table_of(ex.request), False)


def refused(ex: Exchange, error: DynamoDBError) -> None:
    """Note a request answered with an error (a throttle is counted as one)."""
    ex.observed = (table_of(ex.request), type(error).__name__ in THROTTLES)


def record(metrics: Metrics, queue: list[Exchange], now: float) -> None:
    """Hand the answered requests of a batch to the metrics."""
    metrics.record_answers(queue, now)
