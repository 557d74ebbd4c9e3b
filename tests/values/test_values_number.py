"""DynamoDB Numbers: parsing, canonical text, limits and exact arithmetic.

Sources: "captured" = paritysuite/dynamodb-conformance, assertions run against
real DynamoDB (2026); "dynalite" = architect/dynalite's tests, written against
real DynamoDB; "alternator" = ScyllaDB's Alternator tests, run against
DynamoDB.
"""

from __future__ import annotations

from decimal import Context, Decimal, Inexact

import pytest
from hypothesis import given
from hypothesis import strategies as st
from values_strategies import canonical, number_spellings, number_values

from tallydb.engine.errors import ValidationException
from tallydb.engine.values import (
    add_numbers,
    compare_numbers,
    normalize_number,
    split_number,
    subtract_numbers,
    to_decimal,
)
from tallydb.engine.values import messages as m

NOT_A_NUMBER = m.NOT_A_NUMBER


def refusal(text: str, **kwargs: object) -> str:
    with pytest.raises(ValidationException) as caught:
        normalize_number(text, **kwargs)  # type: ignore[arg-type]
    assert caught.value.message is not None
    return caught.value.message


# --- canonical text ---------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "stored"),
    [
        # GetItem answers plain digits: leading and trailing zeros trimmed,
        # exponents expanded, no "+", no "-0" (captured; dynalite).
        ("01", "1"),
        ("1.50", "1.5"),
        ("-0", "0"),
        ("1e2", "100"),
        ("1E-5", "0.00001"),
        ("0042.1200", "42.12"),  # captured
        ("1E125", "1" + "0" * 125),  # captured: stored as 126 digits
        ("0e125", "0"),  # captured: zero inside the range
        ("-0015.789e6", "-15789000"),  # dynalite
        ("0000012345678901234567890123456789012345678", "12345678901234567890123456789012345678"),
        (
            "-00001.23456789012345678901234567890123456780000",
            "-1.2345678901234567890123456789012345678",
        ),
        ("0009.99999999999999999999999999999999999990000e125", "9" * 38 + "0" * 88),
        ("-0009.99999999999999999999999999999999999990000e125", "-" + "9" * 38 + "0" * 88),
        ("0001.000e-130", "0." + "0" * 129 + "1"),
        ("-0001.000e-130", "-0." + "0" * 129 + "1"),
        # Accepted spellings (alternator, run against DynamoDB).
        ("3", "3"),
        ("-7.1234", "-7.1234"),
        ("-17e5", "-1700000"),
        ("-17.4E37", "-174" + "0" * 36),
        ("+3", "3"),
        (".123", "0.123"),
        ("0001.23", "1.23"),
        ("1e+5", "100000"),
        ("1.", "1"),
        ("-.5", "-0.5"),
        ("0.0000001", "0.0000001"),
    ],
)
def test_canonical_text(written: str, stored: str) -> None:
    assert normalize_number(written) == stored


@pytest.mark.parametrize("text", ["0", "7", "-7", "1" * 38, "-" + "9" * 38, "100", "-100"])
def test_canonical_integers_take_the_fast_path_unchanged(text: str) -> None:
    assert normalize_number(text) is text


# --- refusals -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # The current layer's answers, PutItem/GetItem/... (captured).
        ("1e99999999999", m.OVERFLOW),
        ("-1e99999999999", m.OVERFLOW),
        ("1e-99999999999", m.UNDERFLOW),
        ("1e2147483648", m.OVERFLOW),
        ("1e2147483647", m.OVERFLOW),
        ("1e-2147483648", m.UNDERFLOW),
        ("1e126", m.OVERFLOW),
        ("-1e126", m.OVERFLOW),  # dynalite
        ("11e125", m.OVERFLOW),  # alternator
        ("1e-131", m.UNDERFLOW),
        ("-1e-131", m.UNDERFLOW),  # dynalite
        ("0.9e-130", m.UNDERFLOW),  # alternator
        ("0e126", m.OVERFLOW),  # captured: zero is range-checked by its exponent
        ("0e-131", m.UNDERFLOW),  # captured
        ("abc", f"{NOT_A_NUMBER}: abc"),
        ("1.2.3", f"{NOT_A_NUMBER}: 1.2.3"),
        ("", f"{NOT_A_NUMBER}: "),  # the colon and space stay (captured)
        (" 1", f"{NOT_A_NUMBER}:  1"),
        ("1 ", f"{NOT_A_NUMBER}: 1 "),
        ("0x10", f"{NOT_A_NUMBER}: 0x10"),
        ("1e", f"{NOT_A_NUMBER}: 1e"),
        ("NaN", f"{NOT_A_NUMBER}: NaN"),
        ("Infinity", f"{NOT_A_NUMBER}: Infinity"),
        ("-Infinity", f"{NOT_A_NUMBER}: -Infinity"),  # alternator
        ("-NaN", f"{NOT_A_NUMBER}: -NaN"),  # alternator
        ("1e9223372036854775808", f"{NOT_A_NUMBER}: 1e9223372036854775808"),  # past int64
        ("1234567890123456789012345678901234567890", m.TOO_MANY_DIGITS),
        ("123456789012345678901234567890123456789", m.TOO_MANY_DIGITS),  # dynalite
        ("-1.23456789012345678901234567890123456789", m.TOO_MANY_DIGITS),  # dynalite
        ("3.14159265358979323846264338327950288419", m.TOO_MANY_DIGITS),  # alternator
        ("314159265358979323846264338327950288419e30", m.TOO_MANY_DIGITS),  # alternator
    ],
)
def test_refusals_in_the_current_layer(text: str, message: str) -> None:
    assert refusal(text) == message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # BatchWriteItem/Transact*/Scan read numbers as Java's BigDecimal:
        # "" has no colon, 1e2147483647 wraps to an underflow (captured).
        ("abc", f"{NOT_A_NUMBER}: abc"),
        ("", NOT_A_NUMBER),
        ("1e126", m.OVERFLOW),
        ("1e2147483647", m.UNDERFLOW),
    ],
)
def test_refusals_in_the_older_layer(text: str, message: str) -> None:
    assert refusal(text, wording="older") == message


