"""The update builder: rendering, placeholders, overlap checks, merge, parse.

Pure tests first (no store), then what the rendered expressions do on each
store.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

import tallydb
from tallydb import Path, Update, if_not_exists, list_append

OVERLAP = (
    "Invalid UpdateExpression: Two document paths overlap with each other; "
    "must remove or rewrite one of these paths; "
)
CONFLICT = (
    "Invalid UpdateExpression: Two document paths conflict with each other; "
    "must remove or rewrite one of these paths; "
)


def parsed(u: Update) -> Update:
    r = u.render()
    return Update.parse(
        r["UpdateExpression"],
        r.get("ExpressionAttributeNames"),
        r.get("ExpressionAttributeValues"),
    )


# -- rendering -----------------------------------------------------------------


def test_all_four_clauses_in_order_of_first_use() -> None:
    u = Update().remove("a").set("b", 1).delete("c", {"x"}).add("d", 2).set("e", "s")
    assert u.render()["UpdateExpression"] == (
        "REMOVE #a SET #b = :v0, #e = :v1 DELETE #c :v2 ADD #d :v3"
    )


def test_nested_paths() -> None:
    r = Update().set("a.b[2].c", 1).remove("m.list[0][1]").render()
    assert r["UpdateExpression"] == "SET #a.#b[2].#c = :v0 REMOVE #m.#list[0][1]"
    assert r["ExpressionAttributeNames"] == {
        "#a": "a",
        "#b": "b",
        "#c": "c",
        "#m": "m",
        "#list": "list",
    }


def test_names_with_dots_need_an_explicit_path() -> None:
    r = Update().set(Path.literal("stats.total"), 1).set("stats.total", 2).render()
    assert r["UpdateExpression"] == "SET #n0 = :v0, #stats.#total = :v1"
    assert r["ExpressionAttributeNames"] == {
        "#n0": "stats.total",
        "#stats": "stats",
        "#total": "total",
    }


def test_path_constructions() -> None:
    assert Path("a.b[2].c").elements == ("a", "b", 2, "c")
    assert Path("a")["b"][2]["c"].elements == ("a", "b", 2, "c")
    assert Path.literal("a", "b", 2, "c").elements == ("a", "b", 2, "c")
    assert Path.literal("a.b").elements == ("a.b",)
    assert Path("a")["b.c"].elements == ("a", "b.c")
    assert str(Path.literal("a", "b", 0)) == "a.b[0]"
    assert repr(Path("a.b[0]")) == "Path('a.b[0]')"
    assert repr(Path.literal("a.b", 0)) == "Path.literal('a.b', 0)"
    for bad in ("", "a..b", ".a", "a.", "a[x]", "[0]", "a[0"):
        with pytest.raises(ValueError):
            Path(bad)
    with pytest.raises(ValueError):
        Path.literal(0)
    with pytest.raises(TypeError):
        Path(0)  # type: ignore[arg-type]


def test_reserved_words_and_odd_names_are_always_placeholders() -> None:
    r = Update().set("count", 1).set("size", 2).set("my-attr", 3).set("ünï", 4).render()
    assert r["UpdateExpression"] == "SET #count = :v0, #size = :v1, #n0 = :v2, #n1 = :v3"
    assert r["ExpressionAttributeNames"]["#n0"] == "my-attr"
    assert r["ExpressionAttributeNames"]["#n1"] == "ünï"


def test_placeholders_never_collide() -> None:
    # "n0" is a plain name whose natural placeholder #n0 is also the first
    # generated one for a name that is not plain.
    r = Update().set("a-b", 1).set("n0", 2).set("v0", 3).render()
    names = r["ExpressionAttributeNames"]
    assert sorted(names.values()) == ["a-b", "n0", "v0"]
    assert len(set(names)) == 3
    assert len(r["ExpressionAttributeValues"]) == 3


def test_one_placeholder_per_name() -> None:
    r = Update().set("n", if_not_exists("n", 0) + 1).render()
    assert r["UpdateExpression"] == "SET #n = if_not_exists(#n, :v0) + :v1"
    assert r["ExpressionAttributeNames"] == {"#n": "n"}


def test_arithmetic_and_functions() -> None:
    r = (
        Update()
        .set("a", Path("a") + 1)
        .set("b", 10 - Path("x"))
        .set("c", list_append("c", [1]))
        .set("d", list_append(["first"], Path("d")))
        .set("e", if_not_exists("e", 5) - 1)
        .set("f", Path("g"))
        .set_default("h", "unset")
        .render()
    )
    assert r["UpdateExpression"] == (
        "SET #a = #a + :v0, #b = :v1 - #x, #c = list_append(#c, :v2), "
        "#d = list_append(:v3, #d), #e = if_not_exists(#e, :v4) - :v5, #f = #g, "
        "#h = if_not_exists(#h, :v6)"
    )
    with pytest.raises(TypeError):
        Path("a") + 1 + 2  # DynamoDB allows one + or - per SET action


def test_values_are_wire_form() -> None:
    r = (
        Update()
        .set("s", "x")
        .set("n", Decimal("1.50"))
        .set("f", 0.1)
        .set("b", b"\x01")
        .set("t", True)
        .set("z", None)
        .set("l", [1, "a"])
        .set("m", {"k": 1})
        .add("ns", {3, 1, 2})
        .render()
    )
    assert list(r["ExpressionAttributeValues"].values()) == [
        {"S": "x"},
        {"N": "1.50"},
        {"N": "0.1"},
        {"B": b"\x01"},
        {"BOOL": True},
        {"NULL": True},
        {"L": [{"N": "1"}, {"S": "a"}]},
        {"M": {"k": {"N": "1"}}},
        {"NS": ["1", "2", "3"]},
    ]
    with pytest.raises(TypeError, match="no empty sets"):
        Update().add("s", set())
    with pytest.raises(TypeError):
        Update().set("x", float("nan"))


def test_empty_update_does_not_render() -> None:
    with pytest.raises(ValueError):
        Update().render()
    assert not Update()
    assert repr(Update()) == "Update()"


def test_updates_are_immutable_values() -> None:
    base = Update().set("a", 1)
    more = base.add("b", 1)
    assert len(base) == 1 and len(more) == 2
    assert Update().set("a", 1) == Update().set("a", 1)
    assert Update().set("a", 1) != Update().set("a", 2)
    assert Update().add("s", {"x", "y"}) == Update().add("s", {"y", "x"})
    # Equal when they render the same expression, whatever the call order.
    assert Update().set("a", 1).remove("b").set("c", 2) == Update().set("a", 1).set("c", 2).remove(
        "b"
    )
    assert "SET #a = :v0" in repr(base)


# -- overlaps -------------------------------------------------------------------


def test_overlap_uses_dynamodbs_words() -> None:
    with pytest.raises(tallydb.ValidationException) as caught:
        Update().set("a", 1).set("a.b", 2).render()
    assert caught.value.message == OVERLAP + "path one: [a], path two: [a, b]"


@pytest.mark.parametrize(
    ("update", "message"),
    [
        (Update().set("a", 1).add("a", 1), OVERLAP + "path one: [a], path two: [a]"),
        (
            Update().remove("a[1]").set("a[1]", 1),
            OVERLAP + "path one: [a, [1]], path two: [a, [1]]",
        ),
        (Update().set("a.b", 1).remove("a"), OVERLAP + "path one: [a, b], path two: [a]"),
        (Update().set("a.b", 1).set("a[0]", 1), CONFLICT + "path one: [a, b], path two: [a, [0]]"),
        (
            Update().set(Path.literal("x.y"), 1).set(Path.literal("x.y", "z"), 1),
            OVERLAP + "path one: [x.y], path two: [x.y, z]",
        ),
    ],
)
def test_overlaps_and_conflicts(update: Update, message: str) -> None:
    with pytest.raises(tallydb.ValidationException) as caught:
        update.render()
    assert caught.value.message == message
    assert caught.value.code() == "ValidationException"


def test_no_overlap_between_siblings() -> None:
    Update().set("a.b", 1).set("a.c", 2).set("a.bb", 3).set("l[0]", 1).set("l[1]", 2).render()


def test_merge() -> None:
    one = Update().set("a", 1)
    two = Update().add("n", 1).remove("r")
    merged = one.merge(two)
    assert merged == Update().set("a", 1).add("n", 1).remove("r")
    assert merged.render()["UpdateExpression"] == "SET #a = :v0 ADD #n :v1 REMOVE #r"
    assert one.merge() == one
    with pytest.raises(tallydb.ValidationException) as caught:
        one.merge(Update().set("a", 2))
    assert caught.value.message == OVERLAP + "path one: [a], path two: [a]"


# -- parse ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "update",
    [
        Update().add("play_count", 1).set("last_played", "2026-11-21").remove("draft"),
        Update().set("a.b[2].c", Path("x") + 1).delete("tags", {"t"}),
        Update().set(Path.literal("weird.name"), if_not_exists("w", 3) - Path("q")),
        Update().set("l", list_append("l", [1, 2])).set("m", {"deep": [{"x": None}]}),
        Update().remove("a", "b[3]", Path("c.d")),
    ],
)
def test_parse_gives_back_an_equal_update(update: Update) -> None:
    again = parsed(update)
    assert again == update
    assert again.render() == update.render()


def test_parse_hand_written() -> None:
    u = Update.parse(
        "set #c = #c + :one, views = if_not_exists(views, :zero) + :one  remove draft",
        {"#c": "count"},
        {":one": {"N": "1"}, ":zero": {"N": "0"}},
    )
    assert u == (
        Update()
        .set("count", Path("count") + 1)
        .set("views", if_not_exists("views", 0) + 1)
        .remove("draft")
    )


def test_parse_errors_are_dynamodbs() -> None:
    with pytest.raises(tallydb.ValidationException) as caught:
        Update.parse("SET a = ")
    assert (caught.value.message or "").startswith("Invalid UpdateExpression: Syntax error")
    with pytest.raises(tallydb.ValidationException) as caught:
        Update.parse("SET #a = :v", {}, {":v": {"N": "1"}})
    assert caught.value.message == (
        "An expression attribute name used in the document path is not defined; attribute name: #a"
    )
    with pytest.raises(tallydb.ValidationException) as caught:
        Update.parse("SET a = :v", {}, {})
    assert caught.value.message == (
        "An expression attribute value used in expression is not defined; attribute value: :v"
    )


# -- on a store ---------------------------------------------------------------------


KEY = {"PK": "p", "SK": "s"}


def apply(table: tallydb.Table, update: Update) -> dict[str, Any] | None:
    table.update(KEY, update)
    return table.get(KEY, consistent=True)


def test_store_applies_nested_and_functions(videos: tallydb.Table) -> None:
    videos.put({**KEY, "m": {"l": [1, 2, 3], "n": 1}, "log": ["a"], "tags": {"x", "y"}})
    item = apply(
        videos,
        Update()
        .set("m.l[1]", 20)
        .set("m.n", Path("m.n") + 4)
        .set("log", list_append("log", ["b"]))
        .set("fresh", if_not_exists("fresh", 7))
        .delete("tags", {"x"})
        .add("count", 2),
    )
    assert item == {
        **KEY,
        "m": {"l": [1, 20, 3], "n": 5},
        "log": ["a", "b"],
        "fresh": 7,
        "tags": {"y"},
        "count": 2,
    }


def test_store_reserved_words_and_dotted_names(videos: tallydb.Table) -> None:
    item = apply(
        videos,
        Update().set("size", 1).set("count", 2).set(Path.literal("a.b"), 3).set("my-attr", 4),
    )
    assert item == {**KEY, "size": 1, "count": 2, "a.b": 3, "my-attr": 4}


def test_store_rejects_what_the_builder_rejects(videos: tallydb.Table) -> None:
    """The builder's local overlap check and the store agree (sent by hand)."""
    with pytest.raises(tallydb.ValidationException) as caught:
        videos.update(KEY, "SET a = :one, a.b = :one", values={":one": 1})
    assert "Two document paths overlap with each other" in (caught.value.message or "")
    assert videos.get(KEY, consistent=True) is None


