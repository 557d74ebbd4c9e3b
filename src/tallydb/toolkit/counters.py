"""Counters: DynamoDB's atomic-counter pattern, done right.

A counter is one numeric attribute of one item, changed in place by a single
UpdateItem (``ADD n :d``) that the store applies in arrival order: no read
first, no lost update.

::

    plays = tallydb.Counter(videos, {"PK": "VID#9f3a", "SK": "STATS#TOTAL"}, "play_count")
    plays.add()                                # 1: one UpdateItem ADD, returns the new value
    plays.add(5, idempotency_key="req-7f3")    # 6, exactly once however often it is retried
    plays.value()                              # 6 (a strongly consistent read)
    plays.set(0)

    stock = tallydb.Counter(items, {"sku": "A1"}, "stock", minimum=0)
    stock.add(-3)    # raises tallydb.CounterLimitError rather than go below 0

    views = tallydb.ShardedCounter(videos, partition={"PK": "VID#9f3a"},
                                   sort_prefix="STATS#TOTAL#", shards=10,
                                   attribute="play_count")
    views.add(); views.value()

What each costs, and what it guarantees:

* ``add(d)``: one UpdateItem. Atomic, but *not idempotent*: sent twice, it
  counts twice. The toolkit never re-sends it (botocore would, after a
  dropped connection): a lost answer raises
  :class:`~tallydb.toolkit.exceptions.OutcomeUnknown`.
* ``add(d, idempotency_key=k)``: exactly once per key. One TransactWriteItems
  writes a *dedupe item* for ``k`` (only if none exists) together with the
  ADD, so a retry with the same key changes nothing; the counter's value is
  then recorded on the dedupe item, so every retry returns the same value.
  Dedupe items never sit among your own items: they go to a companion table,
  ``tallydb-idempotency`` (hash key ``id``), which the toolkit creates with
  TTL on ``expires_at`` the first time a connection needs it (or to the
  ``dedupe_table=`` you give; it warns if that table's TTL is off). Each
  expires ``retention`` (a day by default) after its add: a key is
  remembered for that long. Three requests (transaction, read, record)
  instead of one, and on a connection's first idempotent add, the
  companion's check (DescribeTable, DescribeTimeToLive). The returned
  value is the counter as read just after the increment committed: with
  other writers at the same moment it may already include theirs
  (DynamoDB's transactions return no values).
* ``add(d, also=Update().set("last_seen", t))``: other actions in the same
  request (UpdateItem, or the transaction's Update), applied with the add.
* ``minimum``/``maximum``: the ADD carries a ConditionExpression, so a change
  that would cross a bound is refused by the store, atomically, and nothing
  changes (:class:`~tallydb.toolkit.exceptions.CounterLimitError`).
* ``compare_and_set(expected, new)``: ``SET n = :new`` only if ``n = :expected``,
  for changes that are not additions; ``apply(fn)`` retries that loop a
  bounded number of times under contention.
* :class:`ShardedCounter`: a counter spread over N items so that no single
  item (a DynamoDB partition's ~1,000 writes/s) limits the write rate;
  ``add`` picks a shard at random, ``value`` sums all shards with one paged
  Query. Changing ``shards`` never changes the total.

A counter object holds no state but its configuration; share it between
threads freely. :mod:`tallydb.aio` has the same counters with ``await``.
"""

from __future__ import annotations

import base64
import json
import random
import time
import warnings
import zlib
from collections.abc import Callable, Mapping
from datetime import timedelta
from decimal import Decimal
from types import MappingProxyType
from typing import Any

from tallydb.engine.errors import (
    ConditionalCheckFailedException,
    TransactionCanceledException,
    TransactionConflictException,
)
from tallydb.toolkit.conditions import Condition, Path
from tallydb.toolkit.convert import (
    Number,
    from_wire,
    item_from_wire,
    item_to_wire,
    json_shape,
    number_from_text,
    python_shape,
    to_wire,
)
from tallydb.toolkit.driver import Blocking, operation
from tallydb.toolkit.exceptions import (
    ContentionError,
    CounterLimitError,
    IdempotencyKeyMismatchError,
)
from tallydb.toolkit.requests import KeySchema, build_request
from tallydb.toolkit.table import TableBase
from tallydb.toolkit.table_spec import p_create_table
from tallydb.toolkit.transport import Call, Plan, Sleep, Transport
from tallydb.toolkit.update import Update

