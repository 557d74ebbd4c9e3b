"""Throughput realism, opt-in (``tallydb serve --emulate-limits``).

DynamoDB throttles a request when it would exceed:

- a partition's ceiling: 1,000 write units and 3,000 read units per second,
  whatever the table's billing mode (reads and writes throttle
  independently). A hot counter, one item written by every client, meets
  this first; spreading it over shards is the cure;
- a PROVISIONED table's own throughput (and a provisioned GSI's), with up to
  300 seconds of unused capacity kept as burst.

Each ceiling is a token bucket keyed by table (by its TableId, so a table
recreated under the same name starts afresh) and partition key value (each
key value is taken as its own partition: the most favourable split DynamoDB
can make). A request is admitted while its buckets are not empty and then
charged what it really consumed (its ConsumedCapacity), so a bucket may dip
below zero, as DynamoDB's do; a throttled request is refused before it runs
and changes nothing.

Buckets and their depth:

- partition: refills at the ceiling and holds ``partition_burst`` seconds of
  it (0.1 s by default: in any one second a partition admits at most 10 %
  over its ceiling; DynamoDB does not publish its partitions' depth);
- provisioned table or GSI: refills at the provisioned rate and holds
  ``provisioned_burst`` seconds of it (DynamoDB's 300 s); it starts with one
  second's worth and banks what goes unused.

What is answered (DynamoDB's messages; ThrottlingReasons from its API
reference):

- a PAY_PER_REQUEST table's hot partition: ThrottlingException, "Throughput
  exceeds the current capacity of your table or index. ..." (the on-demand
  answer quoted in awslabs/dynein#195);
- a PROVISIONED table (its throughput, or a hot partition):
  ProvisionedThroughputExceededException, "The level of configured
  provisioned throughput for the table was exceeded. ..."; a provisioned
  GSI's: the same exception with the index wording;
- BatchGetItem/BatchWriteItem: throttled keys come back in UnprocessedKeys /
  UnprocessedItems, and only when every one is throttled is the exception
  raised;
- TransactGetItems/TransactWriteItems: TransactionCanceledException with a
  ThrottlingError / ProvisionedThroughputExceeded reason in each throttled
  action's slot.

Not modelled: GSI partitions, on-demand maximum throughput
(OnDemandThroughput), account quotas, adaptive capacity.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tallydb.engine.api._indexes import GLOBAL
from tallydb.engine.api._read_exprs import read_expressions
from tallydb.engine.api._shapes import check_request
from tallydb.engine.api._tables import Table, get_table
from tallydb.engine.api.describe_table import table_arn
from tallydb.engine.errors import (
    ConditionalCheckFailedException,
    DynamoDBError,
    ProvisionedThroughputExceededException,
    ThrottlingException,
    TransactionCanceledException,
)
from tallydb.engine.storage import Transaction
from tallydb.engine.values import encode_key_value

Request = dict[str, Any]
Response = dict[str, Any]
Runner = Callable[[Transaction, str, Request], Response]

ON_DEMAND = (
    "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically "
    "scaling your table or index so please try again shortly. If exceptions persist, check if "
    "you have a hot key: "
    "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html"
)
PROVISIONED_TABLE = (
    "The level of configured provisioned throughput for the table was exceeded. Consider "
    "increasing your provisioning level with the UpdateTable API."
)
PROVISIONED_INDEX = (
    "The level of configured provisioned throughput for one or more global secondary indexes "
    "of the table was exceeded. Consider increasing your provisioning level for the "
    "under-provisioned global secondary indexes with the UpdateTable API."
)

_READS = frozenset({"GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems"})
_WRITES = frozenset({"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem",
                     "TransactWriteItems"})
_CAPACITY_MODES = (None, "NONE", "TOTAL", "INDEXES")
#: Units held for an admitted item until its real consumption is known.
_HELD = 1.0
_NO_UNITS: dict[str, float] = {}
_INDEX_MEMBERS = ("GlobalSecondaryIndexes", "LocalSecondaryIndexes")


class Bucket:
    """Tokens (capacity units) refilled at ``rate`` per second, at most ``depth``."""

    __slots__ = ("depth", "rate", "stamp", "tokens")

    def __init__(self, rate: float, depth: float, tokens: float, now: float) -> None:
        self.rate, self.depth, self.tokens, self.stamp = rate, depth, tokens, now

    def refill(self, now: float, rate: float, depth: float) -> None:
        self.rate, self.depth = rate, depth
        self.tokens = min(depth, self.tokens + (now - self.stamp) * rate)
        self.stamp = now


@dataclass
class Target:
    """One item (or a whole table, for Scan) a request reads or writes."""

    table: Table
    hk: bytes | None  # the partition; None when no single partition is read
    write: bool
    gsi: str | None = None  # a Query or Scan of a GSI reads the index, not the table
    entry: Any = None  # a batch's WriteRequest or key, as sent
    buckets: list[tuple[Bucket, str, str | None]] = field(default_factory=list)
    wanted: dict[str, Any] | None = None  # a BatchGetItem table's other parameters
    refusal: DynamoDBError | None = None


@dataclass
class Limits:
    """DynamoDB's throughput ceilings for an Engine (see the module's doc).

    ``clock`` returns seconds (``time.monotonic`` by default); tests pass
    their own to drive the buckets deterministically.
    """

    partition_write_units: float = 1000.0
    partition_read_units: float = 3000.0
    partition_burst: float = 0.1
    provisioned_burst: float = 300.0
    clock: Callable[[], float] = time.monotonic
    #: told of each refused item: its table and partition (the console's hot keys)
    on_throttle: Callable[[str, bytes], None] | None = None
    _buckets: dict[tuple[Any, ...], Bucket] = field(default_factory=dict, repr=False)

    def wrap(self, run: Runner, validate: Callable[[str, Request], None] = check_request
             ) -> Runner:
        """``run`` with the ceilings enforced on the data-plane operations;
        ``validate`` checks a request as the pipeline does before any lookup
        (a throttled request is refused only once it has passed)."""
        def limited(txn: Transaction, operation: str, request: Request) -> Response:
            if operation not in _READS and operation not in _WRITES:
                return run(txn, operation, request)
            return self._run(txn, operation, request, run, validate)
        return limited

    # -- buckets ------------------------------------------------------------------

    def _bucket(self, key: tuple[Any, ...], rate: float, depth: float, start: float,
                now: float) -> Bucket:
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = Bucket(rate, depth, start, now)
        else:
            bucket.refill(now, rate, depth)
        return bucket

    def _buckets_of(self, target: Target, now: float) -> list[tuple[Bucket, str, str | None]]:
        """The buckets ``target`` draws on (refilled to ``now``), each with
        what it limits ("P" a partition, "T" the provisioned table, "I" a
        provisioned GSI) and that GSI's name."""
        description = target.table.record.description
        table_id = description.get("TableId", target.table.name)
        verb = "Write" if target.write else "Read"
        buckets: list[tuple[Bucket, str, str | None]] = []
        if target.hk is not None:
            rate = self.partition_write_units if target.write else self.partition_read_units
            depth = rate * self.partition_burst
            buckets.append((self._bucket(("P", table_id, target.hk, verb), rate, depth, depth,
                                         now), "P", None))
        if _billing(description) != "PROVISIONED":
            return buckets
        units = f"{verb}CapacityUnits"
        burst = self.provisioned_burst
        if target.gsi is None:
            rate = float(description["ProvisionedThroughput"][units])
            buckets.append((self._bucket(("T", table_id, verb), rate, rate * burst, rate, now),
                            "T", None))
        for index in description.get("GlobalSecondaryIndexes", ()):
            name = index["IndexName"]
            if name == target.gsi or (target.gsi is None and target.write):
                rate = float(index["ProvisionedThroughput"][units])
                buckets.append((self._bucket(("I", table_id, name, verb), rate, rate * burst,
                                             rate, now), "I", name))
        return buckets

    def _admit(self, target: Target, now: float) -> bool:
        """Admit ``target`` if none of its buckets is empty, holding one unit
        of each for it (so a batch's later keys see its earlier ones); the
        charge settles the difference."""
        buckets = target.buckets = self._buckets_of(target, now)
        for bucket, kind, name in buckets:
            if bucket.tokens <= 0:
                target.refusal = _refusal(target, kind, name)
                if self.on_throttle is not None:
                    self.on_throttle(target.table.name, target.hk or b"")
                return False
        for bucket, _, _ in buckets:
            bucket.tokens -= _HELD
        return True

    def _charge(self, targets: list[Target], response: Response | None) -> None:
        """Take what the admitted targets consumed from their buckets: the
        response's ConsumedCapacity, spread evenly over one table's targets,
        or one unit each when the request failed after it was admitted (a
        failed condition still consumes capacity)."""
        spent = _consumed(response)
        sizes: dict[str, int] = {}
        for target in targets:
            sizes[target.table.name] = sizes.get(target.table.name, 0) + 1
        for target in targets:
            name = target.table.name
            count = sizes[name]
            table_units, index_units = spent.get(name, (float(count), _NO_UNITS))
            for bucket, _, gsi in target.buckets:
                # A table's buckets pay the table's units, a GSI's its own,
                # each target its share of its table's.
                units = table_units if gsi is None else index_units.get(gsi, 0.0)
                bucket.tokens -= units / count - _HELD

    # -- one request ----------------------------------------------------------------

    def _run(self, txn: Transaction, operation: str, request: Request, run: Runner,
             validate: Callable[[str, Request], None]) -> Response:
        try:
            targets = _TARGETS[operation](txn, request, operation in _WRITES)
        except (DynamoDBError, LookupError, TypeError, ValueError, AttributeError):
            return run(txn, operation, request)  # the operation says what is wrong
        now = self.clock()
        admitted = [t for t in targets if self._admit(t, now)]
        mode = request.get("ReturnConsumedCapacity")
        if len(admitted) < len(targets):
            validate(operation, request)  # DynamoDB validates before it throttles
            request = _refuse(operation, request, targets)
        forced = request
        if mode in _CAPACITY_MODES and mode != "INDEXES":
            forced = {**request, "ReturnConsumedCapacity": "INDEXES"}
        try:
            response = run(txn, operation, forced)
        except (ConditionalCheckFailedException, TransactionCanceledException):
            self._charge(admitted, None)
            raise
        self._charge(admitted, response)
        if len(admitted) < len(targets):
            _unprocessed(operation, response, targets)
        if forced is not request:
            _restore_capacity(response, mode)
        return response


