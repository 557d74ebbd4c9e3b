"""DynamoDB itself, with no HTTP and no boto3: the operations (``api``), the
expression language (``expressions``), PartiQL (``partiql``), AttributeValues
and Numbers (``values``), the storage engine (``storage``), the change feed,
the TTL sweeper and DynamoDB's error classes.

``Engine(Store(path))`` is a whole DynamoDB in one object: ``engine.call(
"UpdateItem", request)`` takes and returns DynamoDB's JSON shapes as dicts.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tallydb.engine.api import Engine
    from tallydb.engine.storage import Store

__all__ = ["Engine", "Store"]

_EXPORTS = {"Engine": "tallydb.engine.api", "Store": "tallydb.engine.storage"}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'tallydb.engine' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
