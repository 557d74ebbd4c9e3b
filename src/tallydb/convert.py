"""Plain Python values to DynamoDB's wire form and back.

The toolkit takes and returns ordinary Python values; on the wire every value
is an AttributeValue (``{"S": "x"}``, ``{"N": "42"}``, ...). This module is
the one place that converts between the two, built on boto3's
``TypeSerializer``/``TypeDeserializer`` with three decisions of our own:

* **Numbers come back as ``int`` when they are whole, ``Decimal`` otherwise.**
  DynamoDB Numbers are exact decimals; a counter is whole, and
  ``plays.add()`` returning ``1`` reads better than ``Decimal('1')``. A
  fractional Number comes back as a ``Decimal`` so nothing is rounded.
  (boto3 alone gives ``Decimal`` for every Number.)
* **Floats are accepted and sent as their shortest repr** (``0.1`` is sent as
  ``"0.1"``, not as the binary fraction ``0.1000000000000000055...``), which is
  what the writer of ``0.1`` meant. NaN and infinities have no DynamoDB form
  and are refused. They come back as ``int``/``Decimal``, never ``float``.
* **Binary comes back as ``bytes``** (boto3 alone wraps it in ``Binary``).

Python types and the wire types they become:

=================================  =====================================
``str``                            ``S``
``int``, ``Decimal``, ``float``    ``N``
``bytes``, ``bytearray``           ``B``
``bool``                           ``BOOL``
``None``                           ``NULL``
``list``, ``tuple``                ``L``
``dict`` (string keys)             ``M``
``set``/``frozenset`` of str       ``SS`` (never empty: DynamoDB has no
of numbers, of bytes               ``NS``  empty sets)
                                   ``BS``
=================================  =====================================
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from boto3.dynamodb.types import (  # type: ignore[import-untyped, unused-ignore]
    Binary,
    TypeDeserializer,
    TypeSerializer,
)

__all__ = [
    "Item",
    "Number",
    "Wire",
    "from_wire",
    "item_from_wire",
    "item_to_wire",
    "number",
    "to_wire",
]

#: One AttributeValue in wire form: ``{"N": "42"}``.
Wire = dict[str, Any]
#: An item as plain Python values.
Item = dict[str, Any]
#: What a DynamoDB Number comes back as.
Number = int | Decimal

_serializer = TypeSerializer()
_deserializer = TypeDeserializer()


def number(value: Decimal) -> Number:
    """``int`` for a whole Decimal (``Decimal('15')`` → ``15``), else the Decimal."""
    if value == value.to_integral_value():
        return int(value)
    return value


def _float(value: float) -> Decimal:
    if not math.isfinite(value):
        raise TypeError(f"DynamoDB Numbers cannot be {value!r}")
    return Decimal(repr(value))


def _prepare(value: Any) -> Any:
    """Turn the types boto3 refuses (float, tuple, bytearray) into ones it takes."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, tuple | list):
        return [_prepare(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _prepare(v) for k, v in value.items()}
    if isinstance(value, set | frozenset):
        if not value:
            raise TypeError(
                "DynamoDB has no empty sets: remove the attribute instead of storing set()"
            )
        return {_float(v) if isinstance(v, float) else v for v in value}
    if isinstance(value, bytearray):
        return bytes(value)
    return value


def to_wire(value: Any) -> Wire:
    """One Python value as an AttributeValue: ``to_wire(5) == {"N": "5"}``."""
    try:
        wire: Wire = _serializer.serialize(_prepare(value))
    except TypeError as e:
        raise TypeError(f"cannot store {value!r} in DynamoDB: {e}") from None
    return wire


def _plain(value: Any) -> Any:
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, Decimal):
        return number(value)
    if isinstance(value, Binary):
        return bytes(value.value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, set):
        return {_plain(v) for v in value}
    return value


def from_wire(wire: Wire) -> Any:
    """One AttributeValue as a Python value: ``from_wire({"N": "5"}) == 5``."""
    return _plain(_deserializer.deserialize(wire))


def item_to_wire(item: Mapping[str, Any]) -> dict[str, Wire]:
    """A whole item (or key) as wire attributes."""
    return {name: to_wire(value) for name, value in item.items()}


def item_from_wire(wire: Mapping[str, Wire]) -> Item:
    """A whole wire item (or key) as plain Python values."""
    return {name: from_wire(value) for name, value in wire.items()}
