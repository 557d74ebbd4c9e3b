"""The async Table: :class:`tallydb.toolkit.table.Table`'s methods, awaited."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from typing import Any

from tallydb.toolkit.batch import AsyncBatchWriter, p_batch_get
from tallydb.toolkit.changes import Change, ChangeReader, streams_client_for
from tallydb.toolkit.conditions import Condition, Path
from tallydb.toolkit.convert import Item, Wire
from tallydb.toolkit.table import ConditionArg, KeySchema, ReturnValues, TableBase
from tallydb.toolkit.transport import Plan
from tallydb.toolkit.update import Update

__all__ = ["Table"]


class Table(TableBase):
    """A DynamoDB table, async API; see :class:`tallydb.toolkit.table.Table`."""

    async def _run(self, plan: Plan[Any]) -> Any:
        return await self.transport.arun(plan)

    async def describe(self) -> dict[str, Any]:
        """DescribeTable's ``Table``."""
        result: dict[str, Any] = await self._run(self._p_describe())
        return result

    async def schema(self) -> KeySchema:
        """The key schema (asked for once, then remembered)."""
        result: KeySchema = await self._run(self._p_schema())
        return result

    async def get(
        self,
        key: Mapping[str, Any],
        *,
        consistent: bool = False,
        projection: Sequence[str | Path] | None = None,
    ) -> Item | None:
        """GetItem: the item with this key, or None."""
        result: Item | None = await self._run(self._p_get(key, consistent, projection))
        return result

    async def put(
        self,
        item: Mapping[str, Any],
        *,
        condition: ConditionArg = None,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Any] | None = None,
        return_values: ReturnValues = "NONE",
    ) -> Item | None:
        """PutItem."""
        result: Item | None = await self._run(
            self._p_put(item, condition, names, values, return_values)
        )
        return result

    async def update(
        self,
        key: Mapping[str, Any],
        update: Update | str,
        *,
        condition: ConditionArg = None,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Any] | None = None,
        return_values: ReturnValues = "NONE",
    ) -> Item:
        """UpdateItem."""
        result: Item = await self._run(
            self._p_update(key, update, condition, names, values, return_values)
        )
        return result

    async def delete(
        self,
        key: Mapping[str, Any],
        *,
        condition: ConditionArg = None,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Any] | None = None,
        return_values: ReturnValues = "NONE",
    ) -> Item | None:
        """DeleteItem."""
        result: Item | None = await self._run(
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
    ) -> AsyncIterator[Item]:
        """Query, every page: ``async for item in table.query(...)``."""
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
    ) -> AsyncIterator[Item]:
        """Scan, every page: ``async for item in table.scan(...)``."""
        request = self._scan_request(
            filter, projection, index, page_size, consistent, segment, names, values
        )
        return self._iterate("Scan", request, limit)

    async def count(
        self,
        key: Condition | str | Mapping[str, Any] | None = None,
        *,
        filter: ConditionArg = None,
        index: str | None = None,
        consistent: bool = False,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> int:
        """How many items a Query (``key`` given) or Scan matches."""
        if key is None:
            request = self._scan_request(
                filter, None, index, None, consistent, None, names, values, "COUNT"
            )
            result: int = await self._run(self._p_count("Scan", request))
        else:
            request = self._query_request(
                key, filter, None, index, None, False, consistent, names, values, "COUNT"
            )
            result = await self._run(self._p_count("Query", request))
        return result

    async def _iterate(
        self, operation: str, request: dict[str, Any], limit: int | None
    ) -> AsyncIterator[Item]:
        seen = 0
        start: dict[str, Wire] | None = None
        while True:
            items, start, _ = await self._run(self._p_page(operation, request, start))
            for item in items:
                if limit is not None and seen >= limit:
                    return
                seen += 1
                yield item
            if not start or (limit is not None and seen >= limit):
                return

    async def enable_ttl(self, attribute: str) -> None:
        """UpdateTimeToLive."""
        await self._run(self._p_enable_ttl(attribute))

    def batch_writer(self) -> AsyncBatchWriter:
        """BatchWriteItem, 25 at a time: ``async with table.batch_writer() as b:``."""
        return AsyncBatchWriter(self)

    async def batch_get(
        self,
        keys: Iterable[Mapping[str, Any]],
        *,
        consistent: bool = False,
        projection: Sequence[str | Path] | None = None,
    ) -> list[Item]:
        """BatchGetItem, 100 keys a request: the items found, in the order of ``keys``."""
        result: list[Item] = await self._run(p_batch_get(self, keys, consistent, projection))
        return result

    async def changes(self, after: str | None = None, *, follow: bool = False,
                      poll: float = 1.0, latest: bool = False, streams: Any = None
                      ) -> AsyncIterator[Change]:
        """The table's stream records: ``async for change in table.changes()``
        (see :meth:`tallydb.toolkit.table.Table.changes`); requests go from a thread."""
        client = streams or await asyncio.to_thread(streams_client_for, self.transport)
        described = await self.describe()
        reader = ChangeReader(client, lambda: described, self.name, after, latest)
        while True:
            batch = await asyncio.to_thread(reader.next_batch)
            for change in batch:
                yield change
            if not batch:
                if not follow or reader.finished:
                    return
                await asyncio.sleep(poll)
