"""``tallydb.aio.connect`` and the async Database."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from tallydb.toolkit.aio.table import Table
from tallydb.toolkit.conditions import Path
from tallydb.toolkit.convert import Item
from tallydb.toolkit.database import (
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT,
    DatabaseBase,
    KeySpec,
    new_table_request,
    open_transport,
)
from tallydb.toolkit.indexes import Index
from tallydb.toolkit.table import KeySchema
from tallydb.toolkit.transaction import AsyncTransaction, p_transact_get

__all__ = ["Database", "connect"]


class Database(DatabaseBase):
    """A connection to a store (async API). Make one with :func:`connect`;
    ``await db.close()`` (or ``async with``) releases it."""

    async def create_table(
        self,
        name: str,
        *,
        hash_key: KeySpec,
        range_key: KeySpec | None = None,
        billing_mode: str = "PAY_PER_REQUEST",
        ttl_attribute: str | None = None,
        exist_ok: bool = False,
        timeout: float = 60.0,
        indexes: Sequence[Index] = (),
    ) -> Table:
        """CreateTable, then wait until it is ACTIVE (see :meth:`tallydb.Database.create_table`)."""
        request = new_table_request(name, hash_key, range_key, billing_mode, indexes)
        await self.transport.arun(self._p_create_table(request, ttl_attribute, exist_ok, timeout))
        return Table(self, name, KeySchema.from_description(request))

    def table(self, name: str) -> Table:
        """The :class:`Table` called ``name`` (no request is sent)."""
        return Table(self, name)

    async def delete_table(self, name: str) -> None:
        """DeleteTable."""
        await self.transport.arun(self._p_delete_table(name))

    async def list_tables(self) -> list[str]:
        """Every table's name."""
        return await self.transport.arun(self._p_list_tables())

    def transaction(self, *, token: str | None = None) -> AsyncTransaction:
        """``async with db.transaction() as t:`` (see :meth:`tallydb.Database.transaction`)."""
        return AsyncTransaction(self.transport, token)

    async def transact_get(
        self,
        gets: Sequence[tuple[Table | str, Mapping[str, Any]]],
        *,
        projection: Sequence[str | Path] | None = None,
    ) -> list[Item | None]:
        """TransactGetItems: the item (or None) of each ``(table, key)``, in order."""
        result: list[Item | None] = await self.transport.arun(p_transact_get(gets, projection))
        return result

    async def close(self) -> None:
        """Release the thread pool and the embedded engine."""
        self.transport.close()

    async def __aenter__(self) -> Database:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"<aio.Database {self.transport.endpoint}>"


def connect(
    endpoint: str | None = None,
    *,
    path: str | os.PathLike[str] | None = None,
    client: Any = None,
    in_memory: bool = False,
    region: str | None = None,
    sync: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    retries: int = DEFAULT_RETRIES,
) -> Database:
    """Open a store for asyncio; the arguments are :func:`tallydb.connect`'s.
    (Opening sends nothing, so it is not awaited.)"""
    return Database(
        open_transport(
            endpoint,
            path=path,
            client=client,
            in_memory=in_memory,
            region=region,
            sync=sync,
            timeout=timeout,
            retries=retries,
        )
    )
