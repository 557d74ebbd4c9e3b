"""A table: items in and out as plain Python values.

::

    videos = db.table("videos")
    videos.put({"PK": "VID#9f3a", "SK": "META", "title": "Cats"})
    videos.get({"PK": "VID#9f3a", "SK": "META"})            # {"PK": ..., "title": "Cats"}
    videos.update({"PK": "VID#9f3a", "SK": "STATS#TOTAL"},
                  Update().add("play_count", 1), return_values="UPDATED_NEW")
    for item in videos.query({"PK": "VID#9f3a"}):            # every page, in order
        ...
    videos.query(Path("PK") == "VID#9f3a" & Path("SK").begins_with("STATS#"))

Every method sends one standard DynamoDB request (``query``/``scan`` one per
page) and raises DynamoDB's errors as :mod:`tallydb.engine.errors` exceptions.

Conditions (``condition=``, ``filter=``, a query's key condition) are a
:class:`~tallydb.toolkit.conditions.Condition` or a hand-written expression string;
for a string, pass its placeholders in ``names=`` and ``values=`` (values as
plain Python values). Builder placeholders never collide with yours.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from tallydb.toolkit import _expr as x
from tallydb.toolkit.changes import Change, ChangeReader, streams_client_for
from tallydb.toolkit.conditions import Condition, Path
from tallydb.toolkit.convert import Item, Wire, item_from_wire, item_to_wire, to_wire
from tallydb.toolkit.transport import Call, Plan, Transport
from tallydb.toolkit.update import Update

if TYPE_CHECKING:
    from tallydb.toolkit.batch import BatchWriter
    from tallydb.toolkit.database import DatabaseBase

__all__ = ["ConditionArg", "KeySchema", "Table", "TableBase"]

ConditionArg = Condition | str | None
ReturnValues = Literal["NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"]
KeyType = Literal["S", "N", "B"]


@dataclass(frozen=True)
class KeySchema:
    """A table's primary key: the hash (partition) key and the optional range
    (sort) key, each a name and a type (``S``, ``N`` or ``B``)."""

    hash_key: str
    hash_type: str
    range_key: str | None = None
    range_type: str | None = None

    @classmethod
    def from_description(cls, table: Mapping[str, Any]) -> KeySchema:
        types = {a["AttributeName"]: a["AttributeType"] for a in table["AttributeDefinitions"]}
        hash_key = range_key = None
        for element in table["KeySchema"]:
            if element["KeyType"] == "HASH":
                hash_key = element["AttributeName"]
            else:
                range_key = element["AttributeName"]
        assert hash_key is not None
        return cls(
            hash_key, types[hash_key], range_key, types.get(range_key) if range_key else None
        )

    @property
    def names(self) -> tuple[str, ...]:
        return (self.hash_key,) if self.range_key is None else (self.hash_key, self.range_key)

    def key_of(self, item: Mapping[str, Any]) -> Item:
        """The key attributes of ``item``."""
        missing = [n for n in self.names if n not in item]
        if missing:
            raise ValueError(f"the item has no value for key attribute(s) {', '.join(missing)}")
        return {n: item[n] for n in self.names}


def build_request(
    parts: Sequence[tuple[str, Update | Condition | str | None]],
    names: Mapping[str, str] | None = None,
    values: Mapping[str, Any] | None = None,
    projection: Sequence[str | Path] | None = None,
) -> dict[str, Any]:
    """The expression parameters of one request.

    ``parts`` pairs a request key (``"UpdateExpression"``,
    ``"ConditionExpression"``, ...) with a builder or a hand-written string;
    all share one set of placeholders, and ``names``/``values`` (plain values)
    are those of the hand-written strings.
    """
    taken: set[str] = set(names or ()) | set(values or ())
    for _, part in parts:
        if isinstance(part, str):
            taken |= x.placeholders_in(part)
    placeholders = x.Placeholders(taken)
    request: dict[str, Any] = {}
    for key, part in parts:
        if part is None:
            continue
        if isinstance(part, str):
            request[key] = part
        elif isinstance(part, Update | Condition):
            request[key] = part.render_into(placeholders)
        else:
            raise TypeError(f"{key}: expected a builder or a string, got {part!r}")
    if projection:
        paths = [Path.of(p)._node() for p in projection]
        request["ProjectionExpression"] = placeholders.projection(paths).render()
    all_names = {**(names or {}), **placeholders.names}
    all_values: dict[str, Wire] = {k: to_wire(v) for k, v in (values or {}).items()}
    all_values.update(placeholders.values)
    if all_names:
        request["ExpressionAttributeNames"] = all_names
    if all_values:
        request["ExpressionAttributeValues"] = all_values
    return request


_ACCUMULATES = re.compile(r"\bADD\b|[+-]|\blist_append\s*\(", re.IGNORECASE)


def _idempotent(update: Update | str, condition: ConditionArg) -> bool:
    """Whether an UpdateItem may be sent twice: its update is idempotent, or
    a condition guards it (a retry of an applied write then fails the
    condition rather than apply twice, as a version check does)."""
    if condition is not None:
        return True
    if isinstance(update, str):
        return _ACCUMULATES.search(update) is None
    return update.idempotent()


def key_condition(key: Condition | str | Mapping[str, Any]) -> Condition | str:
    """A query's key condition; a mapping ``{"PK": v}`` means ``PK = v`` (AND
    each further attribute)."""
    if isinstance(key, Condition | str):
        return key
    condition: Condition | None = None
    for name, value in key.items():
        part = Path(name) == value
        condition = part if condition is None else condition & part
    if condition is None:
        raise ValueError("a query needs a key condition")
    return condition


class TableBase:
    """What sync and async tables share: their plans (see :mod:`tallydb.toolkit.transport`)."""

    def __init__(self, database: DatabaseBase, name: str, schema: KeySchema | None = None) -> None:
        self.database = database
        self.name = name
        self._schema = schema

    @property
    def transport(self) -> Transport:
        return self.database.transport

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"

    # -- plans ---------------------------------------------------------------

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
        response = yield Call("UpdateItem", request, once=not _idempotent(update, condition))
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


class Table(TableBase):
    """A DynamoDB table, blocking API. Get one from
    :meth:`tallydb.Database.table` or :meth:`tallydb.Database.create_table`."""

    def _run(self, plan: Plan[Any]) -> Any:
        return self.transport.run(plan)

    def describe(self) -> dict[str, Any]:
        """DescribeTable's ``Table``."""
        result: dict[str, Any] = self._run(self._p_describe())
        return result

    @property
    def schema(self) -> KeySchema:
        """The key schema (asked for once with DescribeTable, then remembered)."""
        result: KeySchema = self._run(self._p_schema())
        return result

    def get(
        self,
        key: Mapping[str, Any],
        *,
        consistent: bool = False,
        projection: Sequence[str | Path] | None = None,
    ) -> Item | None:
        """GetItem: the item with this key, or None. ``consistent=True`` for
        a strongly consistent read."""
        result: Item | None = self._run(self._p_get(key, consistent, projection))
        return result

    def put(
        self,
        item: Mapping[str, Any],
        *,
        condition: ConditionArg = None,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Any] | None = None,
        return_values: ReturnValues = "NONE",
    ) -> Item | None:
        """PutItem: write the whole item (replacing any with the same key)."""
        result: Item | None = self._run(self._p_put(item, condition, names, values, return_values))
        return result

    def update(
        self,
        key: Mapping[str, Any],
        update: Update | str,
        *,
        condition: ConditionArg = None,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Any] | None = None,
        return_values: ReturnValues = "NONE",
    ) -> Item:
        """UpdateItem: apply ``update`` to the item (created if missing);
        the attributes ``return_values`` asks for (``{}`` for NONE)."""
        result: Item = self._run(
            self._p_update(key, update, condition, names, values, return_values)
        )
        return result

    def delete(
        self,
        key: Mapping[str, Any],
        *,
        condition: ConditionArg = None,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Any] | None = None,
        return_values: ReturnValues = "NONE",
    ) -> Item | None:
        """DeleteItem; with ``return_values="ALL_OLD"`` the item as it was."""
        result: Item | None = self._run(
            self._p_delete(key, condition, names, values, return_values)
        )
        return result

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
    ) -> Iterator[Item]:
        """Query: the items of one partition, every page, in key order.

        ``key`` is a Condition on the key (``Path("PK") == v``, ``& ...`` on
        the sort key), a string, or a mapping ``{"PK": v}``. ``limit`` stops
        after that many items; ``page_size`` is DynamoDB's ``Limit`` per page.
        """
        request = self._query_request(
            key, filter, projection, index, page_size, reverse, consistent, names, values
        )
        return self._iterate("Query", request, limit)

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
    ) -> Iterator[Item]:
        """Scan: every item of the table (or of ``segment=(n, total)``), every page."""
        request = self._scan_request(
            filter, projection, index, page_size, consistent, segment, names, values
        )
        return self._iterate("Scan", request, limit)

    def count(
        self,
        key: Condition | str | Mapping[str, Any] | None = None,
        *,
        filter: ConditionArg = None,
        index: str | None = None,
        consistent: bool = False,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> int:
        """How many items a Query (``key`` given) or Scan matches (Select=COUNT)."""
        if key is None:
            request = self._scan_request(
                filter, None, index, None, consistent, None, names, values, "COUNT"
            )
            result: int = self._run(self._p_count("Scan", request))
        else:
            request = self._query_request(
                key, filter, None, index, None, False, consistent, names, values, "COUNT"
            )
            result = self._run(self._p_count("Query", request))
        return result

    def _iterate(
        self, operation: str, request: dict[str, Any], limit: int | None
    ) -> Iterator[Item]:
        seen = 0
        start: dict[str, Wire] | None = None
        while True:
            items, start, _ = self._run(self._p_page(operation, request, start))
            for item in items:
                if limit is not None and seen >= limit:
                    return
                seen += 1
                yield item
            if not start or (limit is not None and seen >= limit):
                return

    def enable_ttl(self, attribute: str) -> None:
        """UpdateTimeToLive: expire items whose ``attribute`` (epoch seconds) has passed."""
        self._run(self._p_enable_ttl(attribute))

    def batch_writer(self) -> BatchWriter:
        """A buffer of puts and deletes sent as BatchWriteItem, 25 at a time
        (see :mod:`tallydb.toolkit.batch`): ``with table.batch_writer() as batch:``."""
        from tallydb.toolkit.batch import BatchWriter

        return BatchWriter(self)

    def batch_get(
        self,
        keys: Iterable[Mapping[str, Any]],
        *,
        consistent: bool = False,
        projection: Sequence[str | Path] | None = None,
    ) -> list[Item]:
        """BatchGetItem, 100 keys a request: the items that exist, in the
        order of ``keys`` (see :mod:`tallydb.toolkit.batch`)."""
        from tallydb.toolkit.batch import p_batch_get

        result: list[Item] = self._run(p_batch_get(self, keys, consistent, projection))
        return result

    def changes(self, after: str | None = None, *, follow: bool = False, poll: float = 1.0,
                latest: bool = False, streams: Any = None) -> Iterator[Change]:
        r"""The table's stream records as :class:`~tallydb.toolkit.changes.Change`\ s, in
        order: from the oldest retained (``latest=True``: from now on), or
        right after a ``change.position`` saved earlier (``after=``). Stops
        when caught up, unless ``follow`` (then polls every ``poll`` seconds).
        ``streams``: a ``dynamodbstreams`` client to read with (by default
        one on the same endpoint and credentials)."""
        reader = ChangeReader(streams or streams_client_for(self.transport),
                              self.describe, self.name, after, latest)
        while True:
            batch = reader.next_batch()
            yield from batch
            if not batch:
                if not follow or reader.finished:
                    return
                time.sleep(poll)
