"""Typed models: a class per table, an instance per item.

::

    class Customer(tallydb.Model, table="customers"):
        id: str = tallydb.HashKey()
        name: str | None = None
        update_counter: int = tallydb.AtomicCounter()                # start 0, delta 1
        custom_counter: int = tallydb.AtomicCounter(delta=5, start=10)

    Customer.bind(db)          # which store the class talks to
    Customer.create_table()    # a table from the declared keys (fine if it exists)

    c = Customer(id="SOME_ID")
    c.update()                 # counters appear: 0 and 10
    c.update()
    Customer.get(id="SOME_ID") # update_counter 1, custom_counter 15

What each method sends:

* ``save()``: one PutItem of the whole item. Atomic counters are written at
  their ``start`` (a put resets them, as in the Java enhanced client).
* ``update(update=None, condition=None)``: one UpdateItem with ``SET`` for
  every attribute assigned since the instance was made or loaded (``REMOVE``
  for those assigned ``None``), the ``update`` you pass (an
  :class:`~tallydb.toolkit.update.Update`), and one action per atomic counter,
  ``SET c = if_not_exists(c, :start - :delta) + :delta``; the instance is then
  refreshed from the item as stored (``ReturnValues=ALL_NEW``). A counter
  assigned by hand collides with its own action and DynamoDB's overlap error
  is raised before anything is sent, as in the Java client. (The Java client
  sends every non-null attribute; an instance here tracks what you changed,
  which is the same for a new instance and safer for one you loaded.)
* ``delete()``: one DeleteItem.
* ``get(...)``, ``query(...)``, ``scan(...)``: GetItem, Query, Scan.

A :func:`~tallydb.toolkit.attributes.VersionAttribute` makes every ``save``,
``update`` and ``delete`` conditional on the version read (or on there being
no item, for a new instance) and increments it: a lost race raises
:class:`~tallydb.toolkit.exceptions.VersionConflictError`.

:mod:`tallydb.aio` has ``Model`` with the same methods awaited:
:class:`ModelBase` holds each once, as a plan.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar, Generic, TypeVar

from tallydb.engine.errors import ConditionalCheckFailedException
from tallydb.toolkit.attributes import MISSING, ModelAttribute, TimeToLive
from tallydb.toolkit.batch import p_batch_get
from tallydb.toolkit.conditions import Condition, Path
from tallydb.toolkit.convert import Item
from tallydb.toolkit.database import Database, DatabaseBase, new_table_request
from tallydb.toolkit.driver import (
    Blocking,
    chained,
    class_lookup,
    class_lookups,
    class_operation,
    class_stream,
    operation,
)
from tallydb.toolkit.exceptions import ItemNotFoundError, VersionConflictError
from tallydb.toolkit.extensions import Extension, Operation
from tallydb.toolkit.indexes import Index, LocalIndex
from tallydb.toolkit.requests import ConditionArg, KeySchema
from tallydb.toolkit.table import Table, TableBase
from tallydb.toolkit.table_spec import p_create_table
from tallydb.toolkit.transport import Plan, Stream, Transport
from tallydb.toolkit.update import Update, if_not_exists

__all__ = ["Model", "ModelBase"]

M = TypeVar("M", bound="ModelBase[Any, Any]")
DatabaseT = TypeVar("DatabaseT", bound=DatabaseBase[Any, Any])
TableT = TypeVar("TableT", bound=TableBase)
#: A model class (the first argument of a class-level method's plan).
ModelClass = type["ModelBase[Any, TableT]"]

def _own_hints(cls: type) -> dict[str, Any]:
    """The class's own annotations, evaluated one by one: a name that cannot
    be resolved yet (a forward reference) leaves that attribute untyped
    (Any) and the others typed; an unresolved ``ClassVar[...]`` stays a
    ClassVar."""
    module = vars(inspect.getmodule(cls) or typing)
    names = dict(vars(cls))
    hints: dict[str, Any] = {}
    for name, declared in inspect.get_annotations(cls).items():
        if not isinstance(declared, str):
            hints[name] = declared
            continue
        try:
            hints[name] = eval(declared, module, names)  # as typing.get_type_hints does
        except Exception:  # an annotation naming what is not defined yet
            classvar = declared.replace("typing.", "").startswith("ClassVar")
            hints[name] = ClassVar[Any] if classvar else Any
    return hints


class ModelBase(Generic[DatabaseT, TableT]):
    """What the blocking and the asyncio model share: the schema, and every
    method as a plan."""

    #: The API's own database and table classes.
    _database_class: ClassVar[type[DatabaseBase[Any, Any]]]
    _table_class: type[TableT]

    _table_name: ClassVar[str | None] = None
    _attributes: ClassVar[dict[str, ModelAttribute]] = {}
    _by_wire_name: ClassVar[dict[str, ModelAttribute]] = {}
    _hash: ClassVar[ModelAttribute | None] = None
    _range: ClassVar[ModelAttribute | None] = None
    _counters: ClassVar[tuple[ModelAttribute, ...]] = ()
    _version: ClassVar[ModelAttribute | None] = None
    _ttl: ClassVar[ModelAttribute | None] = None
    _indexes: ClassVar[dict[str, Index]] = {}
    _extensions: ClassVar[tuple[Extension, ...]] = ()
    _database: ClassVar[DatabaseBase[Any, Any] | None] = None

    def __init_subclass__(
        cls,
        *,
        table: str | None = None,
        extensions: Sequence[Extension] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init_subclass__(**kwargs)
        if table is not None:
            cls._table_name = table
        if extensions is not None:
            for extension in extensions:
                if not isinstance(extension, Extension):
                    raise TypeError(f"{cls.__name__}: {extension!r} is not a tallydb.Extension")
            cls._extensions = tuple(extensions)
        indexes = dict(cls._indexes)
        for value in vars(cls).values():
            if isinstance(value, Index):
                indexes[value.name] = value
        cls._indexes = indexes
        attributes: dict[str, ModelAttribute] = {}
        for base in reversed(cls.__mro__[1:]):
            attributes.update(getattr(base, "_attributes", {}))
        for name, hint in _own_hints(cls).items():
            if name.startswith("_") or typing.get_origin(hint) is ClassVar:
                continue
            declared = cls.__dict__.get(name, MISSING)
            if isinstance(declared, ModelAttribute):
                attribute = declared
            else:
                attribute = ModelAttribute(default=declared)
                attribute.__set_name__(cls, name)
                setattr(cls, name, attribute)
            attribute.python_type = hint
            attributes[name] = attribute
        cls._attributes = attributes
        cls._by_wire_name = {a.name: a for a in attributes.values()}
        cls._hash = next((a for a in attributes.values() if a.kind == "hash"), None)
        cls._range = next((a for a in attributes.values() if a.kind == "range"), None)
        cls._counters = tuple(a for a in attributes.values() if a.kind == "counter")
        cls._version = next((a for a in attributes.values() if a.kind == "version"), None)
        cls._ttl = next((a for a in attributes.values() if isinstance(a, TimeToLive)), None)
        kinds = [a.kind for a in attributes.values()]
        if kinds.count("hash") > 1 or kinds.count("range") > 1 or kinds.count("version") > 1:
            raise TypeError(f"{cls.__name__}: at most one HashKey, RangeKey and VersionAttribute")

    def __init__(self, **values: Any) -> None:
        self.__dict__["_values"] = {}
        self.__dict__["_dirty"] = set()
        unknown = set(values) - set(self._attributes)
        if unknown:
            raise TypeError(
                f"{type(self).__name__} has no attribute(s) {', '.join(sorted(unknown))}"
            )
        for name, attribute in self._attributes.items():
            if name in values:
                setattr(self, name, values[name])
            else:
                value = attribute.initial()
                self._values[name] = value
                if value is not None and attribute.kind == "plain":
                    self._dirty.add(name)

    @property
    def _values(self) -> dict[str, Any]:
        values: dict[str, Any] = self.__dict__["_values"]
        return values

    @property
    def _dirty(self) -> set[str]:
        dirty: set[str] = self.__dict__["_dirty"]
        return dirty

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, ModelBase)
            and type(other) is type(self)
            and (other._values == self._values)
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self._values.items())
        return f"{type(self).__name__}({shown})"

    # -- schema ------------------------------------------------------------------

    @classmethod
    def schema(cls) -> KeySchema:
        """The key schema declared by HashKey/RangeKey."""
        if cls._hash is None:
            raise TypeError(f"{cls.__name__} declares no HashKey()")
        return KeySchema(
            cls._hash.name,
            cls._hash.key_type(),
            cls._range.name if cls._range is not None else None,
            cls._range.key_type() if cls._range is not None else None,
        )

    @classmethod
    def attr(cls, name: str) -> ModelAttribute:
        """The declared attribute ``name``, typed as what it is on the class
        (a :class:`~tallydb.toolkit.conditions.Path`): ``Customer.attr("visits") > 3``.
        ``Customer.visits > 3`` does the same at run time, but a type checker
        reads ``visits`` as the annotated ``int``."""
        try:
            return cls._attributes[name]
        except KeyError:
            raise AttributeError(f"{cls.__name__} has no attribute {name!r}") from None

    @classmethod
    def table_name(cls) -> str:
        if cls._table_name is None:
            raise TypeError(f"{cls.__name__} has no table: class {cls.__name__}(Model, table=...)")
        return cls._table_name

    @classmethod
    def bind(cls, db: DatabaseT, *, table: str | None = None) -> None:
        """Talk to ``db`` (and optionally use another table name)."""
        if not isinstance(db, cls._database_class):
            raise TypeError(
                f"{cls.__name__}.bind takes a {_api(cls)}Database (for a "
                f"{_api(db)}Database, use {_api(db)}Model)"
            )
        cls._database = db
        if table is not None:
            cls._table_name = table

    @classmethod
    def _db(cls) -> DatabaseBase[Any, Any]:
        if cls._database is None:
            raise RuntimeError(
                f"{cls.__name__} is not bound to a database: {cls.__name__}.bind(db)"
            )
        return cls._database

    @classmethod
    def _table(cls) -> TableBase:
        return TableBase(cls._db(), cls.table_name(), cls.schema())

    @classmethod
    def table(cls) -> TableT:
        """The model's :class:`~tallydb.toolkit.table.Table`."""
        return cls._table_class(cls._db(), cls.table_name(), cls.schema())

    @classmethod
    def _class_transport(cls) -> Transport:
        return cls._db().transport

    #: The transport a model instance's methods run on: its class's.
    _transport_of: ClassVar[Callable[[Any], Transport]] = staticmethod(
        lambda model: type(model)._class_transport()
    )

    # -- items ---------------------------------------------------------------------

    def to_item(self) -> Item:
        """The item as stored: wire names; None and empty sets are left out
        (DynamoDB has no empty sets: an empty set is no attribute)."""
        return {
            a.name: a.dump(self._values[name])
            for name, a in self._attributes.items()
            if not _absent(self._values.get(name))
        }

    @classmethod
    def from_item(cls: type[M], item: Mapping[str, Any]) -> M:
        """An instance from a stored item (nothing marked as changed)."""
        instance = cls.__new__(cls)
        instance.__dict__["_values"] = {}
        instance.__dict__["_dirty"] = set()
        instance._load(item)
        return instance

    def _load(self, item: Mapping[str, Any]) -> None:
        for name, attribute in self._attributes.items():
            self._values[name] = attribute.load(item.get(attribute.name))
        self._dirty.clear()

    def key(self) -> Item:
        """This instance's primary key."""
        return self.schema().key_of(self.to_item())

    @classmethod
    def _key_of(cls, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Item:
        schema = cls.schema()
        names = [a.python_name for a in (cls._hash, cls._range) if a is not None]
        if len(args) > len(names):
            raise TypeError(f"{cls.__name__} has {len(names)} key attribute(s)")
        values = dict(zip(names, args, strict=False))
        for k, v in kwargs.items():
            if k not in names:
                raise TypeError(f"{k} is not a key attribute of {cls.__name__}")
            values[k] = v
        missing = [n for n in names if n not in values]
        if missing:
            raise TypeError(f"{cls.__name__}.get needs {', '.join(missing)}")
        wire = {cls._attributes[n].name: cls._attributes[n].dump(values[n]) for n in names}
        return schema.key_of(wire)

    # -- the methods -------------------------------------------------------------

    @class_operation
    @staticmethod
    def create_table(
        cls: ModelClass[TableT],
        *,
        exist_ok: bool = True,
        ttl_attribute: str | None = None,
        stream: str | None = None,
    ) -> Plan[TableT]:
        """CreateTable from the declared keys and indexes, wait until ACTIVE,
        turn TTL on for the :class:`~tallydb.toolkit.attributes.TTLAttribute`
        (or ``ttl_attribute``) and a ``stream`` if one is asked for.

        An existing table is fine (``exist_ok``, by default): it is made what
        the model declares if it is not so already (a missing global index
        created, TTL turned on), as :meth:`tallydb.Database.create_table`
        does, so a service may call this on every start."""
        yield from cls._p_create_table(exist_ok, ttl_attribute, stream)
        return cls.table()

    @class_lookup
    @staticmethod
    def get(
        cls: ModelClass[Any], /, *key: Any, consistent: bool = False, **named_key: Any
    ) -> Plan[Any]:
        """The item with this key: ``Customer.get("id1")`` or ``Customer.get(id="id1")``.
        Raises :class:`~tallydb.toolkit.exceptions.ItemNotFoundError` if there is none."""
        return cls._p_get(cls._key_of(key, named_key), consistent)

    @class_stream
    @staticmethod
    def query(
        cls: ModelClass[Any],
        hash_value: Any,
        range_condition: Condition | None = None,
        *,
        filter: ConditionArg = None,
        index: str | Index | None = None,
        limit: int | None = None,
        reverse: bool = False,
        consistent: bool = False,
    ) -> Stream[Any]:
        """The items of one partition, optionally narrowed by a condition on
        the sort key (``Video.sk.begins_with("STATS#")``); with ``index``
        (a declared index or its name), that index's partition."""
        found = cls._index(index)
        table = cls._table()
        request = table._query_request(
            cls._query_key(hash_value, range_condition, found), filter, None,
            None if found is None else found.name, None, reverse, consistent, None, None)
        return table._p_items("Query", request, limit, cls.from_item)

    @class_stream
    @staticmethod
    def scan(
        cls: ModelClass[Any],
        filter: ConditionArg = None,
        *,
        index: str | Index | None = None,
        limit: int | None = None,
        consistent: bool = False,
    ) -> Stream[Any]:
        """Every item of the table or index (matching ``filter``)."""
        found = cls._index(index)
        table = cls._table()
        request = table._scan_request(
            filter, None, None if found is None else found.name, None, consistent, None,
            None, None)
        return table._p_items("Scan", request, limit, cls.from_item)

    @class_operation
    @staticmethod
    def count(
        cls: ModelClass[Any],
        hash_value: Any = None,
        range_condition: Condition | None = None,
        *,
        filter: ConditionArg = None,
        index: str | Index | None = None,
        consistent: bool = False,
    ) -> Plan[int]:
        """How many items one partition holds (``hash_value`` given: a
        Query) or the whole table (a Scan), Select=COUNT, every page."""
        found = cls._index(index)
        name = None if found is None else found.name
        table = cls._table()
        if hash_value is None:
            request = table._scan_request(
                filter, None, name, None, consistent, None, None, None, "COUNT")
            return table._p_count("Scan", request)
        request = table._query_request(
            cls._query_key(hash_value, range_condition, found), filter, None, name, None,
            False, consistent, None, None, "COUNT")
        return table._p_count("Query", request)

    @class_operation
    @staticmethod
    def exists(
        cls: ModelClass[Any], /, *key: Any, consistent: bool = False, **named_key: Any
    ) -> Plan[bool]:
        """Whether an item with this key exists (a GetItem of the key only)."""
        return cls._p_exists(cls._key_of(key, named_key), consistent)

    @class_lookups
    @staticmethod
    def batch_get(
        cls: ModelClass[Any], keys: Iterable[Any], *, consistent: bool = False
    ) -> Plan[list[Any]]:
        """The items with these keys that exist, in the order given (BatchGetItem,
        100 a request). A key is a hash value, a ``(hash, range)`` tuple or a dict."""
        items = yield from p_batch_get(cls._table(), cls._keys_of(keys), consistent, None)
        return [cls.from_item(item) for item in items]

    @class_operation
    @staticmethod
    def delete_table(cls: ModelClass[Any]) -> Plan[None]:
        """DeleteTable of the model's table (and everything in it)."""
        return cls._db()._p_delete_table(cls.table_name())

    @operation
    def save(self, *, condition: ConditionArg = None) -> Plan[None]:
        """PutItem of the whole item (atomic counters reset to their start)."""
        return self._p_save(condition)

    @chained
    def update(
        self, update: Update | None = None, *, condition: ConditionArg = None
    ) -> Plan[Any]:
        """UpdateItem: what you changed, ``update``, the extensions' actions,
        every atomic counter; then refresh this instance from the stored item
        and return it."""
        yield from self._p_update(update, condition)
        return self

    @operation
    def delete(self, *, condition: ConditionArg = None) -> Plan[None]:
        """DeleteItem."""
        return self._p_delete(condition)

    @operation
    def refresh(self, *, consistent: bool = True) -> Plan[None]:
        """Reload this instance from the table."""
        return self._p_refresh(consistent)

    # -- plans ---------------------------------------------------------------------

    # Attributes are descriptors: on an instance, ``self._version`` would be
    # the *value*. Class-level schema is always read through ``type(self)``.

    def _version_step(self) -> tuple[Condition | None, Any]:
        """The version condition and the next version (None without a version)."""
        version = type(self)._version
        if version is None:
            return None, None
        current = self._values.get(version.python_name)
        if current is None:
            return version.not_exists(), 1
        return version.eq(current), current + 1

    def _modifications(
        self, operation: Operation
    ) -> tuple[Update, dict[str, Any], Condition | None]:
        """What the model's extensions add to this write: update actions,
        item attributes, a condition (ANDed)."""
        update = Update()
        item: dict[str, Any] = {}
        condition: Condition | None = None
        for extension in self._extensions:
            modification = extension.before_write(self, operation)
            if modification is None:
                continue
            if modification.update is not None:
                update = update.merge(modification.update)
            if modification.item is not None:
                item.update(modification.item)
            if modification.condition is not None:
                condition = (
                    modification.condition if condition is None
                    else condition & modification.condition
                )
        return update, item, condition

    def _check_values(self) -> None:
        for name, attribute in self._attributes.items():
            attribute.check(self._values.get(name))

    def _p_save(self, condition: ConditionArg) -> Plan[None]:
        self._check_values()
        _, extra, extension_condition = self._modifications("save")
        condition = _both(extension_condition, condition)
        item = {**self.to_item(), **extra}
        for counter in self._counters:  # a put resets counters (Java: addToItem)
            item[counter.name] = counter.start
        version_condition, next_version = self._version_step()
        version = type(self)._version
        if version is not None:
            item[version.name] = next_version
        table = self._table()
        try:
            yield from table._p_put(item, _both(version_condition, condition), None, None, "NONE")
        except ConditionalCheckFailedException as e:
            raise self._conflict(e, version_condition) from None
        self._load(item)

    def _p_update(self, update: Update | None, condition: ConditionArg) -> Plan[None]:
        actions = Update()
        for name, attribute in self._attributes.items():
            if name not in self._dirty or attribute.kind in ("hash", "range", "version"):
                continue
            value = self._values.get(name)
            if _absent(value):
                actions = actions.remove(attribute)
            else:
                actions = actions.set(attribute, attribute.dump(value))
        if update is not None:
            actions = actions.merge(update)
        extension_update, _, extension_condition = self._modifications("update")
        condition = _both(extension_condition, condition)
        if extension_update:
            actions = actions.merge(extension_update)
        for counter in self._counters:
            actions = actions.set(
                counter, if_not_exists(counter, counter.start - counter.delta) + counter.delta
            )
        version_condition, next_version = self._version_step()
        version = type(self)._version
        if version is not None:
            actions = actions.set(version, next_version)
        if not actions:
            raise ValueError(
                f"nothing to update: no attribute of this {type(self).__name__} was changed"
            )
        actions.check()
        table = self._table()
        try:
            item = yield from table._p_update(
                self.key(), actions, _both(version_condition, condition), None, None, "ALL_NEW"
            )
        except ConditionalCheckFailedException as e:
            raise self._conflict(e, version_condition) from None
        self._load(item)

    def _p_delete(self, condition: ConditionArg) -> Plan[None]:
        condition = _both(self._modifications("delete")[2], condition)
        version_condition: Condition | None = None
        version = type(self)._version
        if version is not None:
            current = self._values.get(version.python_name)
            if current is not None:  # a new instance has nothing to protect
                version_condition = version.eq(current)
        try:
            yield from self._table()._p_delete(
                self.key(), _both(version_condition, condition), None, None, "NONE"
            )
        except ConditionalCheckFailedException as e:
            raise self._conflict(e, version_condition) from None

    def _conflict(
        self, error: ConditionalCheckFailedException, version_condition: Condition | None
    ) -> ConditionalCheckFailedException:
        if version_condition is None:
            return error
        version_attribute = type(self)._version
        version = (
            None if version_attribute is None else self._values.get(version_attribute.python_name)
        )
        return VersionConflictError(
            error.message or "The conditional request failed",
            explanation=f"{type(self).__name__} {self.key()}: the stored item is not at "
            f"version {version} any more (or a condition you gave failed)",
        )

    def _p_refresh(self, consistent: bool) -> Plan[None]:
        item = yield from self._table()._p_get(self.key(), consistent, None)
        if item is None:
            raise ItemNotFoundError(f"{type(self).__name__} {self.key()} does not exist")
        self._load(item)

    @classmethod
    def _p_get(cls: type[M], key: Item, consistent: bool) -> Plan[M]:
        item = yield from cls._table()._p_get(key, consistent, None)
        if item is None:
            raise ItemNotFoundError(f"{cls.__name__} {key} does not exist")
        return cls.from_item(item)

    @classmethod
    def _key_types(cls) -> dict[str, str]:
        """DynamoDB's key type of each attribute that can be a key (by stored name)."""
        types: dict[str, str] = {}
        for attribute in cls._attributes.values():
            try:
                types[attribute.name] = attribute.key_type()
            except TypeError:
                continue
        return types

    @classmethod
    def _p_create_table(
        cls, exist_ok: bool, ttl_attribute: str | None, stream: str | None
    ) -> Plan[None]:
        schema = cls.schema()
        request = new_table_request(
            cls.table_name(),
            (schema.hash_key, schema.hash_type),
            (schema.range_key, schema.range_type or "S") if schema.range_key else None,
            "PAY_PER_REQUEST",
            tuple(cls._indexes.values()),
            cls._key_types(),
            stream=stream,
        )
        if ttl_attribute is None and cls._ttl is not None:
            ttl_attribute = cls._ttl.name
        yield from p_create_table(request, ttl_attribute, exist_ok, 60.0, billing_given=False)

    @classmethod
    def _index(cls, index: str | Index | None) -> Index | None:
        if index is None or isinstance(index, Index):
            return index
        found = cls._indexes.get(index)
        if found is None:
            known = ", ".join(sorted(cls._indexes)) or "none"
            raise ValueError(f"{cls.__name__} declares no index {index!r} (declared: {known})")
        return found

    @classmethod
    def _query_key(
        cls, hash_value: Any, range_condition: Condition | None, index: Index | None = None
    ) -> Condition:
        assert cls._hash is not None
        attribute: ModelAttribute | None = cls._hash
        name = cls._hash.name
        if index is not None and not isinstance(index, LocalIndex):
            ref = index.hash_key
            name = ref if isinstance(ref, str) else ref[0] if ref is not None else name
            attribute = cls._by_wire_name.get(name)
        value = attribute.dump(hash_value) if attribute is not None else hash_value
        key: Condition = Path.literal(name) == value
        return key if range_condition is None else key & range_condition

    @classmethod
    def _keys_of(cls, keys: Iterable[Any]) -> list[Item]:
        """Model keys given as values (hash only), tuples (hash, range) or dicts."""
        result = []
        for key in keys:
            if isinstance(key, Mapping):
                result.append(cls._key_of((), key))
            elif isinstance(key, tuple):
                result.append(cls._key_of(key, {}))
            else:
                result.append(cls._key_of((key,), {}))
        return result

    @classmethod
    def _p_exists(cls, key: Item, consistent: bool) -> Plan[bool]:
        schema = cls.schema()
        item = yield from cls._table()._p_get(key, consistent, list(schema.names))
        return item is not None


def _absent(value: Any) -> bool:
    return value is None or (isinstance(value, set | frozenset) and not value)


def _both(one: Condition | None, two: ConditionArg) -> ConditionArg:
    if one is None:
        return two
    if two is None:
        return one
    if isinstance(two, str):
        raise TypeError("with a VersionAttribute, pass the condition as a Condition, not a string")
    return one & two



def _api(of: Any) -> str:
    return "tallydb.aio." if getattr(of, "awaited", False) else "tallydb."


class Model(ModelBase[Database, Table], Blocking):
    """Base class of typed models (blocking API). See :mod:`tallydb.toolkit.model`."""

    _database_class = Database
    _table_class = Table
