"""DynamoDB Numbers, exactly.

A Number has at most 38 significant digits and a magnitude of 1E-130 up to
9.99...E+125 (or is zero). It travels and is stored as text; the canonical text
is what GetItem answers: plain digits, never an exponent, no leading or
trailing zeros, no "+" and no "-0" (``"0042.1200"`` -> ``"42.12"``,
``"1E125"`` -> ``"1"`` followed by 125 zeros, ``"1e-5"`` -> ``"0.00001"``).

Arithmetic works on (integer, exponent) pairs, so nothing is ever rounded: a
result DynamoDB cannot store is refused, never approximated.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Final

from tallydb.engine.errors import ValidationException
from tallydb.engine.values import messages
from tallydb.engine.values.types import Wording

MAX_DIGITS: Final = 38
MAX_ADJUSTED_EXPONENT: Final = 125  # 9.99...E+125
MIN_ADJUSTED_EXPONENT: Final = -130  # 1E-130

_INT32: Final = 1 << 31
_INT64: Final = 1 << 63

# ASCII digits only: DynamoDB refuses what Python's Decimal would also take
# ("NaN", "Infinity", " 1", "1_000", non-ASCII digits).
_NUMBER: Final = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?")


def normalize_number(text: object, *, wording: Wording = "current") -> str:
    """Check a Number as a client wrote it and return DynamoDB's canonical text.

    Raises ValidationException with DynamoDB's message for text that is not a
    number, has more than 38 significant digits, or is out of range. ``+1``,
    ``.5``, ``1.``, ``1e+5`` and ``0001.23`` are numbers; `` 1``, ``0x10``,
    ``NaN``, ``Infinity`` and ``1e`` are not (captured against DynamoDB).
    ``text`` is whatever a request's JSON held: anything but a string is
    not a number.
    """
    if not isinstance(text, str):
        raise ValidationException(messages.NOT_A_NUMBER)
    if is_canonical(text):
        return text
    return _normalize(text, wording)


def is_canonical(text: str) -> bool:
    """True when ``text`` is a Number already in canonical form (what
    :func:`normalize_number` would give back unchanged), judged without the
    regular expression for the common forms: integers of at most 38 digits
    and plain fractions. False may still be canonical (exponent range
    edge cases); :func:`normalize_number` decides those."""
    if text.isdigit():
        return text.isascii() and len(text) <= MAX_DIGITS and (
            text[0] != "0" or len(text) == 1)
    if text[:1] == "-" and text[1:].isdigit():
        return text.isascii() and len(text) <= MAX_DIGITS + 1 and text[1] != "0"
    return _is_canonical_fraction(text)


def _is_canonical_fraction(text: str) -> bool:
    """True for canonical text with a decimal point ("12.5", "-0.001"): the
    other common case, checked without the regular expression."""
    body = text[1:] if text[:1] == "-" else text
    int_part, dot, frac_part = body.partition(".")
    if (
        not (dot and int_part.isdigit() and frac_part.isdigit() and body.isascii())
        or frac_part[-1] == "0"
    ):
        return False
    if int_part == "0":
        significant = frac_part.lstrip("0")
        leading_zeros = len(frac_part) - len(significant)
        return len(significant) <= MAX_DIGITS and leading_zeros < -MIN_ADJUSTED_EXPONENT
    return int_part[0] != "0" and len(int_part) + len(frac_part) <= MAX_DIGITS


def _not_a_number(text: str, wording: Wording) -> ValidationException:
    if wording == "older" and text == "":
        return ValidationException(messages.NOT_A_NUMBER)
    return ValidationException(f"{messages.NOT_A_NUMBER}: {text}")


def _normalize(text: str, wording: Wording) -> str:
    m = _NUMBER.fullmatch(text)
    if m is None or not (m[2] or m[3]):
        raise _not_a_number(text, wording)
    sign, int_part, frac_part, exp_text = m[1], m[2], m[3] or "", m[4]
    if not exp_text:
        exponent = 0
    elif len(exp_text) <= 24:
        exponent = int(exp_text)
    else:  # may be too long for int(); past 20 digits it is out of every range
        magnitude = exp_text.lstrip("+-").lstrip("0") or "0"
        exponent = int(magnitude) if len(magnitude) <= 20 else 2 * _INT64
        if exp_text[0] == "-":
            exponent = -exponent
    if wording == "older":
        _older_range_check(text, int_part, frac_part, exponent)
    elif not -_INT64 <= exponent < _INT64:
        # DynamoDB reads the exponent as a 64-bit integer (captured).
        raise _not_a_number(text, wording)

    digits = (int_part + frac_part).lstrip("0")
    if not digits:
        # Zero is range-checked by the exponent it is written with: "0e126"
        # overflows, "0e125" is "0" (captured).
        _check_range(exponent - len(frac_part))
        return "0"
    significant = digits.rstrip("0")
    last = exponent - len(frac_part) + len(digits) - len(significant)
    _check_range(last + len(significant) - 1)
    if len(significant) > MAX_DIGITS:
        raise ValidationException(messages.TOO_MANY_DIGITS)
    result = _format(sign == "-", significant, last)
    return text if result == text else result  # keep the caller's object


def _older_range_check(text: str, int_part: str, frac_part: str, exponent: int) -> None:
    """The older layer reads a number as Java's BigDecimal does: the exponent
    must fit an int, and the magnitude test wraps at 32 bits, so 1e2147483647
    is an underflow there (captured)."""
    scale = len(frac_part) - exponent
    if not -_INT32 <= exponent < _INT32 or not -_INT32 <= scale < _INT32:
        raise _not_a_number(text, "older")
    precision = len((int_part + frac_part).lstrip("0")) or 1
    wrapped = (precision - scale + _INT32) % (1 << 32) - _INT32  # adjusted exponent + 1
    if wrapped > MAX_ADJUSTED_EXPONENT + 1:
        raise ValidationException(messages.OVERFLOW)
    if wrapped < MIN_ADJUSTED_EXPONENT + 1:
        raise ValidationException(messages.UNDERFLOW)


def _check_range(adjusted: int) -> None:
    if adjusted > MAX_ADJUSTED_EXPONENT:
        raise ValidationException(messages.OVERFLOW)
    if adjusted < MIN_ADJUSTED_EXPONENT:
        raise ValidationException(messages.UNDERFLOW)


def _format(negative: bool, significant: str, last: int) -> str:
    """Plain-digit text of ``significant * 10**last`` (no trailing zeros in
    ``significant``)."""
    n = len(significant)
    if last >= 0:
        body = significant + "0" * last
    elif -last < n:
        body = f"{significant[: n + last]}.{significant[n + last :]}"
    else:
        body = "0." + "0" * (-last - n) + significant
    return "-" + body if negative else body


def split_number(text: str) -> tuple[bool, str, int]:
    """``(negative, significant digits, adjusted exponent)`` of a canonical
    Number; zero is ``(False, "", 0)``. ``"-0.0120"`` is not canonical;
    ``"-0.012"`` gives ``(True, "12", -2)``."""
    negative = text[:1] == "-"
    body = text[1:] if negative else text
    int_part, dot, frac_part = body.partition(".")
    if int_part == "0":
        digits = frac_part.lstrip("0")
        if not digits:
            return False, "", 0
        return negative, digits, len(digits) - len(frac_part) - 1
    if dot:
        return negative, int_part + frac_part, len(int_part) - 1
    return negative, int_part.rstrip("0"), len(int_part) - 1


def to_decimal(text: str) -> Decimal:
    """The exact value of a canonical Number (Decimal construction never rounds)."""
    return Decimal(text)


def _scaled(text: str) -> tuple[int, int]:
    """``(m, e)`` with value ``m * 10**e``."""
    if "e" in text or "E" in text or "+" in text:
        text = normalize_number(text)
    int_part, dot, frac_part = text.partition(".")
    if not dot:
        return int(int_part), 0
    return int(int_part + frac_part), -len(frac_part)


def _from_scaled(mantissa: int, exponent: int) -> str:
    """Canonical text of ``mantissa * 10**exponent``, refused as DynamoDB
    refuses an arithmetic result it cannot store."""
    if mantissa == 0:
        return "0"
    digits = str(abs(mantissa))
    significant = digits.rstrip("0")
    last = exponent + len(digits) - len(significant)
    _check_range(last + len(significant) - 1)
    if len(significant) > MAX_DIGITS:
        # DynamoDB answers an inexact sum (1e50 + 1) with the overflow message,
        # not the 38-digit one (ScyllaDB's Alternator tests, run against DynamoDB).
        raise ValidationException(messages.OVERFLOW)
    return _format(mantissa < 0, significant, last)


def _is_int(text: str) -> bool:
    return (text.isdigit() or (text[:1] == "-" and text[1:].isdigit())) and text.isascii()


def add_numbers(a: str, b: str) -> str:
    """``a + b`` exactly, canonical; ValidationException when DynamoDB could not
    store the result (UpdateExpression ``+`` and the ADD action)."""
    if a.isdigit() and b.isdigit() and a.isascii() and b.isascii():  # counters
        text = str(int(a) + int(b))
        if len(text) <= MAX_DIGITS:
            return text
    if _is_int(a) and _is_int(b):
        total = int(a) + int(b)
        text = str(total)
        if len(text) <= MAX_DIGITS:  # sign included: still at most 38 digits
            return text
        return _from_scaled(total, 0)
    am, ae = _scaled(a)
    bm, be = _scaled(b)
    exponent = min(ae, be)
    return _from_scaled(am * 10 ** (ae - exponent) + bm * 10 ** (be - exponent), exponent)


def subtract_numbers(a: str, b: str) -> str:
    """``a - b`` exactly, canonical, with the same refusals as :func:`add_numbers`."""
    if _is_int(a) and _is_int(b):
        total = int(a) - int(b)
        text = str(total)
        if len(text) <= MAX_DIGITS:
            return text
        return _from_scaled(total, 0)
    am, ae = _scaled(a)
    bm, be = _scaled(b)
    exponent = min(ae, be)
    return _from_scaled(am * 10 ** (ae - exponent) - bm * 10 ** (be - exponent), exponent)


def compare_numbers(a: str, b: str) -> int:
    """-1, 0 or 1 as canonical Numbers ``a`` and ``b`` compare by value."""
    if a == b:
        return 0
    if _is_int(a) and _is_int(b):
        i, j = int(a), int(b)
        return (i > j) - (i < j)
    x, y = Decimal(a), Decimal(b)
    return (x > y) - (x < y)