def test_hand_written_condition_alongside_builder(videos: tallydb.Table) -> None:
    videos.put({**KEY, "n": 1})
    # The hand-written string uses #n0 and :v0, the builder's first
    # placeholders: they must not collide.
    videos.update(
        KEY,
        Update().set("x-y", 5).add("n", 1),
        condition="#n0 = :v0",
        names={"#n0": "n"},
        values={":v0": 1},
    )
    assert videos.get(KEY, consistent=True) == {**KEY, "n": 2, "x-y": 5}
    with pytest.raises(tallydb.ConditionalCheckFailedException):
        videos.update(
            KEY, Update().add("n", 1), condition="#n0 = :v0", names={"#n0": "n"}, values={":v0": 1}
        )


@pytest.mark.moto_deviation(
    "overlap of a bare placeholder path (#a) with #a.#b is not caught; moto answers "
    "'The document path provided in the update expression is invalid for update'"
)
def test_store_overlap_with_placeholders(videos: tallydb.Table) -> None:
    with pytest.raises(tallydb.ValidationException) as caught:
        videos.update(
            KEY, "SET #a = :one, #a.#b = :one", names={"#a": "a", "#b": "b"}, values={":one": 1}
        )
    assert caught.value.message == OVERLAP + "path one: [a], path two: [a, b]"


@pytest.mark.moto_deviation("no 'Two document paths conflict' check (a runtime path error instead)")
def test_store_conflict(videos: tallydb.Table) -> None:
    with pytest.raises(tallydb.ValidationException) as caught:
        videos.update(KEY, "SET a.b = :one, a[0] = :one", values={":one": 1})
    assert caught.value.message == CONFLICT + "path one: [a, b], path two: [a, [0]]"


@pytest.mark.moto_deviation("messages carry a '1 validation error detected: ' prefix")
def test_store_overlap_message(videos: tallydb.Table) -> None:
    with pytest.raises(tallydb.ValidationException) as caught:
        videos.update(KEY, "SET a = :one, a.b = :one", values={":one": 1})
    assert caught.value.message == OVERLAP + "path one: [a], path two: [a, b]"
