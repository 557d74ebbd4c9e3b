"""Item size as DynamoDB counts it against its 400 KB limit.

An item is the sum of its attribute names (UTF-8 bytes) and values:

- S: UTF-8 bytes; B: raw (decoded) bytes; BOOL, NULL: 1 byte.
- N: 1 byte, plus one per pair of decimal digits, pairs aligned on the decimal
  point (DynamoDB stores numbers in base 100), plus 1 if negative; 1 for zero;
  21 at most. This fits every one of the 23 literals measured to the byte
  against DynamoDB's 400 KB gate (paritysuite/dynamodb-conformance, 2026):
  "1" 2, "123" 3, "1010" 3, "1.5" 3, "3.14159" 5, "100.5" 4, "0.15" 2,
  "-42" 3, "1E125" 2. The developer guide's "1 byte per two significant
  digits plus 1" is only an approximation of it.
- SS, NS, BS: the sum of their members.
- L, M: 3 bytes, plus per element 1 byte and its value (and for M, its name)
  (developer guide, "DynamoDB item sizes and formats").

The gate is ``size > 409600`` (captured: 409,600 accepted, 409,601 refused).
"""

from __future__ import annotations

from typing import Final

from tallydb.engine.errors import ValidationException
from tallydb.engine.values import messages
from tallydb.engine.values.number import split_number
from tallydb.engine.values.types import AttributeValue, Item

MAX_ITEM_SIZE: Final = 400 * 1024
_MAX_NUMBER_SIZE: Final = 21


def _text_size(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8"))


def _binary_size(text: str) -> int:
    """Decoded length of canonical base64 text, without decoding it."""
    n = len(text)
    if n == 0:
        return 0
    return n // 4 * 3 - (text[-1] == "=") - (text[-2] == "=")


def number_size(text: str) -> int:
    """Bytes a canonical Number costs (see the module docstring)."""
    if text.isdigit():  # the common case: a non-negative integer
        if text == "0":
            return 1
        lowest = len(text) - len(text.rstrip("0"))
        return min(1 + (len(text) - 1) // 2 - lowest // 2 + 1, _MAX_NUMBER_SIZE)
    negative, digits, adjusted = split_number(text)
    if not digits:
        return 1
    lowest = adjusted - len(digits) + 1  # power of ten of the last digit
    pairs = adjusted // 2 - lowest // 2 + 1
    return min(1 + pairs + negative, _MAX_NUMBER_SIZE)


def attribute_size(av: AttributeValue) -> int:
    """Bytes one validated AttributeValue costs, its name not included."""
    (kind,) = av
    payload = av[kind]
    if kind == "S":
        return _text_size(payload)
    if kind == "N":
        return number_size(payload)
    if kind == "B":
        return _binary_size(payload)
    if kind == "BOOL" or kind == "NULL":
        return 1
    if kind == "M":
        return 3 + sum(_text_size(k) + 1 + attribute_size(v) for k, v in payload.items())
    if kind == "L":
        return 3 + sum(1 + attribute_size(v) for v in payload)
    if kind == "SS":
        return sum(_text_size(m) for m in payload)
    if kind == "NS":
        return sum(number_size(m) for m in payload)
    if kind == "BS":
        return sum(_binary_size(m) for m in payload)
    raise ValueError(f"not an AttributeValue datatype: {kind!r}")


def item_size(item: Item) -> int:
    """Bytes a validated item costs: every name plus every value."""
    total = 0
    for name, av in item.items():
        total += len(name) if name.isascii() else len(name.encode("utf-8"))
        # The everyday types inline (Query and Scan size every item they
        # read); the rest as attribute_size counts them.
        for kind in av:
            payload = av[kind]
            if kind == "S":
                total += len(payload) if payload.isascii() else len(payload.encode("utf-8"))
            elif kind == "N":
                total += number_size(payload)
            elif kind == "SS":
                for member in payload:
                    total += len(member) if member.isascii() else len(member.encode("utf-8"))
            else:
                total += attribute_size(av)
    return total


def check_item_fits(item: Item, encoded: bytes, *, update: bool = False) -> None:
    """Raise as :func:`check_item_size` does for an item over 400 KB, given
    the item's JSON (``encoded``, as it is about to be stored): an item's
    JSON is never shorter than its DynamoDB size (names and strings are
    quoted, every value sits in a ``{"T": ...}`` wrapper, Binaries are
    base64), so an item whose JSON fits needs no counting."""
    if len(encoded) > MAX_ITEM_SIZE:
        check_item_size(item, update=update)


def check_item_size(item: Item, *, update: bool = False) -> int:
    """Return the item's size; raise DynamoDB's ValidationException when it is
    over 400 KB. ``update=True`` gives UpdateItem's wording ("Item size to
    update has exceeded the maximum allowed size").

    DynamoDB sizes an UpdateItem differently from a PutItem (captured: it
    charges what the update writes plus a fixed cost per clause), so passing
    the whole new item here is only an approximation for UpdateItem.
    """
    size = item_size(item)
    if size > MAX_ITEM_SIZE:
        raise ValidationException(
            messages.UPDATED_ITEM_TOO_LARGE if update else messages.ITEM_TOO_LARGE
        )
    return size