# --- what a request touches ----------------------------------------------------------


def _billing(description: dict[str, Any]) -> str:
    summary = description.get("BillingModeSummary")
    return summary["BillingMode"] if summary else "PROVISIONED"


def _hash_of(table: Table, item: Any) -> bytes | None:
    """The partition (encoded hash key value) of a Key or Item, if well formed."""
    if not isinstance(item, dict):
        return None
    name, kind = table.keys.attributes[0]
    value = item.get(name)
    if not isinstance(value, dict) or not isinstance(value.get(kind), str):
        return None
    try:
        return encode_key_value({kind: value[kind]})
    except ValueError:
        return None


def _single(txn: Transaction, request: Request, write: bool) -> list[Target]:
    table = get_table(txn, request.get("TableName"))
    return [Target(table, _hash_of(table, request.get("Key", request.get("Item"))), write)]


def _query(txn: Transaction, request: Request, write: bool) -> list[Target]:
    table = get_table(txn, request.get("TableName"))
    index = table.index(request["IndexName"]) if request.get("IndexName") else None
    if index is not None and index.kind == GLOBAL:
        return [Target(table, None, write, gsi=index.name)]
    exprs = read_expressions(request, operation="Query")
    hash_name = table.keys.hash_name
    for term in exprs.key_terms or ():
        if term.name == hash_name and term.op == "EQ":
            return [Target(table, _hash_of(table, {hash_name: term.values[0]}), write)]
    return [Target(table, None, write)]


