"""BatchWriteItem's quick shape pass (``_shapes._RequestMap``): a request it
passes is one the full check, compiled from the model, finds nothing in, so
skipping the full check never lets a malformed request through or changes
its answer."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tallydb.engine.api import _shapes
from tallydb.engine.errors import DynamoDBError

OPERATION = "BatchWriteItem"


def _item(n: int) -> dict[str, Any]:
    return {"PK": {"S": f"VID#{n}"}, "SK": {"S": "STATS"}, "n": {"N": str(n)},
            "tags": {"SS": ["cats", "dogs"]}}


def _import_batch(count: int = 25) -> dict[str, Any]:
    return {"RequestItems": {"bench": [{"PutRequest": {"Item": _item(n)}}
                                       for n in range(count)]}}


def _verdict(check: Any, request: Any) -> str | None:
    try:
        check(request)
    except DynamoDBError as error:
        return f"{error.code()}: {error}"
    return None


def _full_check() -> Any:
    """The model's full check of BatchWriteItem (compiled afresh)."""
    saved = _shapes._quick.get(OPERATION)
    check = _shapes._compile(OPERATION)
    if saved is not None:
        _shapes._quick[OPERATION] = saved
    return check


def _quick() -> Any:
    _shapes.check_request(OPERATION, _import_batch(1))  # compiled, the quick pass made
    return _shapes._quick[OPERATION]


def test_an_imports_batch_passes_quickly() -> None:
    quick = _quick()
    assert quick.passes(_import_batch())
    mixed = {"RequestItems": {"a": [{"DeleteRequest": {"Key": {"PK": {"S": "x"}}}}],
                              "b": [{"PutRequest": {"Item": {}}}]},
             "ReturnConsumedCapacity": "TOTAL", "SomethingUnknown": [1]}
    quick.seen.clear()  # (what earlier requests of this process passed)
    assert not quick.passes(mixed)  # an enum's value passes once it has passed before
    _shapes.check_request(OPERATION, mixed)
    assert quick.passes(mixed)


#: Values a position may hold instead of its own: each of another JSON type.
_ODD = [None, 1, 1.5, True, "s", [], {}, [None], {"x": None}, {"S": "x"}]


def _positions(request: dict[str, Any]) -> list[tuple[Any, Any]]:
    """(container, key) of every position of the request, nested ones included."""
    found: list[tuple[Any, Any]] = []

    def walk(node: Any) -> None:
        keys = range(len(node)) if isinstance(node, list) else list(node)
        for key in keys:
            found.append((node, key))
            if isinstance(node[key], dict | list):
                walk(node[key])

    walk(request)
    return found


def _variants() -> list[Any]:
    base = {"RequestItems": {
        "tbl": [{"PutRequest": {"Item": {"PK": {"S": "a"}, "l": {"L": [{"N": "1"}]}}}},
                {"DeleteRequest": {"Key": {"PK": {"S": "b"}}}}],
        "other": [{"PutRequest": {"Item": {"PK": {"S": "c"}}}}]}}
    variants: list[Any] = [base]
    for index in range(len(_positions(base))):
        for odd in _ODD:
            variant = copy.deepcopy(base)
            container, key = _positions(variant)[index]
            container[key] = copy.deepcopy(odd)
            variants.append(variant)
    # lengths at and past the model's limits, names of every length
    for tables in (0, 1, 25, 26):
        variants.append({"RequestItems": {f"t{i}": [{"DeleteRequest": {"Key": {}}}]
                                          for i in range(tables)}})
    for entries in (0, 1, 25, 26):
        variants.append({"RequestItems": {"t": [{"PutRequest": {"Item": {}}}] * entries}})
    for length in (0, 1, 512, 513, 1024, 1025):
        variants.append({"RequestItems": {"é" * length: [{"PutRequest": {"Item": {}}}]}})
        variants.append({"RequestItems": {"t": [{"PutRequest": {"Item": {
            "a" * (length * 32): {"S": "x"}}}}]}})
    variants += [
        {"RequestItems": {"t": [{"PutRequest": {"Item": {}}, "DeleteRequest": {"Key": {}}}]}},
        {"RequestItems": {"t": [{"UpdateRequest": {}}]}},
        {"RequestItems": {"t": [{"PutRequest": {"Key": {}}}]}},
        {"RequestItems": {"t": [{"PutRequest": {"Item": {}, "Other": 1}}]}},
        {"RequestItems": {"t": [{}]}},
        {"RequestItems": None},
        {"RequestItems": {"t": [{"PutRequest": {"Item": {}}}]}, "ReturnConsumedCapacity": "NO"},
        {"RequestItems": {"t": [{"PutRequest": {"Item": {}}}]},
         "ReturnItemCollectionMetrics": 5},
        {},
    ]
    return variants


def test_what_passes_quickly_the_full_check_passes_and_answers_stay_the_same() -> None:
    full, quick = _full_check(), _quick()
    passed = 0
    for request in _variants():
        expected = _verdict(full, copy.deepcopy(request))
        if quick.passes(copy.deepcopy(request)):
            passed += 1
            assert expected is None, request
        # the check as requests meet it (quick first) answers as the full one
        assert _verdict(lambda r: _shapes.check_request(OPERATION, r),
                        copy.deepcopy(request)) == expected, request
    assert passed > 10  # the quick pass took part


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["PutRequest", "DeleteRequest", "Item", "Key", "S", "t", ""]),
        inner, max_size=3),
    max_leaves=12)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.sampled_from(["RequestItems", "ReturnConsumedCapacity", "x"]),
                       _json, max_size=2))
def test_arbitrary_json_passes_quickly_only_when_the_full_check_passes(request: Any) -> None:
    if _quick().passes(copy.deepcopy(request)):
        assert _verdict(_full_check(), copy.deepcopy(request)) is None