__all__ = ["Counter", "CounterBase", "ShardedCounter", "ShardedCounterBase"]

#: Attributes of a dedupe item.
DELTA_ATTRIBUTE = "tallydb_delta"
VALUE_ATTRIBUTE = "tallydb_value"
DEDUPE_TAG = "tallydb#idempotency#"
#: Where idempotent adds keep their dedupe items unless ``dedupe_table=`` is
#: given: one table per store, made by the toolkit on first use, whose items
#: expire by TTL on ``expires_at`` (``retention`` after their add).
COMPANION_TABLE = "tallydb-idempotency"
COMPANION_TTL = "expires_at"
#: How many deltas' add requests a counter keeps rendered.
ADD_REQUESTS_KEPT = 16
#: The attributes of an answer that has none.
_NOTHING: Mapping[str, Any] = MappingProxyType({})
#: How often an idempotent add is retried when DynamoDB cancels its
#: transaction for a conflict with another in-flight transaction.
TRANSACTION_ATTEMPTS = 12

Delta = int | Decimal | float


def _canonical(key: Mapping[str, Any]) -> str:
    def plain(v: Any) -> Any:
        if isinstance(v, bytes | bytearray):
            return "b64:" + base64.b64encode(bytes(v)).decode()
        if isinstance(v, int | float | Decimal) and not isinstance(v, bool):
            return "n:" + str(from_wire(to_wire(v)))
        return v

    return json.dumps({k: plain(v) for k, v in key.items()}, sort_keys=True, separators=(",", ":"))


def _number(role: str, value: Any) -> Delta:
    """``value`` if it is a number (int, float, Decimal), else a TypeError saying so."""
    if isinstance(value, int | float | Decimal) and not isinstance(value, bool):
        return value
    raise TypeError(f"{role} is a number (int, float or Decimal), not {type(value).__name__}: "
                    f"{value!r}")


def _also(also: Any) -> Update | None:
    if also is None or isinstance(also, Update):
        return also
    raise TypeError(f"also= is a tallydb.Update, not {type(also).__name__}: {also!r}")


def _idempotency_key(key: Any) -> str | None:
    if key is None or (isinstance(key, str) and key):
        return key
    raise TypeError(f"an idempotency key is a non-empty str, not {key!r}")


def _decimal(value: Delta) -> Decimal:
    """Exact arithmetic for bounds: a float as the decimal it prints as."""
    return Decimal(repr(value)) if isinstance(value, float) else Decimal(value)


def _seconds(retention: timedelta | float) -> int:
    seconds = retention.total_seconds() if isinstance(retention, timedelta) else retention
    if seconds <= 0:
        raise ValueError("retention must be positive")
    return max(1, int(seconds))


def _dig(item: Mapping[str, Any] | None, elements: tuple[str | int, ...]) -> Any:
    value: Any = item
    for e in elements:
        try:
            value = value[e]
        except (KeyError, IndexError, TypeError):
            return None
    return value


def _backoff(attempt: int, base: float, cap: float = 1.0) -> float:
    """Full-jitter exponential backoff (AWS's recommendation for contention)."""
    return random.uniform(0, min(cap, base * 2**attempt))


def _reason_code(reasons: list[dict[str, Any]], index: int) -> str:
    if index < len(reasons):
        return str(reasons[index].get("Code") or "None")
    return "None"


