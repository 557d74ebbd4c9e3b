"""UpdateItem's quickest path for a counter among many: a request equal to
the remembered one but for its Key's values (``_UpdateShape.other_key``).

Such a request has only its key checked and encoded. Generated requests
near a remembered shape (other keys, good and bad; other values, members,
tables) must come out exactly as the same request does with nothing
remembered, through every check: the same answer, the same error (type and
message), the same items afterwards.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tallydb.engine.api import Engine, _params
from tallydb.engine.errors import DynamoDBError
from tallydb.engine.storage import Store

#: table -> its key attributes (name, type), HASH first
TABLES: dict[str, list[tuple[str, str]]] = {
    "plays": [("pk", "S")],
    "scores": [("user", "S"), ("round", "N")],
    "by_id": [("id", "N")],
}
#: the remembered request's key on each table (never generated: see ``_texts``)
SHAPE_KEY = {"plays": {"pk": {"S": "~shape"}},
             "scores": {"user": {"S": "~shape"}, "round": {"N": "1"}},
             "by_id": {"id": {"N": "-0.25"}}}

#: the members of the remembered request but TableName and Key
SHAPES: list[dict[str, Any]] = [
    {"UpdateExpression": "ADD n :one", "ExpressionAttributeValues": {":one": {"N": "1"}}},
    {"UpdateExpression": "ADD n :one", "ExpressionAttributeValues": {":one": {"N": "1"}},
     "ReturnValues": "ALL_NEW", "ReturnConsumedCapacity": "TOTAL"},
    {"UpdateExpression": "SET #s = :s ADD n :one",
     "ExpressionAttributeNames": {"#s": "state"},
     "ExpressionAttributeValues": {":one": {"N": "2"}, ":s": {"S": "on"}},
     "ReturnValues": "UPDATED_OLD"},
    {"UpdateExpression": "ADD n :one", "ConditionExpression": "attribute_not_exists(n) OR n < :cap",
     "ExpressionAttributeValues": {":one": {"N": "1"}, ":cap": {"N": "2"}}},
]


def _engine() -> Engine:
    engine = Engine(Store(None))
    for name, attributes in TABLES.items():
        engine.call("CreateTable", {
            "TableName": name, "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": a, "AttributeType": t}
                                     for a, t in attributes],
            "KeySchema": [{"AttributeName": a, "KeyType": role}
                          for (a, _), role in zip(attributes, ("HASH", "RANGE"), strict=False)],
        })
    return engine


@pytest.fixture(scope="module")
def engines() -> Iterator[tuple[Engine, Engine]]:
    """(the general path's engine, the remembered shape's engine): the same
    requests go to both, so they hold the same items but the shape's key."""
    general, quick = _engine(), _engine()
    yield general, quick
    general.close()
    quick.close()


def _forget() -> None:
    _params._update_shapes.clear()
    _params.HOT[0] = None


def _texts() -> st.SearchStrategy[str]:
    """Strings near a key's limits: empty, NUL, multi-byte, 256 code points
    and 1,024 and 2,048 bytes either side. (No "~": the shape's key.)"""
    chars = st.sampled_from(["a", "Z", "0", "é", "\x00", "😀", " ", "#"])
    return st.one_of(
        st.text(st.characters(blacklist_characters="~", blacklist_categories=["Cs"]),
                max_size=12),
        st.builds(lambda c, n: c * n, chars, st.integers(250, 260)),
        st.builds(lambda c, n: c * n, st.sampled_from(["é", "😀", "a"]),
                  st.sampled_from([341, 342, 511, 512, 513, 682, 683, 1023, 1024, 1025,
                                   2047, 2048, 2049])),
    )


_NUMBERS = st.one_of(
    st.integers(-10**40, 10**40).map(str),
    st.sampled_from(["0", "-0", "01", "1.0", "1.5", "+1", "1e2", "1E-2", "0.001", "x", "",
                     " 1", "1" * 38, "1" * 39, "9" * 38 + "0", "1e125", "1e126", "-1e-130",
                     "1e-131", "٣", "NaN", "Infinity"]),
)