@pytest.mark.parametrize("text", ["1_000", "١٢", "1e1_0", "+-1", "--1", ".", "-", "e5", "1e5.0"])
def test_what_python_would_parse_but_dynamodb_refuses(text: str) -> None:
    # DynamoDB takes ASCII decimal literals only (alternator, captured).
    assert refusal(text) == f"{NOT_A_NUMBER}: {text}"


def test_a_huge_exponent_literal_is_refused_not_crashed_on() -> None:
    assert refusal("1e" + "9" * 5000).startswith(NOT_A_NUMBER)
    assert normalize_number("1e" + "0" * 5000 + "5") == "100000"


def test_a_non_string_is_not_a_number() -> None:
    assert refusal(12) == NOT_A_NUMBER  # type: ignore[arg-type]


# --- properties -----------------------------------------------------------------


@given(st.data())
def test_any_spelling_of_a_valid_number_normalizes_to_canonical_text(data: st.DataObject) -> None:
    value = data.draw(number_values())
    text = data.draw(number_spellings(value))
    stored = normalize_number(text)
    assert stored == canonical(value)
    assert to_decimal(stored) == Decimal(text)
    assert normalize_number(stored) == stored  # idempotent


@given(number_values())
def test_split_number_describes_the_value(value: Decimal) -> None:
    negative, digits, adjusted = split_number(canonical(value))
    if value == 0:
        assert (negative, digits, adjusted) == (False, "", 0)
    else:
        assert negative == (value < 0)
        assert Decimal(f"{'-' if negative else ''}0.{digits}e{adjusted + 1}") == value


# --- arithmetic -------------------------------------------------------------------

_EXACT = Context(prec=1000, Emax=10**6, Emin=-(10**6), traps=[Inexact])


def _expected(result: Decimal) -> str | None:
    """What DynamoDB stores for an arithmetic result, or None if it refuses."""
    if result == 0:
        return "0"
    _, digits, exponent = result.normalize(_EXACT).as_tuple()
    assert isinstance(exponent, int)
    adjusted = exponent + len(digits) - 1
    if adjusted > 125 or adjusted < -130 or len(digits) > 38:
        return None
    return canonical(result)


@given(number_values(), number_values())
def test_addition_and_subtraction_are_exact(a: Decimal, b: Decimal) -> None:
    ta, tb = canonical(a), canonical(b)
    for op, exact in ((add_numbers, _EXACT.add(a, b)), (subtract_numbers, _EXACT.subtract(a, b))):
        want = _expected(exact)
        if want is None:
            with pytest.raises(ValidationException):
                op(ta, tb)
        else:
            got = op(ta, tb)
            assert got == want
            assert to_decimal(got) == exact


def test_arithmetic_keeps_all_38_digits() -> None:
    # SET b = :val1 + :val2 with 1 and 1e22 (alternator, run against DynamoDB).
    assert add_numbers("1", "10000000000000000000000") == "10000000000000000000001"
    assert subtract_numbers("10000000000000000000000", "1") == "9999999999999999999999"
    assert add_numbers("0.1", "0.2") == "0.3"
    assert add_numbers("-5", "5") == "0"
    assert add_numbers("9" * 38, "1") == "1" + "0" * 38  # 39 digits, 1 significant


def test_arithmetic_overflow_is_refused() -> None:
    # 9e125 + 9e125 = 1.8e126 (alternator: "ValidationException.*overflow").
    nine = "9" + "0" * 125
    with pytest.raises(ValidationException) as caught:
        add_numbers(nine, nine)
    assert caught.value.message == m.OVERFLOW
    with pytest.raises(ValidationException) as caught:
        subtract_numbers(nine, "-" + nine)
    assert caught.value.message == m.OVERFLOW


def test_an_inexact_result_gets_the_overflow_message() -> None:
    # 1e50 + 1 needs 51 digits; DynamoDB refuses it with the overflow message,
    # not the 38-digit one (alternator's note on DynamoDB's answer).
    for op in (add_numbers, subtract_numbers):
        with pytest.raises(ValidationException) as caught:
            op("1" + "0" * 50, "1")
        assert caught.value.message == m.OVERFLOW
    with pytest.raises(ValidationException) as caught:
        add_numbers("9" * 38, "0.1")
    assert caught.value.message == m.OVERFLOW


def test_an_arithmetic_underflow_is_refused() -> None:
    # 1.5e-130 - 1.4e-130 = 1e-131, below the range (message assumed to match
    # the one for a written number).
    with pytest.raises(ValidationException) as caught:
        subtract_numbers(normalize_number("1.5e-130"), normalize_number("1.4e-130"))
    assert caught.value.message == m.UNDERFLOW


def test_arithmetic_accepts_non_canonical_operands() -> None:
    assert add_numbers("1e2", "+1") == "101"


@given(number_values(), number_values())
def test_compare_numbers_orders_by_value(a: Decimal, b: Decimal) -> None:
    assert compare_numbers(canonical(a), canonical(b)) == (a > b) - (a < b)
