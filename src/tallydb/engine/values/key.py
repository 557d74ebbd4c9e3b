"""An order-preserving, prefix-free byte encoding of key values.

``encode_key_value(a) < encode_key_value(b)`` (memcmp, as SQLite compares
BLOBs) exactly when DynamoDB sorts ``a`` before ``b``: Numbers by value,
Strings by their UTF-8 bytes, Binaries by their bytes. No encoding is a prefix
of another, so a hash key's encoding followed by a range key's sorts as the
pair does, and a range read is a BLOB range.

Layout:

- S, B: the bytes with every 0x00 written as 0x00 0xFF, then 0x00 0x00.
- N: a sign byte (0x01 negative, 0x02 zero, 0x03 positive). Then, for
  non-zero numbers, the adjusted exponent plus 130 as one byte (-130..125 fills
  0..255 exactly), and the significant digits two at a time, pair ``p``
  (00..99, the last padded with 0) written ``p + 1``, ended by 0x00. Negative
  numbers write both the exponent byte and the pairs inverted (``255 - e``,
  ``101 - p``) and end with 0xFF, so larger magnitudes sort first.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Final

from tallydb.engine.values.number import MIN_ADJUSTED_EXPONENT, _format, split_number
from tallydb.engine.values.types import AttributeValue

_NEGATIVE: Final = 1
_ZERO: Final = 2
_POSITIVE: Final = 3
_ZERO_ENCODING: Final = bytes([_ZERO])


def _pair_tables(byte_for_pair: Callable[[int], int]) -> tuple[bytes, bytes]:
    """bytes.translate tables from a BCD byte (0x00..0x99) to the pair's byte,
    and back."""
    forward, back = bytearray(256), bytearray(256)
    for p in range(100):
        bcd = (p // 10) << 4 | p % 10
        forward[bcd] = byte_for_pair(p)
        back[byte_for_pair(p)] = bcd
    return bytes(forward), bytes(back)


# Digit pairs go through BCD (bytes.fromhex reads "12" as 0x12) and one
# translate, all in C: pair p becomes p + 1, or 101 - p for negatives.
_POS_TABLES: Final = _pair_tables(lambda p: p + 1)
_NEG_TABLES: Final = _pair_tables(lambda p: 101 - p)
_POS_PAIRS: Final = _POS_TABLES[0]
_POS_PAIRS_BACK: Final = _POS_TABLES[1]
_NEG_PAIRS: Final = _NEG_TABLES[0]
_NEG_PAIRS_BACK: Final = _NEG_TABLES[1]


def _escape(raw: bytes) -> bytes:
    return raw.replace(b"\x00", b"\x00\xff") + b"\x00\x00"


def _encode_number(text: str) -> bytes:
    negative, digits, adjusted = split_number(text)
    if not digits:
        return _ZERO_ENCODING
    if len(digits) % 2:
        digits += "0"
    exponent = adjusted - MIN_ADJUSTED_EXPONENT
    if negative:
        pairs = bytes.fromhex(digits).translate(_NEG_PAIRS)
        return bytes((_NEGATIVE, 255 - exponent)) + pairs + b"\xff"
    return bytes((_POSITIVE, exponent)) + bytes.fromhex(digits).translate(_POS_PAIRS) + b"\x00"


def encode_key_value(av: AttributeValue) -> bytes:
    """The sortable bytes of one validated S, N or B key value."""
    ((kind, payload),) = av.items()
    if kind == "S":
        raw = payload.encode("utf-8")
        if b"\x00" in raw:
            raw = raw.replace(b"\x00", b"\x00\xff")
        return raw + b"\x00\x00"  # type: ignore[no-any-return]
    if kind == "N":
        return _encode_number(payload)
    if kind == "B":
        return _escape(base64.b64decode(payload))
    raise ValueError(f"not a key datatype: {kind!r}")


def encode_key_prefix(av: AttributeValue) -> bytes:
    """Bytes that every encoded S or B value starting with ``av`` starts with
    (for ``begins_with`` on a sort key): the escaped bytes, unterminated."""
    ((kind, payload),) = av.items()
    if kind == "S":
        return payload.encode("utf-8").replace(b"\x00", b"\x00\xff")  # type: ignore[no-any-return]
    if kind == "B":
        return base64.b64decode(payload).replace(b"\x00", b"\x00\xff")
    raise ValueError(f"begins_with takes S or B, not {kind!r}")


def _decode_escaped(data: bytes, offset: int) -> tuple[bytes, int]:
    out = bytearray()
    pos = offset
    while True:
        zero = data.index(b"\x00", pos)
        out += data[pos:zero]
        marker = data[zero + 1]
        if marker == 0x00:
            return bytes(out), zero + 2
        if marker != 0xFF:
            raise ValueError("malformed key encoding")
        out.append(0)
        pos = zero + 2


def _decode_number(data: bytes, offset: int) -> tuple[str, int]:
    sign = data[offset]
    if sign == _ZERO:
        return "0", offset + 1
    negative = sign == _NEGATIVE
    exponent = data[offset + 1]
    if negative:
        exponent = 255 - exponent
        end = data.index(b"\xff", offset + 2)
        digits = data[offset + 2 : end].translate(_NEG_PAIRS_BACK).hex()
    else:
        end = data.index(b"\x00", offset + 2)
        digits = data[offset + 2 : end].translate(_POS_PAIRS_BACK).hex()
    digits = digits.rstrip("0")
    adjusted = exponent + MIN_ADJUSTED_EXPONENT
    return _format(negative, digits, adjusted - len(digits) + 1), end + 1


def decode_key_value_at(data: bytes, offset: int, kind: str) -> tuple[AttributeValue, int]:
    """Decode the ``kind`` key value encoded at ``data[offset:]``; return it and
    the offset just past it (for a hash key followed by a range key)."""
    if kind == "N":
        text, end = _decode_number(data, offset)
        return {"N": text}, end
    raw, end = _decode_escaped(data, offset)
    if kind == "S":
        return {"S": raw.decode("utf-8")}, end
    if kind == "B":
        return {"B": base64.b64encode(raw).decode("ascii")}, end
    raise ValueError(f"not a key datatype: {kind!r}")


def decode_key_value(data: bytes, type: str) -> AttributeValue:
    """Inverse of :func:`encode_key_value` for a value of ``type`` S, N or B."""
    av, end = decode_key_value_at(data, 0, type)
    if end != len(data):
        raise ValueError("trailing bytes after key value")
    return av