def _value(kind: str) -> st.SearchStrategy[Any]:
    """An attribute value of the schema's type, or near it."""
    right = (st.builds(lambda t: {"S": t}, _texts()) if kind == "S"
             else st.builds(lambda n: {"N": n}, _NUMBERS))
    return st.one_of(
        right, right, right,
        st.builds(lambda t: {"S": t}, _texts()),
        st.builds(lambda n: {"N": n}, _NUMBERS),
        st.sampled_from([{"B": "YQ=="}, {"B": ""}, {"BOOL": True}, {"NULL": True}, {},
                         {"S": "a", "N": "1"}, {"SS": ["a"]}, {"s": "a"}, "a", None, [],
                         {"S": 1}, {"N": 1}, {"S": None}]),
    )


@st.composite
def _requests(draw: st.DrawFn) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """(table, the remembered request, a request near it)."""
    table = draw(st.sampled_from(sorted(TABLES)))
    shape = draw(st.sampled_from(SHAPES))
    good = {"TableName": table, "Key": SHAPE_KEY[table], **shape}
    key: Any = {name: draw(_value(kind)) for name, kind in TABLES[table]}
    if draw(st.integers(0, 9)) == 0:  # an attribute more, or one fewer
        key = draw(st.sampled_from([
            {**key, "other": {"S": "x"}}, dict(list(key.items())[:-1]),
            dict(list(key.items())[1:]), None, [], "pk", {}]))
    request = {**copy.deepcopy(good), "Key": key}
    change = draw(st.integers(0, 11))
    if change == 0:
        del request["Key"]
    elif change == 1:
        request["ExpressionAttributeValues"] = {
            **request["ExpressionAttributeValues"], ":one": draw(_value("N"))}
    elif change == 2:
        request["TableName"] = draw(st.sampled_from([*TABLES, "nope", "", None]))
    elif change == 3:
        request[draw(st.sampled_from(["ReturnValues", "ReturnConsumedCapacity",
                                      "Unknown", "Expected", "ConditionExpression"]))] = (
            draw(st.sampled_from(["ALL_NEW", "TOTAL", "NONE", "bad", "n > :one", 1, None])))
    return table, good, request


def _outcome(engine: Engine, request: dict[str, Any]) -> Any:
    try:
        return "answered", engine.call("UpdateItem", copy.deepcopy(request))
    except DynamoDBError as error:
        return "refused", type(error).__name__, error.message


def _items(engine: Engine) -> list[Any]:
    """Every item of every table but the remembered request's, in the order
    a Scan reads them (the order of their keys as encoded)."""
    found = []
    for table in TABLES:
        found += [item for item in engine.call("Scan", {"TableName": table})["Items"]
                  if {name: item[name] for name, _ in TABLES[table]} != SHAPE_KEY[table]]
    return found


@settings(max_examples=400)
@given(_requests())
@example(("plays", {"TableName": "plays", "Key": SHAPE_KEY["plays"], **SHAPES[0]},
          {"TableName": "plays", "Key": {"pk": {"S": ""}}, **SHAPES[0]}))
@example(("plays", {"TableName": "plays", "Key": SHAPE_KEY["plays"], **SHAPES[0]},
          {"TableName": "plays", "Key": {"pk": {"S": "😀" * 513}}, **SHAPES[0]}))
@example(("plays", {"TableName": "plays", "Key": SHAPE_KEY["plays"], **SHAPES[0]},
          {"TableName": "plays", "Key": {"pk": {"S": "a"}, "n": {"S": "b"}}, **SHAPES[0]}))
@example(("plays", {"TableName": "plays", "Key": SHAPE_KEY["plays"], **SHAPES[0]},
          {"TableName": "plays", "Key": {"pk": {"S": "a\x00b"}}, **SHAPES[0]}))
@example(("scores", {"TableName": "scores", "Key": SHAPE_KEY["scores"], **SHAPES[0]},
          {"TableName": "scores", "Key": {"user": {"S": "\x00"}, "round": {"N": "2"}},
           **SHAPES[0]}))
