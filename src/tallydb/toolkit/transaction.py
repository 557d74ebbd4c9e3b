"""Transactions: TransactWriteItems and TransactGetItems across tables.

::

    with db.transaction() as t:                  # one TransactWriteItems at the end
        t.put(orders, {"id": "o1", "sku": "A1"}, condition=Path("id").not_exists())
        t.update(items, {"sku": "A1"}, Update().add("stock", -1),
                 condition=Path("stock") >= 1)
        t.condition_check(users, {"id": "ada"}, Path("active") == True)
        t.delete(carts, {"id": "ada"})
    # all or nothing; a refusal raises tallydb.TransactionCancelled

    db.transact_get([(items, {"sku": "A1"}), (users, {"id": "ada"})])  # [item, None...]

The actions are sent when the ``with`` block ends without an exception (an
exception inside discards them), or on :meth:`commit`. The request carries a
``ClientRequestToken``, so DynamoDB applies it at most once even if it is
sent again (for 10 minutes): it may be retried. DynamoDB's limit is 100
actions, on distinct items.

When DynamoDB cancels the transaction, :class:`~tallydb.toolkit.exceptions.TransactionCancelled`
(a ``TransactionCanceledException``) says which action failed and why:
DynamoDB's ``CancellationReasons`` are listed in the order of the actions.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from tallydb.engine.errors import TransactionCanceledException
from tallydb.toolkit.conditions import Path
from tallydb.toolkit.convert import Item, item_from_wire, item_to_wire
from tallydb.toolkit.driver import Blocking, operation
from tallydb.toolkit.exceptions import TransactionCancelled
from tallydb.toolkit.requests import ConditionArg, Named, build_request, table_name
from tallydb.toolkit.transport import Call, Plan, Transport
from tallydb.toolkit.update import Update

__all__ = [
    "ACTION_LIMIT",
    "Transaction",
    "TransactionBase",
    "p_transact_get",
]

#: DynamoDB's limit on the actions of one transaction.
ACTION_LIMIT = 100


class TransactionBase:
    """The actions of one TransactWriteItems, and its commit as a plan."""

    def __init__(self, transport: Transport, token: str | None = None) -> None:
        self.transport = transport
        self.actions: list[dict[str, Any]] = []
        self.described: list[str] = []
        self.token = token or str(uuid.uuid4())
        self.committed = False

    def _action(
        self,
        kind: str,
        table: Named | str,
        target: dict[str, Any],
        parts: list[tuple[str, Update | ConditionArg]],
        names: Mapping[str, str] | None,
        values: Mapping[str, Any] | None,
        what: str,
    ) -> None:
        if self.committed:
            raise RuntimeError("this transaction was already committed")
        if len(self.actions) >= ACTION_LIMIT:
            raise ValueError(f"a transaction holds at most {ACTION_LIMIT} actions")
        name = table_name(table)
        action = {"TableName": name, **target}
        action.update(build_request(parts, names, values))
        self.actions.append({kind: action})
        self.described.append(f"{what} on {name!r}")

    def put(
        self,
        table: Named | str,
        item: Mapping[str, Any],
        *,
        condition: ConditionArg = None,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> None:
        """Put ``item`` (replacing any with its key), if ``condition`` holds."""
        self._action("Put", table, {"Item": item_to_wire(item)},
                     [("ConditionExpression", condition)], names, values, "put")

    def update(
        self,
        table: Named | str,
        key: Mapping[str, Any],
        update: Update | str,
        *,
        condition: ConditionArg = None,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> None:
        """Update the item with ``key``, if ``condition`` holds."""
        self._action(
            "Update", table, {"Key": item_to_wire(key)},
            [("UpdateExpression", update), ("ConditionExpression", condition)],
            names, values, f"update of {dict(key)!r}",
        )

    def delete(
        self,
        table: Named | str,
        key: Mapping[str, Any],
        *,
        condition: ConditionArg = None,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> None:
        """Delete the item with ``key``, if ``condition`` holds."""
        self._action("Delete", table, {"Key": item_to_wire(key)},
                     [("ConditionExpression", condition)], names, values,
                     f"delete of {dict(key)!r}")

    def condition_check(
        self,
        table: Named | str,
        key: Mapping[str, Any],
        condition: ConditionArg,
        *,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> None:
        """Require ``condition`` of the item with ``key`` (nothing is written to it)."""
        if condition is None:
            raise TypeError("condition_check needs a condition")
        self._action("ConditionCheck", table, {"Key": item_to_wire(key)},
                     [("ConditionExpression", condition)], names, values,
                     f"condition check of {dict(key)!r}")

    @operation
    def commit(self) -> Plan[None]:
        """Send the TransactWriteItems (once)."""
        return self._p_commit()

    def _p_commit(self) -> Plan[None]:
        if self.committed:
            raise RuntimeError("this transaction was already committed")
        self.committed = True
        if not self.actions:
            return
        request = {"TransactItems": self.actions, "ClientRequestToken": self.token}
        try:
            yield Call("TransactWriteItems", request)
        except TransactionCanceledException as e:
            raise TransactionCancelled.from_reasons(e, self.described) from None


def p_transact_get(
    gets: Sequence[tuple[Named | str, Mapping[str, Any]]],
    projection: Sequence[str | Path] | None = None,
) -> Plan[list[Item | None]]:
    """One TransactGetItems: each ``(table, key)``'s item, or None, in order."""
    if len(gets) > ACTION_LIMIT:
        raise ValueError(f"a transaction reads at most {ACTION_LIMIT} items")
    items: list[dict[str, Any]] = []
    for entry in gets:
        if not isinstance(entry, tuple) or len(entry) != 2:
            raise TypeError(f"transact_get takes (table, key) pairs, not {entry!r}")
        table, key = entry
        get = {"TableName": table_name(table), "Key": item_to_wire(key)}
        get.update(build_request((), projection=projection))
        items.append({"Get": get})
    if not items:
        return []
    response = yield Call("TransactGetItems", {"TransactItems": items})
    return [
        item_from_wire(r["Item"]) if r.get("Item") is not None else None
        for r in response.get("Responses", [])
    ]


class Transaction(TransactionBase, Blocking):
    """``with db.transaction() as t: ...``: committed when the block ends."""

    def __enter__(self) -> Transaction:
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        if kind is None and not self.committed:
            self.commit()