def _scan(txn: Transaction, request: Request, write: bool) -> list[Target]:
    table = get_table(txn, request.get("TableName"))
    index = table.index(request["IndexName"]) if request.get("IndexName") else None
    gsi = index.name if index is not None and index.kind == GLOBAL else None
    return [Target(table, None, write, gsi=gsi)]


def _batch_get(txn: Transaction, request: Request, write: bool) -> list[Target]:
    targets = []
    for name, wanted in (request.get("RequestItems") or {}).items():
        table = get_table(txn, name)
        others = {k: v for k, v in wanted.items() if k != "Keys"}
        targets += [Target(table, _hash_of(table, key), write, entry=key, wanted=others)
                    for key in wanted["Keys"]]
    return targets


def _batch_write(txn: Transaction, request: Request, write: bool) -> list[Target]:
    targets = []
    for name, writes in (request.get("RequestItems") or {}).items():
        table = get_table(txn, name)
        for entry in writes:
            body = (entry.get("PutRequest") or {}).get("Item") or (
                entry.get("DeleteRequest") or {}).get("Key")
            targets.append(Target(table, _hash_of(table, body), write, entry=entry))
    return targets


def _transact(txn: Transaction, request: Request, write: bool) -> list[Target]:
    targets = []
    for entry in request.get("TransactItems") or ():
        ((_, body),) = ((k, v) for k, v in entry.items() if v is not None)
        table = get_table(txn, body.get("TableName"))
        targets.append(Target(table, _hash_of(table, body.get("Key", body.get("Item"))), write))
    return targets


_TARGETS: dict[str, Callable[[Transaction, Request, bool], list[Target]]] = {
    "GetItem": _single, "PutItem": _single, "UpdateItem": _single, "DeleteItem": _single,
    "Query": _query, "Scan": _scan, "BatchGetItem": _batch_get,
    "BatchWriteItem": _batch_write, "TransactGetItems": _transact,
    "TransactWriteItems": _transact,
}