class _Idempotency:
    """Exactly-once adds: a dedupe item written in the same transaction as the
    ADD, in the companion table (:data:`COMPANION_TABLE`, made on first use,
    its items expired by TTL) or in the ``dedupe_table`` given."""

    def __init__(
        self,
        counter_table: TableBase,
        dedupe_table: TableBase | None,
        retention: timedelta | float,
        ttl_attribute: str,
    ) -> None:
        self.counter_table = counter_table
        self.companion = dedupe_table is None
        self.dedupe_table = (
            type(counter_table)(counter_table.database, COMPANION_TABLE)
            if dedupe_table is None else dedupe_table
        )
        self.retention = _seconds(retention)
        self.ttl_attribute = COMPANION_TTL if dedupe_table is None else ttl_attribute

    def dedupe_key(self, schema: KeySchema, scope: str, key: str) -> dict[str, Any]:
        """Where the dedupe item for ``key`` lives: under a string hash key of
        its own (``<counter table>#tallydb#idempotency#...``) in the dedupe
        table, the companion unless ``dedupe_table=`` was given (there, a
        partition that no query of the user's partitions meets; a whole-table
        Scan of it does see them).
        """
        tag = f"{DEDUPE_TAG}{scope}#{key}"
        if schema.hash_type != "S":
            raise ValueError(
                f"idempotent adds keep a dedupe item under a string key, and table "
                f"{self.dedupe_table.name!r} has a {schema.hash_type} hash key: "
                f"pass dedupe_table= a table whose hash key is a string (S)"
            )
        out: dict[str, Any] = {schema.hash_key: f"{self.counter_table.name}#{tag}"}
        if schema.range_key is not None:
            out[schema.range_key] = {"S": "-", "N": 0, "B": b"-"}[schema.range_type or "S"]
        return out

    def _p_ready(self) -> Plan[None]:
        """Once per connection: make the companion table (TTL on) if it is
        missing; or warn if a given ``dedupe_table`` does not expire its
        dedupe items."""
        transport = self.dedupe_table.transport
        name = self.dedupe_table.name
        if name in transport.ready_tables:
            return
        if self.companion:
            request = {
                "TableName": name,
                "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
            }
            yield from p_create_table(request, COMPANION_TTL, True, 60.0, billing_given=False)
        else:
            answer = yield Call("DescribeTimeToLive", {"TableName": name})
            ttl = answer.get("TimeToLiveDescription") or {}
            if (ttl.get("TimeToLiveStatus") not in ("ENABLED", "ENABLING")
                    or ttl.get("AttributeName") != self.ttl_attribute):
                warnings.warn(
                    f"table {name!r} keeps idempotency records, and TTL is not on for "
                    f"{self.ttl_attribute!r} there: they are never deleted (turn it on: "
                    f"table.enable_ttl({self.ttl_attribute!r}))",
                    UserWarning, stacklevel=2)
        transport.ready_tables.add(name)

    def plan(
        self,
        counter_key: Mapping[str, Any],
        path: Path,
        delta: Delta,
        bounds: Condition | None,
        scope: str,
        key: str,
        read_value: Callable[[], Plan[Number]] | None,
        limit_error: Callable[[str], CounterLimitError],
        also: Update | None = None,
    ) -> Plan[Number | None]:
        change = Update().add(path, delta)
        if also is not None:
            change = change.merge(also)
        if self.companion:  # made first, if it is missing
            yield from self._p_ready()
        schema = yield from self.dedupe_table._p_schema()
        dedupe_key = self.dedupe_key(schema, scope, key)
        if not self.companion:  # checked once its key is known to do
            yield from self._p_ready()
        stored_delta = from_wire(to_wire(delta))
        for attempt in range(TRANSACTION_ATTEMPTS):
            now = int(time.time())
            dedupe_item = {
                **dedupe_key,
                self.ttl_attribute: now + self.retention,
                DELTA_ATTRIBUTE: stored_delta,
            }
            fresh = Path(schema.hash_key).not_exists() | (Path(self.ttl_attribute) < now)
            put = {
                "TableName": self.dedupe_table.name,
                "Item": item_to_wire(dedupe_item),
                **build_request([("ConditionExpression", fresh)]),
            }
            add = {
                "TableName": self.counter_table.name,
                "Key": item_to_wire(counter_key),
                **build_request(
                    [
                        ("UpdateExpression", change),
                        ("ConditionExpression", bounds),
                    ]
                ),
            }
            try:
                yield Call("TransactWriteItems", {"TransactItems": [{"Put": put}, {"Update": add}]})
            except TransactionCanceledException as e:
                # A replay first: a retried add may also fail the bounds now.
                if _reason_code(e.reasons, 0) == "ConditionalCheckFailed":
                    return (yield from self._replay(dedupe_key, stored_delta, key, read_value))
                if _reason_code(e.reasons, 1) == "ConditionalCheckFailed":
                    raise limit_error(_reason_message(e.reasons, 1)) from None
                if "TransactionConflict" in {_reason_code(e.reasons, i) for i in (0, 1)}:
                    yield Sleep(_backoff(attempt, 0.01))
                    continue
                raise
            except TransactionConflictException:
                yield Sleep(_backoff(attempt, 0.01))
                continue
            if read_value is None:
                return None
            return (yield from self._record(dedupe_key, read_value))
        raise ContentionError(
            f"idempotent add {key!r} was cancelled by conflicting transactions "
            f"{TRANSACTION_ATTEMPTS} times; nothing was applied"
        )

    def _replay(
        self,
        dedupe_key: dict[str, Any],
        delta: Any,
        key: str,
        read_value: Callable[[], Plan[Number]] | None,
    ) -> Plan[Number | None]:
        """A retry: the first attempt's recorded value (or record one now)."""
        existing = yield from self.dedupe_table._p_get(dedupe_key, True, None)
        if existing is not None and existing.get(DELTA_ATTRIBUTE) != delta:
            raise IdempotencyKeyMismatchError(
                f"idempotency key {key!r} was used for a change of "
                f"{existing.get(DELTA_ATTRIBUTE)!r}, not {delta!r}; this change was not applied"
            )
        if read_value is None:
            return None
        if existing is not None and VALUE_ATTRIBUTE in existing:
            value: Number = existing[VALUE_ATTRIBUTE]
            return value
        return (yield from self._record(dedupe_key, read_value))

    def _record(
        self, dedupe_key: dict[str, Any], read_value: Callable[[], Plan[Number]]
    ) -> Plan[Number]:
        """Read the counter and keep that value on the dedupe item, unless a
        value was kept first (then that one is the answer, for everyone)."""
        value = yield from read_value()
        keep = Update().set(VALUE_ATTRIBUTE, value)
        only_once = Path(next(iter(dedupe_key))).exists() & Path(VALUE_ATTRIBUTE).not_exists()
        try:
            yield from self.dedupe_table._p_update(dedupe_key, keep, only_once, None, None, "NONE")
        except ConditionalCheckFailedException:
            existing = yield from self.dedupe_table._p_get(dedupe_key, True, None)
            if existing is not None and VALUE_ATTRIBUTE in existing:
                kept: Number = existing[VALUE_ATTRIBUTE]
                return kept
        return value


