"""Plain Python values to DynamoDB's wire form and back.

The toolkit takes and returns ordinary Python values; on the wire every value
is an AttributeValue (``{"S": "x"}``, ``{"N": "42"}``, ...). This module is
the one place that converts between the two. It follows boto3's
``TypeSerializer``/``TypeDeserializer`` mapping, with four decisions of our own:

* **Numbers come back as ``int`` when they are whole, ``Decimal`` otherwise.**
  DynamoDB Numbers are exact decimals; a counter is whole, and
  ``plays.add()`` returning ``1`` reads better than ``Decimal('1')``. A
  fractional Number comes back as a ``Decimal`` so nothing is rounded.
  (boto3 gives ``Decimal`` for every Number.)
* **Numbers are exact both ways, at any size DynamoDB stores.** DynamoDB
  answers ``1E+100`` as ``"1"`` and a hundred zeros; boto3's deserializer
  (a 38-digit context that traps rounding) raises on that, this one reads
  it exactly. Limits (38 significant digits, the magnitude range) are the
  store's to check, with DynamoDB's messages.
* **Floats are accepted and sent as their shortest repr** (``0.1`` is sent as
  ``"0.1"``, not as the binary fraction ``0.1000000000000000055...``), which is
  what the writer of ``0.1`` meant. NaN and infinities have no DynamoDB form
  and are refused. They come back as ``int``/``Decimal``, never ``float``.
* **Binary comes back as ``bytes``** (boto3 wraps it in ``Binary``).

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

import binascii
import math
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

import orjson

__all__ = [
    "Item",
    "Number",
    "Wire",
    "from_wire",
    "item_from_wire",
    "item_to_wire",
    "json_shape",
    "number",
    "number_from_text",
    "python_shape",
    "to_wire",
]

#: One AttributeValue in wire form: ``{"N": "42"}``.
Wire = dict[str, Any]
#: An item as plain Python values.
Item = dict[str, Any]
#: What a DynamoDB Number comes back as.
Number = int | Decimal


def number(value: Decimal) -> Number:
    """``int`` for a whole Decimal (``Decimal('15')`` → ``15``), else the Decimal."""
    if value == value.to_integral_value():
        return int(value)
    return value


def number_from_text(text: str) -> Number:
    """A Number's wire text as ``int`` or ``Decimal``; plain digits (every
    counter) without going through Decimal."""
    if text.isdigit() and text.isascii():  # the everyday counter
        return int(text)
    digits = text[1:] if text[:1] == "-" else text
    if digits.isascii() and digits.isdigit():
        return int(text)
    return number(Decimal(text))


def _number_text(value: int | float | Decimal) -> str:
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise TypeError(f"DynamoDB Numbers cannot be {value!r}")
        return repr(value)
    if not value.is_finite():
        raise TypeError(f"DynamoDB Numbers cannot be {value!r}")
    return str(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float | Decimal) and not isinstance(value, bool)


def to_wire(value: Any) -> Wire:
    """One Python value as an AttributeValue: ``to_wire(5) == {"N": "5"}``."""
    if value is None:
        return {"NULL": True}
    if isinstance(value, bool):
        return {"BOOL": value}
    if isinstance(value, str):
        return {"S": value}
    if _is_number(value):
        return {"N": _number_text(value)}
    if isinstance(value, bytes | bytearray):
        return {"B": bytes(value)}
    if isinstance(value, Mapping):
        for key in value:
            if not isinstance(key, str):
                raise TypeError(f"cannot store {value!r}: map keys are strings")
        return {"M": {k: to_wire(v) for k, v in value.items()}}
    if isinstance(value, list | tuple):
        return {"L": [to_wire(v) for v in value]}
    if isinstance(value, set | frozenset):
        if not value:
            raise TypeError(
                "DynamoDB has no empty sets: remove the attribute instead of storing set()"
            )
        if all(isinstance(v, str) for v in value):
            return {"SS": list(value)}
        if all(_is_number(v) for v in value):
            return {"NS": [_number_text(v) for v in value]}
        if all(isinstance(v, bytes | bytearray) for v in value):
            return {"BS": [bytes(v) for v in value]}
        raise TypeError(f"cannot store {value!r}: a set holds only strings, numbers or bytes")
    raise TypeError(f"cannot store {value!r} ({type(value).__name__}) in DynamoDB")


def from_wire(wire: Wire) -> Any:
    """One AttributeValue as a Python value: ``from_wire({"N": "5"}) == 5``."""
    ((kind, value),) = wire.items()
    if kind == "S":
        return value
    if kind == "N":
        return number_from_text(value)
    if kind == "B":
        return bytes(value)
    if kind == "BOOL":
        return bool(value)
    if kind == "NULL":
        return None
    if kind == "M":
        return {k: from_wire(v) for k, v in value.items()}
    if kind == "L":
        return [from_wire(v) for v in value]
    if kind == "SS":
        return set(value)
    if kind == "NS":
        return {number_from_text(v) for v in value}
    if kind == "BS":
        return {bytes(v) for v in value}
    raise TypeError(f"unknown DynamoDB type {kind!r}")


def item_to_wire(item: Mapping[str, Any]) -> dict[str, Wire]:
    """A whole item (or key) as wire attributes."""
    return {name: to_wire(value) for name, value in item.items()}


def item_from_wire(wire: Mapping[str, Wire]) -> Item:
    """A whole wire item (or key) as plain Python values."""
    return {name: from_wire(value) for name, value in wire.items()}


# -- boto3's shapes and DynamoDB's JSON ------------------------------------------
#
# boto3 takes and gives Binary values as ``bytes``; on the wire (and in the
# engine, whose requests and responses are that JSON) they are base64 text.
# Everything else is the same in both. The in-process transport uses these two
# to hand the engine a request as botocore would have serialized it and to
# give back a response as botocore would have parsed it, without JSON: each
# makes a fresh copy, so neither side ever holds the other's dicts.

_CONTAINERS = (dict, list)
_CAPITAL_B = ord("B")


def _may_hold_blobs(text: bytes) -> bool:
    """Whether a serialized request or response may hold a Binary value (or
    an attribute named B or BS): only then is a copy made value by value.

    The item operations' member names (but the rare ``SizeEstimateRangeGB``)
    have no capital B, so most texts hold none at all; looking for that one
    byte first (an ``int``, which ``bytes`` finds with memchr) costs about a
    twentieth of looking for the two keys.
    """
    return _CAPITAL_B in text and (b'"B":' in text or b'"BS":' in text)


def _b64(value: Any) -> Any:
    if isinstance(value, str):
        value = value.encode()  # botocore sends a str Blob as its UTF-8 bytes
    if isinstance(value, bytes | bytearray | memoryview):
        return binascii.b2a_base64(value, newline=False).decode("ascii")
    return value  # not a Blob: left for the engine to refuse


def json_shape(value: Any) -> Any:
    """A request in boto3's shape as DynamoDB's JSON carries it: a deep copy,
    Binary (``B``, ``BS``) values as base64 text, tuples as lists."""
    try:
        text = orjson.dumps(value)
    except TypeError:  # bytes, or anything else JSON has no form for
        return _json_shape(value)
    if _may_hold_blobs(text):  # a str Blob is sent encoded
        return _json_shape(value)
    return orjson.loads(text)


def _json_shape(value: Any) -> Any:
    if isinstance(value, dict):
        if len(value) == 1:
            if "B" in value and not isinstance(value["B"], Mapping):
                return {"B": _b64(value["B"])}
            if "BS" in value and isinstance(value["BS"], list | tuple):
                return {"BS": [_b64(v) for v in value["BS"]]}
        return {k: v if v.__class__ is str else _json_shape(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [v if v.__class__ is str else _json_shape(v) for v in value]
    if isinstance(value, bytes | bytearray | memoryview):
        return _b64(value)
    return value


def python_shape(value: Any) -> Any:
    """A response in DynamoDB's JSON as boto3 gives it: a deep copy, Binary
    (``B``, ``BS``) values as ``bytes``."""
    try:
        text = orjson.dumps(value)
    except TypeError:
        return _python_shape(value)
    if _may_hold_blobs(text):
        return _python_shape(value)
    return orjson.loads(text)


def _python_shape(value: Any) -> Any:
    if value.__class__ is dict:
        if len(value) == 1:
            blob = value.get("B")
            if blob.__class__ is str:
                return {"B": binascii.a2b_base64(blob)}
            blobs = value.get("BS")
            if blobs.__class__ is list:
                return {"BS": [binascii.a2b_base64(b) for b in blobs]}
        return {k: _python_shape(v) if v.__class__ in _CONTAINERS else v for k, v in value.items()}
    if value.__class__ is list:
        return [_python_shape(v) if v.__class__ in _CONTAINERS else v for v in value]
    return value