# --- refusing, and giving back what was refused ---------------------------------------


def _refuse(operation: str, request: Request, targets: list[Target]) -> Request:
    """Raise for a refused request; for a batch with some keys admitted, the
    request without the refused ones."""
    refused = [t for t in targets if t.refusal is not None]
    if operation in ("TransactWriteItems", "TransactGetItems"):
        raise TransactionCanceledException([_reason(t) for t in targets])
    if operation not in ("BatchWriteItem", "BatchGetItem") or len(refused) == len(targets):
        assert refused[0].refusal is not None
        raise refused[0].refusal
    kept = iter(t.refusal is None for t in targets)
    trimmed: dict[str, Any] = {}
    for name, wanted in request["RequestItems"].items():
        if operation == "BatchWriteItem":
            writes = [w for w in wanted if next(kept)]
            if writes:
                trimmed[name] = writes
        else:
            keys = [k for k in wanted["Keys"] if next(kept)]
            if keys:
                trimmed[name] = {**wanted, "Keys": keys}
    return {**request, "RequestItems": trimmed}


def _refusal(target: Target, kind: str, index: str | None) -> DynamoDBError:
    """What an empty bucket answers: DynamoDB's exception, message and
    ThrottlingReasons."""
    verb = "Write" if target.write else "Read"
    arn = table_arn(target.table.name)
    if kind == "I":
        reasons = [{"reason": f"Index{verb}ProvisionedThroughputExceeded",
                    "resource": f"{arn}/index/{index}"}]
        message = PROVISIONED_INDEX if target.write else PROVISIONED_TABLE
        return ProvisionedThroughputExceededException(message, reasons)
    if kind == "T":
        reasons = [{"reason": f"Table{verb}ProvisionedThroughputExceeded", "resource": arn}]
        return ProvisionedThroughputExceededException(PROVISIONED_TABLE, reasons)
    reasons = [{"reason": f"Table{verb}KeyRangeThroughputExceeded", "resource": arn}]
    if _billing(target.table.record.description) == "PROVISIONED":
        return ProvisionedThroughputExceededException(PROVISIONED_TABLE, reasons)
    return ThrottlingException(ON_DEMAND, reasons)


def _reason(target: Target) -> dict[str, Any]:
    if target.refusal is None:
        return {"Code": "None"}
    if isinstance(target.refusal, ThrottlingException):
        return {"Code": "ThrottlingError", "Message": target.refusal.message}
    return {"Code": "ProvisionedThroughputExceeded", "Message": target.refusal.message}


def _unprocessed(operation: str, response: Response, targets: list[Target]) -> None:
    """Put a batch's refused keys in UnprocessedItems / UnprocessedKeys."""
    if operation == "BatchWriteItem":
        unprocessed = response.setdefault("UnprocessedItems", {})
        for target in targets:
            if target.refusal is not None:
                unprocessed.setdefault(target.table.name, []).append(target.entry)
    else:
        unprocessed = response.setdefault("UnprocessedKeys", {})
        for target in targets:
            if target.refusal is not None:
                left = unprocessed.setdefault(target.table.name, dict(target.wanted or {}))
                left.setdefault("Keys", []).append(target.entry)


def _consumed(response: Response | None) -> dict[str, tuple[float, dict[str, float]]]:
    """(table units, GSI units by index) per table, from an INDEXES
    ConsumedCapacity. LSI units are the table's: LSIs live in its partitions."""
    if response is None:
        return {}
    entries = response.get("ConsumedCapacity")
    if entries is None:
        return {}
    spent = {}
    for entry in entries if isinstance(entries, list) else (entries,):
        capacity = entry.get("Table")
        table = capacity["CapacityUnits"] if capacity else entry["CapacityUnits"]
        lsis = entry.get("LocalSecondaryIndexes")
        if lsis:
            table += sum(c["CapacityUnits"] for c in lsis.values())
        gsis = entry.get("GlobalSecondaryIndexes")
        spent[entry["TableName"]] = (
            table, {name: c["CapacityUnits"] for name, c in gsis.items()} if gsis else _NO_UNITS)
    return spent


def _restore_capacity(response: Response, mode: Any) -> None:
    """Give the client the ConsumedCapacity it asked for (none, or TOTAL)."""
    entries = response.get("ConsumedCapacity")
    if entries is None:
        return
    if mode not in ("TOTAL", "INDEXES"):
        del response["ConsumedCapacity"]
        return
    for entry in entries if isinstance(entries, list) else [entries]:
        entry.pop("Table", None)
        for member in _INDEX_MEMBERS:
            entry.pop(member, None)

