"""Batches: BatchWriteItem and BatchGetItem, with DynamoDB's limits and retries.

::

    with videos.batch_writer() as batch:       # 25 a request, sent as they fill
        batch.put({"PK": "v1", "SK": "META", "title": "Cats"})
        batch.delete({"PK": "v0", "SK": "META"})
    videos.batch_get([{"PK": "v1", "SK": "META"}, ...])   # 100 a request

* A batch writer buffers puts and deletes and sends them 25 to a
  BatchWriteItem (DynamoDB's limit), the rest when the ``with`` block ends
  (or on :meth:`flush`). Two writes of the same key in one buffer would be
  refused by DynamoDB ("Provided list of item keys contains duplicates"), so
  the later one replaces the earlier, as boto3's ``overwrite_by_pkeys`` does.
* ``UnprocessedItems`` / ``UnprocessedKeys`` (DynamoDB's answer when it is
  throttled) are sent again with full-jitter exponential backoff, up to
  :data:`ATTEMPTS` requests; what is still left then raises
  :class:`~tallydb.toolkit.exceptions.BatchIncompleteError` naming it.
* ``batch_get`` returns the items found, in the order of the keys asked for
  (DynamoDB answers in no particular order); a key asked for twice is sent
  once. Puts and deletes are idempotent, so a batch may be retried freely.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from tallydb.toolkit.conditions import Path
from tallydb.toolkit.convert import Item, Wire, item_from_wire, item_to_wire
from tallydb.toolkit.driver import Blocking, operation
from tallydb.toolkit.exceptions import BatchIncompleteError
from tallydb.toolkit.requests import KeySchema, build_request
from tallydb.toolkit.transport import Call, Plan, Sleep, Transport

__all__ = [
    "ATTEMPTS",
    "GET_LIMIT",
    "WRITE_LIMIT",
    "BatchWriter",
    "BatchWriterBase",
    "Keyed",
    "p_batch_get",
]


class Keyed(Protocol):
    """A table, as a batch sees it: its name, key schema and transport."""

    @property
    def name(self) -> str:
        """The table's name."""

    @property
    def transport(self) -> Transport:
        """What its requests go by."""

    def _p_schema(self) -> Plan[KeySchema]:
        """The key schema (asked for once)."""

#: DynamoDB's limits: requests per BatchWriteItem, keys per BatchGetItem.
WRITE_LIMIT = 25
GET_LIMIT = 100
#: How many requests a batch gets before its unprocessed part is given up.
ATTEMPTS = 10
BACKOFF_BASE = 0.05
BACKOFF_CAP = 2.0


def _backoff(attempt: int) -> float:
    return random.uniform(0, min(BACKOFF_CAP, BACKOFF_BASE * 2**attempt))


def _identity(key: Mapping[str, Wire]) -> str:
    """A key's identity: its wire form, canonical."""
    return json.dumps(key, sort_keys=True)


def p_batch_write(table: str, requests: list[dict[str, Any]]) -> Plan[None]:
    """One BatchWriteItem of up to 25 requests, its unprocessed part sent again."""
    pending: dict[str, list[dict[str, Any]]] = {table: requests}
    for attempt in range(ATTEMPTS):
        if attempt:
            yield Sleep(_backoff(attempt))
        response = yield Call("BatchWriteItem", {"RequestItems": pending})
        pending = {t: r for t, r in (response.get("UnprocessedItems") or {}).items() if r}
        if not pending:
            return
    left = [r for rs in pending.values() for r in rs]
    raise BatchIncompleteError(
        f"BatchWriteItem on {table!r}: {len(left)} write(s) still unprocessed after "
        f"{ATTEMPTS} requests (throttled)",
        left,
    )