def _reason_message(reasons: list[dict[str, Any]], index: int) -> str:
    if index < len(reasons):
        return str(reasons[index].get("Message") or "The conditional request failed")
    return "The conditional request failed"


class _AddRequest:
    """A counter's kept UpdateItem for one delta: ``step``, the request in
    boto3's shape and in DynamoDB's JSON, never changed, to be sent exactly
    once (an add is not idempotent); and ``name``, the counter's attribute
    when it is a top-level one (the key of its new value in the answer),
    else None."""

    __slots__ = ("name", "step")

    def __init__(self, request: dict[str, Any], wire: dict[str, Any], name: str | None) -> None:
        self.step = Call("UpdateItem", request, wire, once=True)
        self.name = name


def _delta_key(delta: Delta) -> Any:
    """What a kept add request is found by: an ``int`` delta itself (most
    adds), any other by its type and repr (``1.0`` and ``Decimal("1.0")``
    render apart from ``1``)."""
    return delta if delta.__class__ is int else (delta.__class__, repr(delta))


class CounterBase:
    """What the blocking and the asyncio counter share: the configuration,
    and every method as a plan."""

    def __init__(
        self,
        table: TableBase,
        key: Mapping[str, Any],
        attribute: str | Path,
        *,
        minimum: Delta | None = None,
        maximum: Delta | None = None,
        retention: timedelta | float = timedelta(days=1),
        ttl_attribute: str = "expires_at",
        dedupe_table: TableBase | None = None,
    ) -> None:
        """A counter at ``attribute`` (a name or a document path) of the item
        with ``key`` in ``table``.

        ``minimum``/``maximum`` bound it (inclusive). ``retention`` is how
        long an idempotency key is remembered; ``dedupe_table`` where dedupe
        items go (by default the companion table ``tallydb-idempotency``,
        made on first use with TTL on), and ``ttl_attribute`` their expiry
        attribute there (the companion's is ``expires_at``).
        """
        if not isinstance(table, TableBase):
            raise TypeError(f"a counter's table is a tallydb Table, not {table!r}")
        if not isinstance(key, Mapping):
            raise TypeError(f"a counter's key is a mapping such as {{'PK': 'a'}}, not {key!r}")
        if not isinstance(attribute, str | Path):
            raise TypeError(f"a counter's attribute is a name or a Path, not {attribute!r}")
        if minimum is not None:
            _number("minimum", minimum)
        if maximum is not None:
            _number("maximum", maximum)
        if minimum is not None and maximum is not None and minimum > maximum:
            raise ValueError(f"minimum {minimum} is above maximum {maximum}")
        #: The UpdateItem request of ``add(delta)``, by delta (see _add_request).
        self._add_requests: dict[Any, _AddRequest] = {}
        self.table = table
        self.key: Mapping[str, Any] = MappingProxyType(dict(key))
        self.path = Path.of(attribute)
        self.attribute = str(self.path)
        self.minimum = minimum
        self.maximum = maximum
        self._idempotency = _Idempotency(table, dedupe_table, retention, ttl_attribute)

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        if not name.startswith("_"):  # the configuration changed: forget built requests
            self.__dict__.get("_add_requests", {}).clear()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.table.name}{dict(self.key)} {self.attribute}>"

    @property
    def transport(self) -> Transport:
        return self.table.transport

    # -- the methods -------------------------------------------------------------

    @operation
    def add(
        self,
        delta: Delta = 1,
        *,
        idempotency_key: str | None = None,
        also: Update | None = None,
    ) -> Plan[Number]:
        """Add ``delta`` (negative to subtract); the new value.

        ``also`` carries other actions in the same UpdateItem (or transaction),
        applied atomically with the add: ``also=Update().set("last_seen", now)``,
        a TTL for a window counter. Overlapping paths are refused before
        anything is sent.

        With ``idempotency_key``, the add happens at most once per key (within
        the retention): a retry changes nothing and returns the same value.
        Raises :class:`~tallydb.toolkit.exceptions.CounterLimitError` if a bound
        would be crossed (nothing changes).
        """
        return self._p_add(delta, idempotency_key, also)

    @add.blocking_by
    def _add_now(
        self,
        delta: Delta = 1,
        *,
        idempotency_key: str | None = None,
        also: Update | None = None,
    ) -> Number:
        """``add``, blocking: its everyday case (one UpdateItem) sent without
        running a plan, as :meth:`Transport.run` would send it (the
        transport's ``send``, errors as it raises them)."""
        if idempotency_key is not None or also is not None:
            result: Number = self.table.transport.run(
                self._p_add(delta, idempotency_key, also)
            )
            return result
        kept = self._add_request(delta)
        try:
            response = self.table.transport.send(kept.step)
        except ConditionalCheckFailedException as e:
            raise self._limit_error(delta)(e.message or "") from None
        # _added's everyday case, inline: a top-level counter's new Number.
        if kept.name is not None:
            wire = (response.get("Attributes") or _NOTHING).get(kept.name)
            if wire is not None:
                text = wire.get("N")
                if text.__class__ is str:
                    return number_from_text(text)
        return self._added(response)

    @operation
    def value(self) -> Plan[Number]:
        """The current value (a strongly consistent read); 0 if never set."""
        return self._p_value()

    @operation
    def set(self, value: Delta) -> Plan[None]:
        """Overwrite the value (``SET n = :value``); bounds are checked first."""
        return self._p_set(value)

    @operation
    def compare_and_set(self, expected: Delta | None, new: Delta) -> Plan[bool]:
        """``SET n = :new`` only if ``n = :expected`` (``None``: only if it is
        not set). True if it was set, False if the value was not ``expected``."""
        return self._p_compare_and_set(expected, new)

    @operation
    def apply(
        self, fn: Callable[[Number], Delta], *, attempts: int = 10, backoff: float = 0.005
    ) -> Plan[Number]:
        """Change the value to ``fn(current)`` exactly: read, compare-and-set,
        and on losing to another writer back off and retry, at most
        ``attempts`` times (then :class:`~tallydb.toolkit.exceptions.ContentionError`).
        ``fn`` may run more than once; it should have no side effects."""
        return self._p_apply(fn, attempts, backoff)

    # -- bounds ------------------------------------------------------------------

    def _within(self, value: Any) -> bool:
        return (self.minimum is None or value >= self.minimum) and (
            self.maximum is None or value <= self.maximum
        )

    def _bounds(self, delta: Delta) -> Condition | None:
        """The condition under which adding ``delta`` stays within bounds."""
        if self.minimum is None and self.maximum is None:
            return None
        d = _decimal(delta)
        low = None if self.minimum is None else _decimal(self.minimum) - d
        high = None if self.maximum is None else _decimal(self.maximum) - d
        if low is not None and high is not None:
            within = self.path.between(low, high)
        elif low is not None:
            within = self.path >= low
        else:
            within = self.path <= high
        if self._within(d):  # a missing counter counts as 0
            return self.path.not_exists() | within
        return within

    def _limit_error(self, delta: Any) -> Callable[[str], CounterLimitError]:
        bounds = {"minimum": self.minimum, "maximum": self.maximum}
        # The bound an addition moves towards; the other one only when the
        # stored value is already past it (set there by another writer).
        d = _decimal(delta)
        toward = "maximum" if d > 0 else "minimum" if d < 0 else None
        passed = [n for n, v in bounds.items() if v is not None and n == toward] or [
            n for n, v in bounds.items() if v is not None
        ]
        side = " / ".join(f"{n} {bounds[n]}" for n in passed)

        def make(message: str) -> CounterLimitError:
            return CounterLimitError(
                message,
                explanation=f"adding {delta} to {self.attribute} would pass its "
                f"{side}; nothing was changed",
                attribute=self.attribute,
                delta=delta,
                minimum=self.minimum,
                maximum=self.maximum,
            )

        return make

    # -- plans -------------------------------------------------------------------

    def _p_add(
        self, delta: Delta, idempotency_key: str | None, also: Update | None = None
    ) -> Plan[Number]:
        _number("delta", delta)
        extra = _also(also)
        idempotency_key = _idempotency_key(idempotency_key)
        if idempotency_key is not None:
            result = yield from self._idempotency.plan(
                self.key,
                self.path,
                delta,
                self._bounds(delta),
                f"{self.attribute}#{_canonical(self.key)}",
                idempotency_key,
                self._p_value,
                self._limit_error(delta),
                extra,
            )
            assert result is not None
            return result
        if extra is not None:
            step = self._add_step(Update().add(self.path, delta).merge(extra), delta)
        else:
            step = self._add_request(delta).step
        try:
            response = yield step
        except ConditionalCheckFailedException as e:
            raise self._limit_error(delta)(e.message or "") from None
        return self._added(response)

    def _added(self, response: Mapping[str, Any]) -> Number:
        """The new value, from an add's ``UPDATED_NEW`` answer, in boto3's
        shape or DynamoDB's JSON (:meth:`~tallydb.toolkit.transport.Transport.call_wire`):
        only the counter's own attribute is converted when it is a top-level
        one (a Number reads the same in both)."""
        attributes = response.get("Attributes") or {}
        elements = self.path.elements
        wire = attributes.get(elements[0]) if len(elements) == 1 else None
        if wire is not None:
            value: Number = from_wire(wire)
            return value
        value = _dig(item_from_wire(python_shape(attributes)), elements)
        return value

    def _add_request(self, delta: Delta) -> _AddRequest:
        """The UpdateItem of ``add(delta)``: ``ADD path :delta``, with the
        bounds' condition, ``ReturnValues=UPDATED_NEW``; in boto3's shape
        and in DynamoDB's JSON (see :meth:`~tallydb.toolkit.transport.Transport.call_wire`).

        Rendered once per delta and kept (most code adds the same one or two
        deltas over and over), and sent as it is every time: nothing changes
        it, not the toolkit, not a transport (a boto3 client is handed a
        fresh dict of keyword arguments; the embedded engine never changes a
        request, ``tests/test_engine_requests.py``).
        """
        cache_key = _delta_key(delta)
        kept = self._add_requests.get(cache_key)
        if kept is None:
            _number("delta", delta)
            request = self._add_step(Update().add(self.path, delta), delta).request
            (name, *rest) = self.path.elements
            top = name if not rest and isinstance(name, str) else None
            kept = _AddRequest(request, json_shape(request), top)
            if len(self._add_requests) < ADD_REQUESTS_KEPT:
                self._add_requests[cache_key] = kept
        return kept

    def _add_step(self, update: Update, delta: Delta) -> Call:
        """The UpdateItem of an add: ``update``, the bounds, UPDATED_NEW; sent once."""
        request = self.table._update_request(
            self.key, update, self._bounds(delta), None, None, "UPDATED_NEW"
        )
        return Call("UpdateItem", request, once=True)

    def _p_read(self) -> Plan[Number | None]:
        item = yield from self.table._p_get(self.key, True, [self.path])
        value: Number | None = _dig(item, self.path.elements)
        return value

    def _p_value(self) -> Plan[Number]:
        value = yield from self._p_read()
        return 0 if value is None else value

    def _check(self, value: Any) -> None:
        if not self._within(value):
            raise CounterLimitError(
                explanation=f"{value} is outside {self.attribute}'s bounds "
                f"[{self.minimum}, {self.maximum}]; nothing was changed",
                attribute=self.attribute,
                minimum=self.minimum,
                maximum=self.maximum,
            )

    def _p_set(self, value: Delta) -> Plan[None]:
        self._check(_number("value", value))
        yield from self.table._p_update(
            self.key, Update().set(self.path, value), None, None, None, "NONE"
        )

    def _p_compare_and_set(self, expected: Delta | None, new: Delta) -> Plan[bool]:
        if expected is not None:
            _number("expected", expected)
        self._check(_number("new", new))
        condition = self.path.not_exists() if expected is None else self.path == expected
        try:
            yield from self.table._p_update(
                self.key, Update().set(self.path, new), condition, None, None, "NONE"
            )
        except ConditionalCheckFailedException:
            return False
        return True

    def _p_apply(
        self, fn: Callable[[Number], Delta], attempts: int, backoff: float
    ) -> Plan[Number]:
        if attempts < 1:
            raise ValueError("attempts must be at least 1")
        for attempt in range(attempts):
            current = yield from self._p_read()
            new = fn(0 if current is None else current)
            if (yield from self._p_compare_and_set(current, new)):
                return from_wire(to_wire(new))  # type: ignore[no-any-return]
            if attempt + 1 < attempts:
                yield Sleep(_backoff(attempt, backoff))
        raise ContentionError(
            f"{self.attribute}: {attempts} compare-and-set attempts all lost to other writers"
        )


