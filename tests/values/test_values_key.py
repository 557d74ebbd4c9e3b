"""The sortable byte encoding of key values.

DynamoDB sorts a sort key's Numbers by value, Strings by UTF-8 bytes and
Binaries by bytes (developer guide, Query: "results are always sorted by the
sort key value ... by numeric order ... by UTF-8 bytes ... unsigned bytes").
SQLite compares BLOBs with memcmp, which is Python's bytes order.
"""

from __future__ import annotations

import base64
from decimal import Decimal

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from values_strategies import canonical, number_values

from tallydb.engine.values import (
    decode_key_value,
    decode_key_value_at,
    encode_key_prefix,
    encode_key_value,
    normalize_number,
)

texts = st.text()
binaries = st.binary()


def n(value: Decimal) -> dict[str, str]:
    return {"N": canonical(value)}


def b(raw: bytes) -> dict[str, str]:
    return {"B": base64.b64encode(raw).decode()}


@given(st.lists(number_values(), min_size=2, max_size=20))
def test_numbers_sort_by_value(values: list[Decimal]) -> None:
    by_bytes = sorted(values, key=lambda v: encode_key_value(n(v)))
    assert by_bytes == sorted(values)


@given(number_values(), number_values())
def test_equal_numbers_encode_equal_and_order_is_strict(x: Decimal, y: Decimal) -> None:
    ex, ey = encode_key_value(n(x)), encode_key_value(n(y))
    assert (ex < ey, ex == ey, ex > ey) == (x < y, x == y, x > y)


@given(st.lists(texts, min_size=2, max_size=20))
def test_strings_sort_by_utf8_bytes(values: list[str]) -> None:
    by_bytes = sorted(values, key=lambda s: encode_key_value({"S": s}))
    assert by_bytes == sorted(values, key=lambda s: s.encode("utf-8"))


@given(st.lists(binaries, min_size=2, max_size=20))
def test_binaries_sort_by_bytes(values: list[bytes]) -> None:
    by_bytes = sorted(values, key=lambda raw: encode_key_value(b(raw)))
    assert by_bytes == sorted(values)


@given(number_values())
def test_numbers_round_trip(value: Decimal) -> None:
    av = n(value)
    assert decode_key_value(encode_key_value(av), "N") == av


@given(texts)
def test_strings_round_trip(value: str) -> None:
    assert decode_key_value(encode_key_value({"S": value}), "S") == {"S": value}


@given(binaries)
def test_binaries_round_trip(value: bytes) -> None:
    assert decode_key_value(encode_key_value(b(value)), "B") == b(value)


@given(
    st.lists(st.tuples(binaries, number_values()), min_size=2, max_size=20),
)
@example([(b"", Decimal(0)), (b"", Decimal("9.9999999999999999999999999999999999999E+125"))])
def test_a_hash_key_followed_by_a_range_key_sorts_as_the_pair(
    pairs: list[tuple[bytes, Decimal]],
) -> None:
    # Prefix-free encodings: concatenation sorts as the tuple does.
    def composite(pair: tuple[bytes, Decimal]) -> bytes:
        return encode_key_value(b(pair[0])) + encode_key_value(n(pair[1]))

    assert sorted(pairs, key=composite) == sorted(pairs)
    for pair in pairs:
        data = composite(pair)
        hash_av, offset = decode_key_value_at(data, 0, "B")
        range_av, end = decode_key_value_at(data, offset, "N")
        assert (hash_av, range_av, end) == (b(pair[0]), n(pair[1]), len(data))


@given(texts, texts)
def test_a_prefix_encoding_bounds_begins_with(prefix: str, rest: str) -> None:
    assert encode_key_value({"S": prefix + rest}).startswith(encode_key_prefix({"S": prefix}))


def test_extremes_and_zero() -> None:
    ordered = ["-" + "9" * 38 + "0" * 88, "-1", "-0.5", "0", "1E-130", "0.5", "1", "9.99e125"]
    encoded = [encode_key_value({"N": normalize_number(v)}) for v in ordered]
    assert encoded == sorted(encoded)
    assert len(set(encoded)) == len(encoded)


def test_zero_bytes_inside_strings_and_binaries() -> None:
    values = [b"", b"\x00", b"\x00\x00", b"\x00\x01", b"\x01", b"a", b"a\x00", b"a\x00b", b"ab"]
    encoded = [encode_key_value(b(v)) for v in values]
    assert encoded == sorted(encoded)


def test_trailing_bytes_are_refused() -> None:
    with pytest.raises(ValueError):
        decode_key_value(encode_key_value({"S": "a"}) + b"x", "S")
