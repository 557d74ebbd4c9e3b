"""A table: items in and out as plain Python values.

::

    videos = db.table("videos")
    videos.put({"PK": "VID#9f3a", "SK": "META", "title": "Cats"})
    videos.get({"PK": "VID#9f3a", "SK": "META"})            # {"PK": ..., "title": "Cats"}
    videos.update({"PK": "VID#9f3a", "SK": "STATS#TOTAL"},
                  Update().add("play_count", 1), return_values="UPDATED_NEW")
    for item in videos.query({"PK": "VID#9f3a"}):            # every page, in order
        ...
    videos.query((Path("PK") == "VID#9f3a") & Path("SK").begins_with("STATS#"))

Every method sends one standard DynamoDB request (``query``/``scan`` one per
page) and raises DynamoDB's errors as :mod:`tallydb.engine.errors` exceptions.

Conditions (``condition=``, ``filter=``, a query's key condition) are a
:class:`~tallydb.toolkit.conditions.Condition` or a hand-written expression string;
for a string, pass its placeholders in ``names=`` and ``values=`` (values as
plain Python values). Builder placeholders never collide with yours.

:class:`TableBase` holds each method once, as a plan; :class:`Table` (here)
and ``tallydb.aio.Table`` run them blocking or awaited
(:mod:`tallydb.toolkit.driver`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from tallydb.toolkit.batch import BatchWriter, p_batch_get
from tallydb.toolkit.changes import Change, ChangeReader
from tallydb.toolkit.conditions import Condition, Path
from tallydb.toolkit.convert import Item, Wire, item_from_wire, item_to_wire
from tallydb.toolkit.driver import Blocking, operation, stream
from tallydb.toolkit.requests import (
    ConditionArg,
    KeySchema,
    ReturnValues,
    build_request,
    idempotent,
    key_condition,
)
from tallydb.toolkit.transport import Call, Emit, Plan, Stream, Transport
from tallydb.toolkit.update import Update

__all__ = ["Connected", "KeySchema", "Table", "TableBase"]


T = TypeVar("T")


def _same(item: Item) -> Item:
    return item


class Connected(Protocol):
    """What a table needs of its database: the transport its requests go by."""

    transport: Transport


class TableBase:
    """What the blocking and the asyncio table share: every method, as a plan."""

    def __init__(self, database: Connected, name: str, schema: KeySchema | None = None) -> None:
        self.database = database
        self.name = name
        self._schema = schema
        #: What the table's requests go by: its database's.
        self.transport: Transport = database.transport

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"

    # -- the methods -------------------------------------------------------------

    @operation
    def describe(self) -> Plan[dict[str, Any]]:
        """DescribeTable's ``Table``."""
        return self._p_describe()

    @operation
    def get(
        self,
        key: Mapping[str, Any],
        *,
        consistent: bool = False,
        projection: Sequence[str | Path] | None = None,
    ) -> Plan[Item | None]:
        """GetItem: the item with this key, or None. ``consistent=True`` for
        a strongly consistent read."""
        return self._p_get(key, consistent, projection)

    @operation
    def put(
        self,
        item: Mapping[str, Any],
        *,
        condition: ConditionArg = None,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Any] | None = None,
        return_values: ReturnValues = "NONE",
    ) -> Plan[Item | None]:
        """PutItem: write the whole item (replacing any with the same key)."""
        return self._p_put(item, condition, names, values, return_values)

    @operation
    def update(
        self,
        key: Mapping[str, Any],
        update: Update | str,
        *,
        condition: ConditionArg = None,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Any] | None = None,
        return_values: ReturnValues = "NONE",
    ) -> Plan[Item]:
        """UpdateItem: apply ``update`` to the item (created if missing);
        the attributes ``return_values`` asks for (``{}`` for NONE)."""
        return self._p_update(key, update, condition, names, values, return_values)

    @operation
    def delete(
        self,
        key: Mapping[str, Any],
        *,
        condition: ConditionArg = None,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Any] | None = None,
        return_values: ReturnValues = "NONE",
    ) -> Plan[Item | None]:
        """DeleteItem; with ``return_values="ALL_OLD"`` the item as it was."""
        return self._p_delete(key, condition, names, values, return_values)

    @stream
    def query(
        self,
        key: Condition | str | Mapping[str, Any],
        *,
        filter: ConditionArg = None,
        projection: Sequence[str | Path] | None = None,
        index: str | None = None,
        limit: int | None = None,
        page_size: int | None = None,
        reverse: bool = False,
        consistent: bool = False,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> Stream[Item]:
        """Query: the items of one partition, every page, in key order
        (``for item in table.query(...)``; ``async for`` on ``tallydb.aio``).

        ``key`` is a Condition on the key (``Path("PK") == v``, ``& ...`` on
        the sort key), a string, or a mapping ``{"PK": v}``. ``limit`` stops
        after that many items; ``page_size`` is DynamoDB's ``Limit`` per page.
        """
        request = self._query_request(
            key, filter, projection, index, page_size, reverse, consistent, names, values
        )
        return self._p_items("Query", request, limit)

    @stream
    def scan(
        self,
        filter: ConditionArg = None,
        *,
        projection: Sequence[str | Path] | None = None,
        index: str | None = None,
        limit: int | None = None,
        page_size: int | None = None,
        consistent: bool = False,
        segment: tuple[int, int] | None = None,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> Stream[Item]:
        """Scan: every item of the table (or of ``segment=(n, total)``), every page."""
        request = self._scan_request(
            filter, projection, index, page_size, consistent, segment, names, values
        )
        return self._p_items("Scan", request, limit)

    @operation
    def count(
        self,
        key: Condition | str | Mapping[str, Any] | None = None,
        *,
        filter: ConditionArg = None,
        index: str | None = None,
        consistent: bool = False,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> Plan[int]:
        """How many items a Query (``key`` given) or Scan matches (Select=COUNT)."""
        if key is None:
            request = self._scan_request(
                filter, None, index, None, consistent, None, names, values, "COUNT"
            )
            return self._p_count("Scan", request)
        request = self._query_request(
            key, filter, None, index, None, False, consistent, names, values, "COUNT"
        )
        return self._p_count("Query", request)

    @operation
    def enable_ttl(self, attribute: str) -> Plan[None]:
        """UpdateTimeToLive: expire items whose ``attribute`` (epoch seconds) has passed."""
        return self._p_enable_ttl(attribute)

    @operation
    def batch_get(
        self,
        keys: Iterable[Mapping[str, Any]],
        *,
        consistent: bool = False,
        projection: Sequence[str | Path] | None = None,
    ) -> Plan[list[Item]]:
        """BatchGetItem, 100 keys a request: the items that exist, in the
        order of ``keys`` (see :mod:`tallydb.toolkit.batch`)."""
        return p_batch_get(self, keys, consistent, projection)

    @stream
    def changes(self, after: str | None = None, *, follow: bool = False, poll: float = 1.0,
                latest: bool = False, streams: Any = None) -> Stream[Change]:
        r"""The table's stream records as :class:`~tallydb.toolkit.changes.Change`\ s, in
        order: from the oldest retained (``latest=True``: from now on), or
        right after a ``change.position`` saved earlier (``after=``). Stops
        when caught up, unless ``follow`` (then polls every ``poll`` seconds).
        ``streams``: a ``dynamodbstreams`` client to read with (by default
        one on the same endpoint and credentials)."""
        reader = ChangeReader(self._p_describe, self.name, after, latest, streams)
        yield from reader.read(follow, poll)

    # -- plans -------------------------------------------------------------------

    def _p_describe(self) -> Plan[dict[str, Any]]:
        response = yield Call("DescribeTable", {"TableName": self.name})
        table: dict[str, Any] = response["Table"]
        self._schema = KeySchema.from_description(table)
        return table

    def _p_schema(self) -> Plan[KeySchema]:
        if self._schema is None:
            yield from self._p_describe()
        assert self._schema is not None
        return self._schema

    def _p_get(
        self,
        key: Mapping[str, Any],
        consistent: bool,
        projection: Sequence[str | Path] | None,
    ) -> Plan[Item | None]:
        request: dict[str, Any] = {"TableName": self.name, "Key": item_to_wire(key)}
        if consistent:
            request["ConsistentRead"] = True
        request.update(build_request((), projection=projection))
        response = yield Call("GetItem", request)
        item = response.get("Item")
        return None if item is None else item_from_wire(item)

    def _p_put(
        self,
        item: Mapping[str, Any],
        condition: ConditionArg,
        names: Mapping[str, str] | None,
        values: Mapping[str, Any] | None,
        return_values: ReturnValues,
    ) -> Plan[Item | None]:
        return (yield from self._p_conditional_write(
            "PutItem", {"Item": item_to_wire(item)}, condition, names, values, return_values))

    def _p_update(
        self,
        key: Mapping[str, Any],
        update: Update | str,
        condition: ConditionArg,
        names: Mapping[str, str] | None,
        values: Mapping[str, Any] | None,
        return_values: ReturnValues,
    ) -> Plan[Item]:
        request = self._update_request(key, update, condition, names, values, return_values)
        response = yield Call("UpdateItem", request, once=not idempotent(update, condition))
        return item_from_wire(response.get("Attributes") or {})

    def _update_request(
        self,
        key: Mapping[str, Any],
        update: Update | str,
        condition: ConditionArg,
        names: Mapping[str, str] | None,
        values: Mapping[str, Any] | None,
        return_values: ReturnValues,
    ) -> dict[str, Any]:
        """The UpdateItem request :meth:`_p_update` sends."""
        request: dict[str, Any] = {"TableName": self.name, "Key": item_to_wire(key)}
        request.update(
            build_request(
                [("UpdateExpression", update), ("ConditionExpression", condition)], names, values
            )
        )
        if return_values != "NONE":
            request["ReturnValues"] = return_values
        return request

    def _p_delete(
        self,
        key: Mapping[str, Any],
        condition: ConditionArg,
        names: Mapping[str, str] | None,
        values: Mapping[str, Any] | None,
        return_values: ReturnValues,
    ) -> Plan[Item | None]:
        return (yield from self._p_conditional_write(
            "DeleteItem", {"Key": item_to_wire(key)}, condition, names, values, return_values))

    def _p_conditional_write(
        self,
        operation: str,
        target: dict[str, Any],
        condition: ConditionArg,
        names: Mapping[str, str] | None,
        values: Mapping[str, Any] | None,
        return_values: ReturnValues,
    ) -> Plan[Item | None]:
        """PutItem or DeleteItem of ``target`` (its Item or Key), under an
        optional condition; the old item when ReturnValues asks for it."""
        request: dict[str, Any] = {"TableName": self.name, **target}
        request.update(build_request([("ConditionExpression", condition)], names, values))
        if return_values != "NONE":
            request["ReturnValues"] = return_values
        response = yield Call(operation, request)
        attributes = response.get("Attributes")
        return None if attributes is None else item_from_wire(attributes)

    def _query_request(
        self,
        key: Condition | str | Mapping[str, Any],
        filter: ConditionArg,
        projection: Sequence[str | Path] | None,
        index: str | None,
        page_size: int | None,
        reverse: bool,
        consistent: bool,
        names: Mapping[str, str] | None,
        values: Mapping[str, Any] | None,
        select: str | None = None,
    ) -> dict[str, Any]:
        request: dict[str, Any] = {"TableName": self.name}
        request.update(
            build_request(
                [("KeyConditionExpression", key_condition(key)), ("FilterExpression", filter)],
                names,
                values,
                projection,
            )
        )
        if index is not None:
            request["IndexName"] = index
        if page_size is not None:
            request["Limit"] = page_size
        if reverse:
            request["ScanIndexForward"] = False
        if consistent:
            request["ConsistentRead"] = True
        if select is not None:
            request["Select"] = select
        return request

    def _scan_request(
        self,
        filter: ConditionArg,
        projection: Sequence[str | Path] | None,
        index: str | None,
        page_size: int | None,
        consistent: bool,
        segment: tuple[int, int] | None,
        names: Mapping[str, str] | None,
        values: Mapping[str, Any] | None,
        select: str | None = None,
    ) -> dict[str, Any]:
        request: dict[str, Any] = {"TableName": self.name}
        request.update(build_request([("FilterExpression", filter)], names, values, projection))
        if index is not None:
            request["IndexName"] = index
        if page_size is not None:
            request["Limit"] = page_size
        if consistent:
            request["ConsistentRead"] = True
        if segment is not None:
            request["Segment"], request["TotalSegments"] = segment
        if select is not None:
            request["Select"] = select
        return request

    def _p_page(
        self, operation: str, request: dict[str, Any], start: dict[str, Wire] | None
    ) -> Plan[tuple[list[Item], dict[str, Wire] | None, int]]:
        """One page of a Query or Scan: (items, LastEvaluatedKey, Count)."""
        if start is not None:
            request = {**request, "ExclusiveStartKey": start}
        response = yield Call(operation, request)
        items = [item_from_wire(i) for i in response.get("Items", [])]
        return items, response.get("LastEvaluatedKey"), int(response.get("Count", len(items)))

    def _p_items(
        self,
        operation: str,
        request: dict[str, Any],
        limit: int | None,
        convert: Callable[[Item], T] = _same,  # type: ignore[assignment]
    ) -> Stream[T]:
        """Every page of a Query or Scan, stopping after ``limit`` items,
        each item as ``convert`` makes it (a model's instance)."""
        seen = 0
        start: dict[str, Wire] | None = None
        while True:
            items, start, _ = yield from self._p_page(operation, request, start)
            if limit is not None and seen + len(items) >= limit:
                yield Emit([convert(item) for item in items[: limit - seen]])
                return
            seen += len(items)
            yield Emit([convert(item) for item in items] if convert is not _same else items)  # type: ignore[arg-type]
            if not start:
                return

    def _p_count(self, operation: str, request: dict[str, Any]) -> Plan[int]:
        total = 0
        start: dict[str, Wire] | None = None
        while True:
            _, start, count = yield from self._p_page(operation, request, start)
            total += count
            if not start:
                return total

    def _p_enable_ttl(self, attribute: str) -> Plan[None]:
        yield Call(
            "UpdateTimeToLive",
            {
                "TableName": self.name,
                "TimeToLiveSpecification": {"Enabled": True, "AttributeName": attribute},
            },
        )


class Table(TableBase, Blocking):
    """A DynamoDB table, blocking API. Get one from
    :meth:`tallydb.Database.table` or :meth:`tallydb.Database.create_table`."""

    @property
    def schema(self) -> KeySchema:
        """The key schema (asked for once with DescribeTable, then remembered)."""
        result: KeySchema = self.transport.run(self._p_schema())
        return result

    def batch_writer(self) -> BatchWriter:
        """A buffer of puts and deletes sent as BatchWriteItem, 25 at a time
        (see :mod:`tallydb.toolkit.batch`): ``with table.batch_writer() as batch:``."""
        return BatchWriter(self)