class Counter(CounterBase, Blocking):
    """A numeric attribute of one item, changed atomically (blocking API).

    See :mod:`tallydb.toolkit.counters` for what each method costs and guarantees.
    """


class ShardedCounterBase:
    """What the blocking and the asyncio sharded counter share: the
    configuration, and every method as a plan."""

    def __init__(
        self,
        table: TableBase,
        partition: Mapping[str, Any],
        sort_prefix: str,
        shards: int = 10,
        attribute: str = "count",
        *,
        sort_key: str | None = None,
        retention: timedelta | float = timedelta(days=1),
        ttl_attribute: str = "expires_at",
        dedupe_table: TableBase | None = None,
    ) -> None:
        """A counter spread over the items ``sort_prefix + "0"`` ...
        ``sort_prefix + str(shards - 1)`` of one partition.

        ``partition`` is the partition key (``{"PK": "VID#9f3a"}``); the
        table needs a string sort key (its name is looked up, or pass
        ``sort_key=``).
        """
        if not isinstance(table, TableBase):
            raise TypeError(f"a counter's table is a tallydb Table, not {table!r}")
        if not isinstance(partition, Mapping) or len(partition) != 1:
            raise ValueError("partition is the partition (hash) key alone: {name: value}")
        if not isinstance(sort_prefix, str):
            raise TypeError(f"sort_prefix is a str, not {sort_prefix!r}")
        self.table = table
        self.partition = dict(partition)
        self.sort_prefix = sort_prefix
        self.attribute = attribute
        self.path = Path.of(attribute)
        self.sort_key = sort_key
        self.shards = shards
        self._idempotency = _Idempotency(table, dedupe_table, retention, ttl_attribute)

    @property
    def shards(self) -> int:
        return self._shards

    @shards.setter
    def shards(self, shards: int) -> None:
        if isinstance(shards, bool) or not isinstance(shards, int):
            raise TypeError(f"shards is a whole number >= 1, not {shards!r}")
        if shards < 1:
            raise ValueError("a sharded counter needs at least one shard")
        self._shards = shards

    def __repr__(self) -> str:
        return (
            f"<{type(self).__name__} {self.table.name}{self.partition} "
            f"{self.sort_prefix}0..{self.shards - 1} {self.attribute}>"
        )

    @property
    def transport(self) -> Transport:
        return self.table.transport

    @operation
    def add(
        self,
        delta: Delta = 1,
        *,
        idempotency_key: str | None = None,
        also: Update | None = None,
    ) -> Plan[None]:
        """Add ``delta`` to a random shard (one UpdateItem). With
        ``idempotency_key``, at most once per key (the key picks the shard);
        ``also``, other actions on that shard's item in the same request."""
        return self._p_add(delta, idempotency_key, also)

    @operation
    def value(self) -> Plan[Number]:
        """The total: every shard summed, one strongly consistent paged Query."""
        return self._p_value()

    def _p_sort_key(self) -> Plan[str]:
        if self.sort_key is None:
            schema = yield from self.table._p_schema()
            if schema.range_key is None or schema.range_type != "S":
                raise ValueError(
                    f"a sharded counter needs a string sort key; {self.table.name!r} has none"
                )
            self.sort_key = schema.range_key
        return self.sort_key

    def shard_key(self, shard: int, sort_key: str) -> dict[str, Any]:
        return {**self.partition, sort_key: f"{self.sort_prefix}{shard}"}

    def _p_add(
        self, delta: Delta, idempotency_key: str | None, also: Update | None = None
    ) -> Plan[None]:
        _number("delta", delta)
        change = Update().add(self.path, delta)
        extra = _also(also)
        if extra is not None:
            change = change.merge(extra)
        idempotency_key = _idempotency_key(idempotency_key)
        sort_key = yield from self._p_sort_key()
        if idempotency_key is None:
            shard = random.randrange(self.shards)
            yield from self.table._p_update(
                self.shard_key(shard, sort_key),
                change,
                None,
                None,
                None,
                "NONE",
            )
            return
        # The same key always lands on the same shard, and is remembered for
        # the whole counter, so a retry is caught even after a resize.
        shard = zlib.crc32(idempotency_key.encode()) % self.shards
        yield from self._idempotency.plan(
            self.shard_key(shard, sort_key),
            self.path,
            delta,
            None,
            f"{self.attribute}#{_canonical(self.partition)}#{self.sort_prefix}",
            idempotency_key,
            None,
            lambda message: CounterLimitError(message),
            extra,
        )

    def _p_value(self) -> Plan[Number]:
        sort_key = yield from self._p_sort_key()
        ((hash_name, hash_value),) = self.partition.items()
        request = self.table._query_request(
            (Path(hash_name) == hash_value) & Path(sort_key).begins_with(self.sort_prefix),
            None,
            [self.path],
            None,
            None,
            False,
            True,
            None,
            None,
        )
        total: Number = 0
        start = None
        while True:
            items, start, _ = yield from self.table._p_page("Query", request, start)
            for item in items:
                value = _dig(item, self.path.elements)
                if isinstance(value, int | Decimal) and not isinstance(value, bool):
                    total += value
            if not start:
                return total


class ShardedCounter(ShardedCounterBase, Blocking):
    """A counter spread over ``shards`` items for write throughput (blocking API)."""
