"""The wire-form type aliases every layer codes against."""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

#: One AttributeValue in its wire form: ``{"S": "x"}``, ``{"N": "12.5"}``,
#: ``{"B": "<base64>"}``, ``{"SS": [...]}``, ``{"M": {...}}``, ``{"BOOL": True}``...
AttributeValue: TypeAlias = dict[str, Any]

#: An item: attribute name to AttributeValue.
Item: TypeAlias = dict[str, AttributeValue]

#: Which of DynamoDB's two validation layers an operation runs (see
#: ``tallydb.engine.values.messages``). ``"current"``: PutItem, UpdateItem, DeleteItem,
#: GetItem, BatchGetItem, Query. ``"older"``: BatchWriteItem, TransactWriteItems,
#: TransactGetItems, Scan.
Wording: TypeAlias = Literal["current", "older"]

#: The scalar types a key attribute may have.
KeyType: TypeAlias = Literal["S", "N", "B"]