def p_batch_get(
    table: Keyed,
    keys: Iterable[Mapping[str, Any]],
    consistent: bool,
    projection: Sequence[str | Path] | None,
) -> Plan[list[Item]]:
    """Every item of ``keys`` that exists, in the order asked, 100 keys a request."""
    schema = yield from table._p_schema()
    wanted: dict[str, dict[str, Wire]] = {}
    for key in keys:
        wire = item_to_wire(schema.key_of(key))
        wanted.setdefault(_identity(wire), wire)
    extra: dict[str, Any] = {}
    if consistent:
        extra["ConsistentRead"] = True
    if projection:
        paths = list(projection) + [n for n in schema.names if n not in projection]
        extra.update(build_request((), projection=paths))
    found: dict[str, Item] = {}
    order = list(wanted)
    for start in range(0, len(order), GET_LIMIT):
        chunk = [wanted[i] for i in order[start : start + GET_LIMIT]]
        pending: dict[str, Any] = {table.name: {"Keys": chunk, **extra}}
        for attempt in range(ATTEMPTS):
            if attempt:
                yield Sleep(_backoff(attempt))
            response = yield Call("BatchGetItem", {"RequestItems": pending})
            for item in (response.get("Responses") or {}).get(table.name, []):
                found[_identity({n: item[n] for n in schema.names})] = item_from_wire(item)
            pending = {t: r for t, r in (response.get("UnprocessedKeys") or {}).items() if r}
            if not pending:
                break
        else:
            left = [k for r in pending.values() for k in r.get("Keys", [])]
            raise BatchIncompleteError(
                f"BatchGetItem on {table.name!r}: {len(left)} key(s) still unprocessed after "
                f"{ATTEMPTS} requests (throttled)",
                left,
            )
    return [found[i] for i in order if i in found]


class BatchWriterBase:
    """A batch writer's buffer, and its methods as plans."""

    def __init__(self, table: Keyed) -> None:
        self.table = table
        self._pending: dict[str, dict[str, Any]] = {}

    @property
    def transport(self) -> Transport:
        return self.table.transport

    @operation
    def put(self, item: Mapping[str, Any]) -> Plan[None]:
        """Buffer a PutRequest; send a request once 25 are waiting."""
        names = yield from self._p_names()
        if self._put_request(item, names):
            yield from self._p_flush(everything=False)

    @operation
    def delete(self, key: Mapping[str, Any]) -> Plan[None]:
        """Buffer a DeleteRequest; send a request once 25 are waiting."""
        names = yield from self._p_names()
        if self._delete_request(key, names):
            yield from self._p_flush(everything=False)

    @operation
    def flush(self, *, everything: bool = True) -> Plan[None]:
        """Send what is buffered (``everything=False``: only full requests)."""
        return self._p_flush(everything)

    def _add(self, key: Mapping[str, Any], request: dict[str, Any]) -> bool:
        """Buffer one write (replacing one of the same key); True when a
        request's worth is waiting."""
        identity = _identity(item_to_wire(key))
        self._pending.pop(identity, None)
        self._pending[identity] = request
        return len(self._pending) >= WRITE_LIMIT

    def _put_request(self, item: Mapping[str, Any], schema_names: Sequence[str]) -> bool:
        key = {n: item[n] for n in schema_names if n in item}
        if len(key) != len(schema_names):
            missing = [n for n in schema_names if n not in item]
            raise ValueError(f"the item has no value for key attribute(s) {', '.join(missing)}")
        return self._add(key, {"PutRequest": {"Item": item_to_wire(item)}})

    def _delete_request(self, key: Mapping[str, Any], schema_names: Sequence[str]) -> bool:
        key = {n: key[n] for n in schema_names if n in key}
        if len(key) != len(schema_names):
            raise ValueError(f"a key of {self.table.name!r} is {', '.join(schema_names)}")
        return self._add(key, {"DeleteRequest": {"Key": item_to_wire(key)}})

    def _p_flush(self, everything: bool) -> Plan[None]:
        """Send full requests (and, with ``everything``, the rest)."""
        while len(self._pending) >= WRITE_LIMIT or (everything and self._pending):
            identities = list(self._pending)[:WRITE_LIMIT]
            requests = [self._pending.pop(i) for i in identities]
            yield from p_batch_write(self.table.name, requests)

    def _p_names(self) -> Plan[tuple[str, ...]]:
        schema = yield from self.table._p_schema()
        return schema.names


class BatchWriter(BatchWriterBase, Blocking):
    """``with table.batch_writer() as batch: batch.put(...); batch.delete(...)``."""

    def __enter__(self) -> BatchWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.flush()
