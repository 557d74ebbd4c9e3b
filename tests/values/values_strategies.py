"""Hypothesis strategies for DynamoDB values (shared by the values tests)."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import strategies as st

from tallydb.engine.values.number import MAX_ADJUSTED_EXPONENT, MIN_ADJUSTED_EXPONENT


@st.composite
def number_values(draw: st.DrawFn, max_digits: int = 38) -> Decimal:
    """Any value a DynamoDB Number may hold: zero, or up to ``max_digits``
    significant digits with an adjusted exponent in -130..125."""
    if draw(st.integers(0, 20)) == 0:
        return Decimal(0)
    mantissa = draw(
        st.one_of(
            st.integers(1, 10**max_digits - 1),
            st.integers(1, 1000),  # small values are the common case
        )
    )
    length = len(str(mantissa))
    exponent = draw(
        st.one_of(
            st.integers(MIN_ADJUSTED_EXPONENT - length + 1, MAX_ADJUSTED_EXPONENT - length + 1),
            st.integers(max(-5, MIN_ADJUSTED_EXPONENT - length + 1), 5),
        )
    )
    sign = draw(st.sampled_from([1, -1]))
    # From text, exactly: scaleb would round to the default context's 28
    # digits (a 38-digit 99...9 became 1E+126, outside DynamoDB's range).
    return Decimal(f"{sign * mantissa}E{exponent}")


def canonical(value: Decimal) -> str:
    """DynamoDB's canonical text of a value, computed independently of tallydb."""
    if value == 0:
        return "0"
    text = format(value, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


@st.composite
def number_spellings(draw: st.DrawFn, value: Decimal) -> str:
    """One of the many ways a client may write ``value``."""
    sign, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)
    body = "".join(map(str, digits))
    # Move the decimal point and compensate with an explicit exponent.
    shift = draw(st.integers(-3, 3))
    trailing = draw(st.integers(0, 3))
    body += "0" * trailing
    exponent -= trailing
    point = len(body) + shift
    if point <= 0:
        mantissa = "0." + "0" * (-point) + body
    elif point >= len(body):
        mantissa = body + "0" * (point - len(body))
    else:
        mantissa = body[:point] + "." + body[point:]
    exp = exponent - (point - len(body))
    leading = "0" * draw(st.integers(0, 2))
    marker = draw(st.sampled_from(["e", "E"]))
    prefix = "-" if sign else draw(st.sampled_from(["", "+"]))
    if exp == 0 and draw(st.booleans()):
        return f"{prefix}{leading}{mantissa}"
    exp_text = f"+{exp}" if exp >= 0 and draw(st.booleans()) else str(exp)
    return f"{prefix}{leading}{mantissa}{marker}{exp_text}"
