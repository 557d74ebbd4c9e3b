"""Plain Python values to wire form and back (tallydb.toolkit.convert)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tallydb.toolkit.convert import from_wire, to_wire


@pytest.mark.parametrize(
    ("value", "wire"),
    [
        ("x", {"S": "x"}),
        (5, {"N": "5"}),
        (-(10**40), {"N": "-" + "1" + "0" * 40}),
        (Decimal("1.50"), {"N": "1.50"}),
        (Decimal("1E+100"), {"N": "1E+100"}),
        (0.1, {"N": "0.1"}),
        (b"\x00", {"B": b"\x00"}),
        (bytearray(b"ab"), {"B": b"ab"}),
        (True, {"BOOL": True}),
        (None, {"NULL": True}),
        ([1, "a"], {"L": [{"N": "1"}, {"S": "a"}]}),
        ((1,), {"L": [{"N": "1"}]}),
        ({"k": {"j": None}}, {"M": {"k": {"M": {"j": {"NULL": True}}}}}),
        ({"a"}, {"SS": ["a"]}),
        (frozenset({2}), {"NS": ["2"]}),
        ({b"z"}, {"BS": [b"z"]}),
    ],
)
def test_to_wire(value: Any, wire: dict[str, Any]) -> None:
    assert to_wire(value) == wire


@pytest.mark.parametrize(
    ("wire", "value", "kind"),
    [
        ({"N": "15"}, 15, int),
        ({"N": "1" + "0" * 125}, 10**125, int),  # DynamoDB's answer for 1E+125
        ({"N": "0.00001"}, Decimal("0.00001"), Decimal),
        (
            {"N": "-12345678901234567890.123456789"},
            Decimal("-12345678901234567890.123456789"),
            Decimal,
        ),
        ({"NS": ["1", "2.5"]}, {1, Decimal("2.5")}, set),
        ({"B": b"x"}, b"x", bytes),
        ({"BS": [b"x"]}, {b"x"}, set),
        ({"SS": ["a", "b"]}, {"a", "b"}, set),
        ({"L": [{"N": "1"}]}, [1], list),
    ],
)
def test_from_wire(wire: dict[str, Any], value: Any, kind: type) -> None:
    assert from_wire(wire) == value
    assert type(from_wire(wire)) is kind


@pytest.mark.parametrize(
    "value",
    [float("nan"), float("inf"), Decimal("NaN"), set(), {1, "a"}, {1: 2}, object(), 1j],
)
def test_refused(value: Any) -> None:
    with pytest.raises(TypeError):
        to_wire(value)


plain = st.recursive(
    st.one_of(
        st.text(max_size=4),
        st.integers(),
        st.decimals(allow_nan=False, allow_infinity=False).map(lambda d: d.normalize()),
        st.binary(max_size=4),
        st.booleans(),
        st.none(),
        st.frozensets(st.text(min_size=1, max_size=2), min_size=1, max_size=3),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)


@given(plain)
def test_round_trip(value: Any) -> None:
    assert from_wire(to_wire(value)) == value
