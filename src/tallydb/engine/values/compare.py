"""What ``=``, ``<>``, ``<``, ``<=``, ``>``, ``>=`` and BETWEEN mean for values.

Equality holds between values of one type only: Numbers by value, sets
whatever their order, maps and lists member by member. Ordering exists only
between two Numbers, two Strings (UTF-8 byte order) or two Binaries (byte
order); any other pair is not ordered, and a condition over it is false.
"""

from __future__ import annotations

import binascii
from decimal import Decimal
from typing import Any

from tallydb.engine.values.number import compare_numbers
from tallydb.engine.values.types import AttributeValue


def _payload(av: AttributeValue) -> tuple[str, Any]:
    (kind,) = av
    return kind, av[kind]


def values_equal(a: AttributeValue, b: AttributeValue) -> bool:
    """True when ``a`` and ``b`` have the same type and are equal."""
    ka, pa = _payload(a)
    kb, pb = _payload(b)
    if ka != kb:
        return False
    if pa == pb:  # identical wire forms are equal values
        return True
    if ka == "N":
        return compare_numbers(pa, pb) == 0
    if ka == "B":
        return bool(binascii.a2b_base64(pa) == binascii.a2b_base64(pb))
    if ka == "SS":
        return set(pa) == set(pb)
    if ka == "NS":
        return {Decimal(x) for x in pa} == {Decimal(x) for x in pb}
    if ka == "BS":
        return {binascii.a2b_base64(x) for x in pa} == {binascii.a2b_base64(x) for x in pb}
    if ka == "M" or ka == "L":
        return _deep_equal(ka, pa, pb)
    return False  # S, BOOL, NULL: equal only when identical


def _deep_equal(kind: str, pa: Any, pb: Any) -> bool:
    if kind == "L":
        return len(pa) == len(pb) and all(values_equal(x, y) for x, y in zip(pa, pb, strict=True))
    return pa.keys() == pb.keys() and all(values_equal(v, pb[k]) for k, v in pa.items())


def compare_values(a: AttributeValue, b: AttributeValue) -> int | None:
    """-1, 0 or 1 as ``a`` sorts before, with or after ``b``; None when the two
    are not of one ordered type (N, S or B)."""
    ka, pa = _payload(a)
    kb, pb = _payload(b)
    if ka != kb:
        return None
    if ka == "N":
        return compare_numbers(pa, pb)
    if ka == "S":
        # Code point order is UTF-8 byte order.
        return (pa > pb) - (pa < pb)  # type: ignore[no-any-return]
    if ka == "B":
        x, y = binascii.a2b_base64(pa), binascii.a2b_base64(pb)
        return (x > y) - (x < y)
    return None