@example(("by_id", {"TableName": "by_id", "Key": SHAPE_KEY["by_id"], **SHAPES[0]},
          {"TableName": "by_id", "Key": {"id": {"N": "5"}, "x": {"S": "y"}}, **SHAPES[0]}))
@example(("scores", {"TableName": "scores", "Key": SHAPE_KEY["scores"], **SHAPES[1]},
          {"TableName": "scores", "Key": {"user": {"S": "a"}, "round": {"N": "1.0"}},
           **SHAPES[1]}))
def test_a_request_near_a_remembered_shape_comes_out_as_with_every_check(
        engines: tuple[Engine, Engine], case: tuple[str, dict[str, Any], dict[str, Any]]
) -> None:
    general, quick = engines
    table, good, request = case
    _forget()
    expected = _outcome(general, request)
    _forget()
    quick.call("DeleteItem", {"TableName": table, "Key": SHAPE_KEY[table]})  # (its condition)
    for _ in range(2):  # the second is remembered whole (``_UpdateShape.last_request``)
        assert _outcome(quick, good)[0] == "answered"
    hot = _params.HOT[0]
    assert hot is not None and hot.table_name == table
    with quick.store.transaction() as txn:
        decided = hot.other_key(txn, copy.deepcopy(request))
    if decided is not None:  # only a key every check passes as it is, encoded as they do
        keys = decided.table.keys
        assert keys.validate_key(request["Key"]) == request["Key"]
        assert (decided.hk, decided.rk) == keys.encode(request["Key"])
    assert _outcome(quick, request) == expected
    assert _items(quick) == _items(general)


def test_another_key_is_decided_by_its_key_alone(engines: tuple[Engine, Engine]) -> None:
    """The path above is the one taken: a request differing only in its
    Key's values is decided by ``other_key``; one differing anywhere else,
    or with a key any check would word, is not."""
    _, quick = engines
    good = {"TableName": "scores", "Key": SHAPE_KEY["scores"], **SHAPES[2]}
    _forget()
    for _ in range(2):
        quick.call("UpdateItem", copy.deepcopy(good))
    hot = _params.HOT[0]
    assert hot is not None
    other = {**copy.deepcopy(good), "Key": {"user": {"S": "b"}, "round": {"N": "-2.5"}}}
    with quick.store.transaction() as txn:
        decided = hot.other_key(txn, other)
        assert decided is not None
        assert decided.key == other["Key"] and decided.table.name == "scores"
        assert decided.return_values == "UPDATED_OLD"
        assert (decided.hk, decided.rk) == decided.table.keys.encode(other["Key"])
        for near in ({**other, "Key": {"user": {"S": ""}, "round": {"N": "1"}}},
                     {**other, "Key": {"user": {"S": "b"}, "round": {"N": "01"}}},
                     {**other, "Key": {"user": {"S": "b"}}},
                     {**other, "ReturnValues": "ALL_NEW"},
                     {**other, "ExpressionAttributeValues": {":one": {"N": "3"},
                                                             ":s": {"S": "on"}}},
                     {**other, "Extra": "member"}):
            assert hot.other_key(txn, near) is None


def test_a_table_made_again_is_not_decided_from_the_old_one() -> None:
    """A remembered shape is for the very table it was decided on: the
    table deleted and made again with another key type, a request of the
    shape gets the new table's answer."""
    engine = _engine()
    try:
        good = {"TableName": "plays", "Key": SHAPE_KEY["plays"], **SHAPES[0]}
        _forget()
        for _ in range(2):
            engine.call("UpdateItem", copy.deepcopy(good))
        assert _params.HOT[0] is not None
        engine.call("DeleteTable", {"TableName": "plays"})
        engine.call("CreateTable", {
            "TableName": "plays", "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "N"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]})
        request = {**copy.deepcopy(good), "Key": {"pk": {"S": "x"}}}
        remembered = _outcome(engine, request)
        _forget()
        assert remembered == _outcome(engine, request)
        assert remembered[:2] == ("refused", "ValidationException")
        assert _items(engine) == []
    finally:
        engine.close()
