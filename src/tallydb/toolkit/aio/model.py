"""Async models: :class:`tallydb.Model`'s methods, awaited."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from typing import Any, TypeVar

from tallydb.toolkit.aio.database import Database
from tallydb.toolkit.aio.table import Table
from tallydb.toolkit.conditions import Condition
from tallydb.toolkit.indexes import Index
from tallydb.toolkit.model import ModelBase
from tallydb.toolkit.table import ConditionArg
from tallydb.toolkit.transport import Plan
from tallydb.toolkit.update import Update

__all__ = ["Model"]

M = TypeVar("M", bound="Model")


class Model(ModelBase):
    """Base class of typed models (async API). Declared exactly as
    :class:`tallydb.Model`; bind it to a :class:`tallydb.aio.Database`."""

    @classmethod
    def bind(cls, db: Database, *, table: str | None = None) -> None:
        """Talk to ``db`` (and optionally use another table name)."""
        if not isinstance(db, Database):
            raise TypeError(
                "tallydb.aio.Model.bind takes a tallydb.aio.Database "
                "(for tallydb.Database use tallydb.Model)"
            )
        cls._database = db
        if table is not None:
            cls._table_name = table

    @classmethod
    async def _run(cls, plan: Plan[Any]) -> Any:
        return await cls._db().transport.arun(plan)

    @classmethod
    async def create_table(
        cls, *, exist_ok: bool = True, ttl_attribute: str | None = None
    ) -> Table:
        """CreateTable from the declared keys, wait until ACTIVE (fine if it exists)."""
        await cls._run(cls._p_create_table(exist_ok, ttl_attribute))
        return cls.table()

    @classmethod
    def table(cls) -> Table:
        """The model's :class:`tallydb.aio.Table`."""
        return Table(cls._db(), cls.table_name(), cls.schema())

    @classmethod
    async def get(cls: type[M], *key: Any, consistent: bool = False, **named_key: Any) -> M:
        """The item with this key; ItemNotFoundError if there is none."""
        result: M = await cls._run(cls._p_get(cls._key_of(key, named_key), consistent))
        return result

    @classmethod
    async def query(
        cls: type[M],
        hash_value: Any,
        range_condition: Condition | None = None,
        *,
        filter: ConditionArg = None,
        index: str | Index | None = None,
        limit: int | None = None,
        reverse: bool = False,
        consistent: bool = False,
    ) -> AsyncIterator[M]:
        """The items of one partition: ``async for c in Model.query(...)``."""
        found = cls._index(index)
        async for item in cls.table().query(
            cls._query_key(hash_value, range_condition, found),
            filter=filter,
            index=None if found is None else found.name,
            limit=limit,
            reverse=reverse,
            consistent=consistent,
        ):
            yield cls.from_item(item)

    @classmethod
    async def scan(
        cls: type[M],
        filter: ConditionArg = None,
        *,
        index: str | Index | None = None,
        limit: int | None = None,
        consistent: bool = False,
    ) -> AsyncIterator[M]:
        """Every item of the table or index (matching ``filter``)."""
        found = cls._index(index)
        async for item in cls.table().scan(
            filter, index=None if found is None else found.name, limit=limit,
            consistent=consistent,
        ):
            yield cls.from_item(item)

    @classmethod
    async def count(
        cls,
        hash_value: Any = None,
        range_condition: Condition | None = None,
        *,
        filter: ConditionArg = None,
        index: str | Index | None = None,
        consistent: bool = False,
    ) -> int:
        """How many items (see :meth:`tallydb.Model.count`)."""
        found = cls._index(index)
        key = None if hash_value is None else cls._query_key(hash_value, range_condition, found)
        return await cls.table().count(
            key, filter=filter, index=None if found is None else found.name, consistent=consistent
        )

    @classmethod
    async def exists(cls, *key: Any, consistent: bool = False, **named_key: Any) -> bool:
        """Whether an item with this key exists."""
        result: bool = await cls._run(cls._p_exists(cls._key_of(key, named_key), consistent))
        return result

    @classmethod
    async def batch_get(
        cls: type[M], keys: Iterable[Any], *, consistent: bool = False
    ) -> list[M]:
        """The items with these keys that exist, in the order given."""
        items = await cls.table().batch_get(cls._keys_of(keys), consistent=consistent)
        return [cls.from_item(item) for item in items]

    @classmethod
    async def delete_table(cls) -> None:
        """DeleteTable of the model's table."""
        await cls._run(cls._db()._p_delete_table(cls.table_name()))

    async def save(self, *, condition: ConditionArg = None) -> None:
        """PutItem of the whole item (atomic counters reset to their start)."""
        await self._run(self._p_save(condition))

    async def update(
        self: M, update: Update | None = None, *, condition: ConditionArg = None
    ) -> M:
        """UpdateItem: what you changed, ``update``, the extensions' actions,
        every atomic counter; the refreshed instance."""
        await self._run(self._p_update(update, condition))
        return self

    async def delete(self, *, condition: ConditionArg = None) -> None:
        """DeleteItem."""
        await self._run(self._p_delete(condition))

    async def refresh(self, *, consistent: bool = True) -> None:
        """Reload this instance from the table."""
        await self._run(self._p_refresh(consistent))
