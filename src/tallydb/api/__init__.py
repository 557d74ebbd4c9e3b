"""DynamoDB's operations: one module each, over plain request/response dicts.

An operation module ``api/update_item.py`` defines ``update_item(txn, request)``;
the registry below is built from the module names, so adding an operation adds
a module and edits no switch. Modules whose names start with ``_`` are shared
helpers, not operations.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from tallydb.api._shapes import check_request
from tallydb.errors import UnknownOperationException
from tallydb.storage import Store, Transaction

Request = dict[str, Any]
Response = dict[str, Any]
Operation = Callable[[Transaction, Request], Response]


def _operation_name(module_name: str) -> str:
    return "".join(part.capitalize() for part in module_name.split("_"))


def _discover() -> dict[str, Operation]:
    operations: dict[str, Operation] = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        operations[_operation_name(info.name)] = getattr(module, info.name)
    return operations


OPERATIONS: dict[str, Operation] = _discover()


class Engine:
    """All of tallydb's DynamoDB behaviour over one store.

    ``call`` runs one request in its own transaction; ``batch`` lets a server
    run many requests in one transaction so that they commit together (group
    commit): no caller may see a batch's results before the batch commits.
    """

    def __init__(self, store: Store) -> None:
        self.store = store

    def call(self, operation: str, request: Request) -> Response:
        with self.store.transaction() as txn:
            return run(txn, operation, request)

    @contextmanager
    def batch(self) -> Iterator[Callable[[str, Request], Response]]:
        with self.store.transaction() as txn:
            yield lambda operation, request: run(txn, operation, request)

    def close(self) -> None:
        self.store.close()


def run(txn: Transaction, operation: str, request: Request) -> Response:
    """Run one DynamoDB operation inside an open transaction."""
    handler = OPERATIONS.get(operation)
    if handler is None:
        raise UnknownOperationException()
    check_request(operation, request)
    return handler(txn, request)
