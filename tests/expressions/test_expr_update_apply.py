"""UpdateExpression at run time: what the new item is, and what DynamoDB
refuses once it has read the item."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tallydb.engine.errors import ValidationException
from tallydb.engine.expressions import Placeholders

N = lambda n: {"N": str(n)}  # noqa: E731
S = lambda s: {"S": s}  # noqa: E731


def apply(text: str, item: dict[str, Any], values: dict[str, Any] | None = None,
          names: dict[str, str] | None = None) -> dict[str, Any]:
    before = copy.deepcopy(item)
    result = Placeholders(names, values).update(text).apply(item)
    assert item == before, "apply() must not change its input"
    return result


def refused(text: str, item: dict[str, Any], values: dict[str, Any] | None = None,
            names: dict[str, str] | None = None) -> str:
    with pytest.raises(ValidationException) as caught:
        Placeholders(names, values).update(text).apply(item)
    assert caught.value.message is not None
    return caught.value.message


def test_counter_add_and_set_plus() -> None:
    # The atomic counter: ADD on a missing number starts at 0.
    assert apply("ADD n :one", {}, {":one": N(1)}) == {"n": N(1)}
    assert apply("ADD n :one", {"n": N(41)}, {":one": N(1)}) == {"n": N(42)}
    assert apply("SET n = n + :one", {"n": N("1.5")}, {":one": N(1)}) == {"n": N("2.5")}
    assert apply("SET n = if_not_exists(n, :zero) - :one", {}, {":zero": N(0), ":one": N(1)}
                 ) == {"n": N(-1)}


def test_plus_on_missing_attribute_is_refused() -> None:
    # "The provided expression refers to an attribute that does not exist in the item"
    assert refused("SET n = n + :one", {}, {":one": N(1)}) == (
        "The provided expression refers to an attribute that does not exist in the item")
    assert refused("set c = b", {}) == (
        "The provided expression refers to an attribute that does not exist in the item")
    assert refused("set e = list_append(b, c)", {}) == (
        "The provided expression refers to an attribute that does not exist in the item")


@pytest.mark.parametrize("text", [
    "delete d :ss", "delete b :ns", "delete b.a :ns", "delete b.a :bs", "delete c :ns",
    "add b :ns", "add d :n", "set e = a + :n", "set e = b - :n",
    "set e = list_append(d, if_not_exists(f, :l))",
])
def test_incorrect_data_types_at_run_time(text: str) -> None:
    # dynalite, from DynamoDB: "An operand in the update expression has an
    # incorrect data type" once the item's own types are known.
    item = {"a": S("k"), "b": {"M": {"a": {"SS": ["1"]}}}, "c": N(1), "d": {"NS": ["1"]}}
    values = {":ss": {"SS": ["1"]}, ":ns": {"NS": ["1"]}, ":bs": {"BS": ["YQ=="]},
              ":n": N(1), ":l": {"L": []}}
    assert refused(text, item, values) == (
        "An operand in the update expression has an incorrect data type")


def test_adding_a_number_to_a_string_is_refused() -> None:
    assert refused("ADD s :one", {"s": S("x")}, {":one": N(1)}) == (
        "An operand in the update expression has an incorrect data type")


@pytest.mark.parametrize("text", [
    "set b.a = :a, #1 = :a", "set b[1] = :a, #1 = :a", "set y.a = :a, #1 = :a",
    "set y[1] = :a, #1 = :a", "set c[1] = :a, #1 = :a", "set d.#1 = :a",
    "remove b.a set #1 = :a", "remove b[1] set #1 = :a", "remove y.a set #1 = :a",
    "remove y[1] set #1 = :a", "remove c[1] set #1 = :a", "remove d.#1 set #1 = :a",
    "delete b.a :a set #1 = :a", "delete y[1] :a set #1 = :a", "delete d.#1 :a",
    "add b.a :a set #1 = :a", "add y.a :a set #1 = :a", "add c[1] :a set #1 = :a",
    "add d.#1 :a",
])
def test_invalid_document_paths(text: str) -> None:
    # dynalite, from DynamoDB: a nested path whose parent is missing or of the
    # wrong kind (b is a String, y missing, c a Map, d a List).
    item = {"a": S("k"), "b": S("k"), "c": {"M": {"1": S("a")}}, "d": {"L": [S("a"), S("b")]}}
    assert refused(text, item, {":a": {"SS": ["a"]}}, {"#1": "1"}) == (
        "The document path provided in the update expression is invalid for update")


def test_nested_paths_in_a_missing_item() -> None:
    for text in ["set b.a = a", "set b[1] = a"]:
        assert refused(text, {"a": S("k")}) == (
            "The document path provided in the update expression is invalid for update")


def test_nested_update_matches_dynamodb() -> None:
    # dynalite "should update nested attributes", checked against DynamoDB:
    # values come from the item as it was; list writes past the end append
    # in index order; UPDATED_NEW projects the written paths.
    item = {"a": S("k"), "b": {"M": {"a": N(1), "b": N(2), "c": N(3)}},
            "c": {"L": [N(1), N(3)]}}
    update = Placeholders(None, {":a": N(2), ":b": {"SS": ["a"]}}).update(
        "set b.c=((c[1])+(b.a)),b.a = a,c[1] = a, c[4] = b.a - b.b, c[2] = b.c "
        "add c[8] :b, c[6] :a")
    new = update.apply(item)
    assert new == {"a": S("k"), "b": {"M": {"a": S("k"), "b": N(2), "c": N(4)}},
                   "c": {"L": [N(1), S("k"), N(3), N(-1), N(2), {"SS": ["a"]}]}}
    assert update.updated_view(new) == {"b": {"M": {"a": S("k"), "c": N(4)}},
                                        "c": {"L": [S("k"), N(3), N(2)]}}
    assert update.updated_view(item) == {"b": {"M": {"a": N(1), "c": N(3)}},
                                         "c": {"L": [N(3)]}}


def test_remove_list_elements_by_original_index() -> None:
    item = {"l": {"L": [S("a"), S("b"), S("c"), S("d")]}}
    assert apply("REMOVE l[0], l[2]", item) == {"l": {"L": [S("b"), S("d")]}}
    assert apply("REMOVE l[9]", item) == item
    assert apply("REMOVE l[1] SET l[3] = :x", item, {":x": S("x")}) == {
        "l": {"L": [S("a"), S("c"), S("x")]}}


def test_remove_attributes_and_map_keys() -> None:
    item = {"a": N(1), "m": {"M": {"x": N(1), "y": N(2)}}}
    assert apply("REMOVE a, m.x, gone, m.nope", item) == {"m": {"M": {"y": N(2)}}}


def test_set_list_index_past_end_appends() -> None:
    item = {"l": {"L": [S("a")]}}
    assert apply("SET l[5] = :x", item, {":x": S("x")}) == {"l": {"L": [S("a"), S("x")]}}
    assert apply("SET l[0] = :x", item, {":x": S("x")}) == {"l": {"L": [S("x")]}}


def test_sets_add_and_delete() -> None:
    item = {"s": {"SS": ["a", "b"]}, "n": {"NS": ["1", "2"]}}
    assert apply("ADD s :s", item, {":s": {"SS": ["b", "c"]}})["s"] == {"SS": ["a", "b", "c"]}
    assert apply("ADD t :s", item, {":s": {"SS": ["x"]}})["t"] == {"SS": ["x"]}
    assert apply("DELETE n :n", item, {":n": {"NS": ["1", "5"]}})["n"] == {"NS": ["2"]}
    # Deleting every member removes the attribute.
    assert "n" not in apply("DELETE n :n", item, {":n": {"NS": ["1", "2"]}})
    assert apply("DELETE gone :n", item, {":n": {"NS": ["1"]}}) == item


def test_list_append() -> None:
    item = {"l": {"L": [N(1)]}}
    assert apply("SET l = list_append(l, :m)", item, {":m": {"L": [N(2)]}}) == {
        "l": {"L": [N(1), N(2)]}}
    assert apply("SET l = list_append(:m, l)", item, {":m": {"L": [N(2)]}}) == {
        "l": {"L": [N(2), N(1)]}}


def test_if_not_exists_keeps_existing() -> None:
    assert apply("set b = if_not_exists(b, a)", {"a": S("k")}) == {"a": S("k"), "b": S("k")}
    assert apply("set a = if_not_exists(a, :v)", {"a": S("k")}, {":v": S("v")}) == {
        "a": S("k")}


def test_clauses_in_any_order() -> None:
    # dynalite "should just add valid ADD actions if nothing exists".
    values = {":c": {"SS": ["a", "b"]}, ":d": N(5), ":e": {"SS": ["a", "b"]},
              ":f": {"L": [S("a"), N(1)]}}
    expected = {"d": N(5), "e": {"SS": ["a", "b"]}, "f": {"L": [S("a"), N(1)]}}
    assert apply("REMOVE b DELETE c :c ADD d :d, e :e SET f = :f", {}, values) == expected
    names = {"#b": "b", "#c": "c", "#d": "d", "#e": "e", "#f": "f"}
    assert apply("ADD #e :e,#d :d DELETE #c :c REMOVE #b SET #f = :f", {}, values, names
                 ) == expected


def test_number_overflow_is_refused() -> None:
    with pytest.raises(ValidationException, match="Number overflow"):
        apply("ADD n :big", {"n": N("9.9999999999999999999999999999999999999E+125")},
              {":big": N("9.9999999999999999999999999999999999999E+125")})


def test_updated_paths_and_views() -> None:
    update = Placeholders(None, {":v": N(1)}).update("SET a.b = :v REMOVE c")
    assert update.updated_paths == (("a", "b"), ("c",))
    old = {"a": {"M": {"b": N(0), "z": N(9)}}, "c": N(3), "d": N(4)}
    assert update.updated_view(old) == {"a": {"M": {"b": N(0)}}, "c": N(3)}
    assert update.updated_view(update.apply(old)) == {"a": {"M": {"b": N(1)}}}


def test_plans_are_cached_per_names() -> None:
    first = Placeholders({"#x": "a"}, {":v": N(1)}).update("SET #x = :v")
    second = Placeholders({"#x": "b"}, {":v": N(2)}).update("SET #x = :v")
    assert first.apply({}) == {"a": N(1)}
    assert second.apply({}) == {"b": N(2)}
