"""tallydb: a local, DynamoDB-compatible store built for atomic counters.

The package is laid out by layer: ``engine`` (DynamoDB itself), ``server``
(HTTP in front of it), ``console`` (the web page), ``toolkit`` (what
``import tallydb`` gives a Python developer), ``testing``, ``cli`` and
``transfer``. The toolkit's public names are importable from here::

    import tallydb
    db = tallydb.connect()                                   # or connect("http://...")
    videos = db.create_table("videos", hash_key=("PK", "S"), range_key=("SK", "S"))
    plays = tallydb.Counter(videos, {"PK": "VID#9f3a", "SK": "STATS#TOTAL"}, "play_count")
    plays.add()

Names are imported on first use, so that ``python -m tallydb serve`` does
not pay for boto3 and the toolkit it does not use.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from types import ModuleType
from typing import TYPE_CHECKING, Any

from tallydb.engine.version import __version__

if TYPE_CHECKING:
    from tallydb.engine.errors import (
        ConditionalCheckFailedException,
        DynamoDBError,
        ResourceInUseException,
        ResourceNotFoundException,
        TransactionCanceledException,
        ValidationException,
    )
    from tallydb.toolkit import aio
    from tallydb.toolkit.attributes import (
        AtomicCounter,
        Attribute,
        HashKey,
        RangeKey,
        TTLAttribute,
        VersionAttribute,
    )
    from tallydb.toolkit.conditions import Condition, Path
    from tallydb.toolkit.counters import Counter, ShardedCounter
    from tallydb.toolkit.database import Database, connect
    from tallydb.toolkit.exceptions import (
        BatchIncompleteError,
        ContentionError,
        CounterLimitError,
        IdempotencyKeyMismatchError,
        ItemNotFoundError,
        OutcomeUnknown,
        SchemaMismatchError,
        TableNotFoundError,
        TallyError,
        TransactionCancelled,
        TransportError,
        VersionConflictError,
    )
    from tallydb.toolkit.extensions import Extension, WriteModification
    from tallydb.toolkit.indexes import GlobalIndex, LocalIndex
    from tallydb.toolkit.model import Model
    from tallydb.toolkit.regional import RegionalCounter
    from tallydb.toolkit.table import Table
    from tallydb.toolkit.update import Update, if_not_exists, list_append

    ConditionalCheckFailed = ConditionalCheckFailedException

_EXPORTS: dict[str, str] = {
    "connect": "tallydb.toolkit.database",
    "Database": "tallydb.toolkit.database",
    "Table": "tallydb.toolkit.table",
    "Update": "tallydb.toolkit.update",
    "if_not_exists": "tallydb.toolkit.update",
    "list_append": "tallydb.toolkit.update",
    "Path": "tallydb.toolkit.conditions",
    "Condition": "tallydb.toolkit.conditions",
    "Counter": "tallydb.toolkit.counters",
    "ShardedCounter": "tallydb.toolkit.counters",
    "RegionalCounter": "tallydb.toolkit.regional",
    "Model": "tallydb.toolkit.model",
    "Attribute": "tallydb.toolkit.attributes",
    "HashKey": "tallydb.toolkit.attributes",
    "RangeKey": "tallydb.toolkit.attributes",
    "AtomicCounter": "tallydb.toolkit.attributes",
    "VersionAttribute": "tallydb.toolkit.attributes",
    "TTLAttribute": "tallydb.toolkit.attributes",
    "GlobalIndex": "tallydb.toolkit.indexes",
    "LocalIndex": "tallydb.toolkit.indexes",
    "Extension": "tallydb.toolkit.extensions",
    "WriteModification": "tallydb.toolkit.extensions",
    "BatchIncompleteError": "tallydb.toolkit.exceptions",
    "SchemaMismatchError": "tallydb.toolkit.exceptions",
    "TransactionCancelled": "tallydb.toolkit.exceptions",
    "DynamoDBError": "tallydb.engine.errors",
    "ConditionalCheckFailedException": "tallydb.engine.errors",
    "ValidationException": "tallydb.engine.errors",
    "TransactionCanceledException": "tallydb.engine.errors",
    "ResourceNotFoundException": "tallydb.engine.errors",
    "ResourceInUseException": "tallydb.engine.errors",
    "TallyError": "tallydb.toolkit.exceptions",
    "CounterLimitError": "tallydb.toolkit.exceptions",
    "VersionConflictError": "tallydb.toolkit.exceptions",
    "ItemNotFoundError": "tallydb.toolkit.exceptions",
    "ContentionError": "tallydb.toolkit.exceptions",
    "IdempotencyKeyMismatchError": "tallydb.toolkit.exceptions",
    "TransportError": "tallydb.toolkit.exceptions",
    "OutcomeUnknown": "tallydb.toolkit.exceptions",
    "TableNotFoundError": "tallydb.toolkit.exceptions",
}
_ALIASES: dict[str, str] = {"ConditionalCheckFailed": "ConditionalCheckFailedException"}

__all__ = [
    "AtomicCounter",
    "Attribute",
    "BatchIncompleteError",
    "Condition",
    "ConditionalCheckFailed",
    "ConditionalCheckFailedException",
    "ContentionError",
    "Counter",
    "CounterLimitError",
    "Database",
    "DynamoDBError",
    "Extension",
    "GlobalIndex",
    "HashKey",
    "IdempotencyKeyMismatchError",
    "ItemNotFoundError",
    "LocalIndex",
    "Model",
    "OutcomeUnknown",
    "Path",
    "RangeKey",
    "RegionalCounter",
    "ResourceInUseException",
    "ResourceNotFoundException",
    "SchemaMismatchError",
    "ShardedCounter",
    "TTLAttribute",
    "Table",
    "TableNotFoundError",
    "TallyError",
    "TransactionCanceledException",
    "TransactionCancelled",
    "TransportError",
    "Update",
    "ValidationException",
    "VersionAttribute",
    "VersionConflictError",
    "WriteModification",
    "__version__",
    "aio",
    "connect",
    "if_not_exists",
    "list_append",
]


def __getattr__(name: str) -> Any:
    if name == "aio":  # ``import tallydb`` then ``tallydb.aio.connect()``
        return importlib.import_module("tallydb.toolkit.aio")
    target = _ALIASES.get(name, name)
    module = _EXPORTS.get(target)
    if module is None:
        raise AttributeError(f"module 'tallydb' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), target)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


#: Modules that moved when the package was laid out by layer. ``tallydb.aio``
#: is a public name for ``tallydb.toolkit.aio``; the others are the old
#: paths, importable (with a DeprecationWarning) until the next release.
_MOVED: dict[str, str] = {
    "tallydb.aio": "tallydb.toolkit.aio",
    **{f"tallydb.{m}": f"tallydb.engine.{m}" for m in (
        "api", "errors", "expressions", "feed", "partiql", "storage", "sweeper", "values")},
    **{f"tallydb.{m}": f"tallydb.toolkit.{m}" for m in (
        "attributes", "batch", "changes", "conditions", "convert", "counters", "database",
        "exceptions", "extensions", "indexes", "inprocess", "model", "table", "transaction",
        "transport", "update")},
    "tallydb.mock": "tallydb.testing.mock",
    "tallydb.commands": "tallydb.cli",
}
_CURRENT = frozenset({"tallydb.aio"})
_OLD_PREFIXES = tuple(_MOVED)


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports an old module path (and its submodules) as the module at its
    new path: the same module object, not a second copy."""

    def find_spec(
        self, name: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not name.startswith(_OLD_PREFIXES):
            return None
        old = name
        while old not in _MOVED:
            if old.count(".") < 2:
                return None
            old = old.rsplit(".", 1)[0]
        return importlib.util.spec_from_loader(name, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        old = spec.name
        while old not in _MOVED:
            old = old.rsplit(".", 1)[0]
        new = _MOVED[old] + spec.name[len(old):]
        if old not in _CURRENT:
            warnings.warn(f"{spec.name} has moved to {new}; the old path goes in the next "
                          "release", DeprecationWarning, stacklevel=2)
        module = importlib.import_module(new)
        spec.loader_state = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # The import system gave the module the old path's spec: give its own back.
        spec = module.__spec__
        if spec is not None and spec.loader_state is not None:
            module.__spec__ = spec.loader_state


# First, so that a submodule of an old path is never found a second time
# (as a new module object) through the moved package's __path__.
sys.meta_path.insert(0, _MovedModules())
