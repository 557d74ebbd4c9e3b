"""The conditions builder: rendering, misuse, and what each condition means on a store."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

import tallydb
from tallydb import Condition, Path


def rendered(c: Condition) -> str:
    return str(c.render()["ConditionExpression"])


# -- rendering -----------------------------------------------------------------


def test_comparators() -> None:
    a = Path("a")
    assert [rendered(c) for c in (a == 1, a != 1, a < 1, a <= 1, a > 1, a >= 1)] == [
        "#a = :v0",
        "#a <> :v0",
        "#a < :v0",
        "#a <= :v0",
        "#a > :v0",
        "#a >= :v0",
    ]
    assert [rendered(c) for c in (a.eq(1), a.ne(1), a.lt(1), a.lte(1), a.gt(1), a.gte(1))] == [
        "#a = :v0",
        "#a <> :v0",
        "#a < :v0",
        "#a <= :v0",
        "#a > :v0",
        "#a >= :v0",
    ]
    assert rendered(Path("a") > Path("b.c")) == "#a > #b.#c"


def test_functions() -> None:
    assert rendered(Path("a").between(1, 5)) == "#a BETWEEN :v0 AND :v1"
    assert rendered(Path("a").is_in(1, 2, 3)) == "#a IN (:v0, :v1, :v2)"
    assert rendered(Path("a").is_in([1, 2])) == "#a IN (:v0, :v1)"
    assert rendered(Path("a").exists()) == "attribute_exists(#a)"
    assert rendered(Path("a").not_exists()) == "attribute_not_exists(#a)"
    assert rendered(Path("a").attribute_type("N")) == "attribute_type(#a, :v0)"
    assert rendered(Path("a").begins_with("x")) == "begins_with(#a, :v0)"
    assert rendered(Path("a").contains("x")) == "contains(#a, :v0)"
    assert rendered(Path("a").size() > 3) == "size(#a) > :v0"
    assert rendered(Path("a").size().between(1, 2)) == "size(#a) BETWEEN :v0 AND :v1"
    with pytest.raises(ValueError):
        Path("a").attribute_type("STRING")
    with pytest.raises(ValueError):
        Path("a").is_in()


def test_and_or_not_precedence() -> None:
    a, b, c = Path("a") == 1, Path("b") == 2, Path("c") == 3
    assert rendered(a & b | c) == "#a = :v0 AND #b = :v1 OR #c = :v2"
    assert rendered(a & (b | c)) == "#a = :v0 AND (#b = :v1 OR #c = :v2)"
    assert rendered(~(a & b)) == "NOT (#a = :v0 AND #b = :v1)"
    assert rendered(~a) == "NOT #a = :v0"
    assert rendered(a | (b | c)) == "#a = :v0 OR (#b = :v1 OR #c = :v2)"


def test_a_condition_is_not_a_truth_value() -> None:
    """As in PynamoDB: ``if Model.a == 1:`` raises instead of being truthy."""
    with pytest.raises(TypeError, match="no truth value"):
        if Path("a") == 1:
            pass
    with pytest.raises(TypeError):
        bool(Path("a") == 1 and Path("b") == 2)
    with pytest.raises(TypeError):
        bool(Path("a"))

    class M(tallydb.Model, table="m"):
        id: str = tallydb.HashKey()
        a: int = 0

    with pytest.raises(TypeError, match="no truth value"):
        if M.a == 1:
            pass
    assert rendered(M.a == 1) == "#a = :v0"


def test_conditions_are_values() -> None:
    assert (Path("a") == 1) == (Path("a") == 1)
    assert (Path("a") == 1) != (Path("a") == 2)
    assert list((Path("a.b") == 1).paths()) == [("a", "b")]
    assert repr(Path("a") == 1) == "Condition('#a = :v0')"


@pytest.mark.parametrize(
    "condition",
    [
        (Path("a") >= 3) & Path("sku").begins_with("A") & ~Path("hidden").exists(),
        Path("n").between(1, 10) | Path("kind").is_in("a", "b"),
        Path("tags").size() > 2,
        ~((Path("a") == 1) | (Path("b") == 2)) & Path("c").attribute_type("S"),
        Path.literal("odd.name", 0) < Path("x"),
    ],
)
def test_parse_gives_back_an_equal_condition(condition: Condition) -> None:
    r = condition.render()
    again = Condition.parse(
        r["ConditionExpression"],
        r.get("ExpressionAttributeNames"),
        r.get("ExpressionAttributeValues"),
    )
    assert again == condition
    assert again.render() == r


# -- on a store --------------------------------------------------------------------

KEY = {"PK": "p", "SK": "s"}
ITEM = {**KEY, "n": 5, "s": "hello", "l": [1, 2, 3], "ss": {"a", "b"}, "m": {"k": "v"}}


@pytest.mark.parametrize(
    ("build", "holds"),
    [
        (lambda: Path("n") == 5, True),
        (lambda: Path("n") != 5, False),
        (lambda: Path("n") < 6, True),
        (lambda: Path("n") <= 4, False),
        (lambda: Path("n") > 4, True),
        (lambda: Path("n") >= 6, False),
        (lambda: Path("n").between(5, 5), True),
        (lambda: Path("n").is_in(1, 2), False),
        (lambda: Path("s").is_in("x", "hello"), True),
        (lambda: Path("m.k").exists(), True),
        (lambda: Path("m.z").not_exists(), True),
        (lambda: Path("l").attribute_type("L"), True),
        (lambda: Path("s").begins_with("he"), True),
        (lambda: Path("s").contains("ell"), True),
        (lambda: Path("ss").contains("c"), False),
        (lambda: Path("l").size() == 3, True),
        (lambda: Path("l[1]") == 2, True),
        (lambda: (Path("n") == 5) & (Path("s") == "nope"), False),
        (lambda: (Path("n") == 5) & ~(Path("s") == "nope"), True),
        (lambda: (Path("n") == 0) | Path("ss").contains("a"), True),
    ],
)
def test_conditions_hold_on_the_store(
    videos: tallydb.Table, build: Callable[[], Condition], holds: bool
) -> None:
    videos.put(ITEM)
    try:
        videos.put(ITEM, condition=build())
        held = True
    except tallydb.ConditionalCheckFailedException:
        held = False
    assert held is holds


def test_filter_and_key_conditions(videos: tallydb.Table) -> None:
    for i in range(6):
        videos.put({"PK": "p", "SK": f"s#{i}", "n": i})
    videos.put({"PK": "q", "SK": "s#0", "n": 0})
    key = (Path("PK") == "p") & Path("SK").begins_with("s#")
    assert [i["n"] for i in videos.query(key, consistent=True)] == [0, 1, 2, 3, 4, 5]
    assert [i["n"] for i in videos.query(key, filter=Path("n") >= 3, consistent=True)] == [3, 4, 5]
    assert [i["n"] for i in videos.query(key, reverse=True, limit=2, consistent=True)] == [5, 4]
    assert [i["n"] for i in videos.query({"PK": "p"}, page_size=2, consistent=True)] == list(
        range(6)
    )
    assert videos.count({"PK": "p"}, consistent=True) == 6
    assert videos.count(filter=Path("n") == 0, consistent=True) == 2
    assert sorted(i["PK"] for i in videos.scan(Path("n") == 0, consistent=True)) == ["p", "q"]
    between = (Path("PK") == "p") & Path("SK").between("s#2", "s#3")
    assert [i["n"] for i in videos.query(between, projection=["n"], consistent=True)] == [2, 3]


def test_raw_strings_accepted(videos: tallydb.Table) -> None:
    videos.put(ITEM)
    items = list(
        videos.query(
            "PK = :p AND begins_with(SK, :s)",
            filter="#n > :zero",
            names={"#n": "n"},
            values={":p": "p", ":s": "s", ":zero": 0},
            consistent=True,
        )
    )
    assert items == [ITEM]
    with pytest.raises(tallydb.ConditionalCheckFailedException):
        videos.delete(KEY, condition="attribute_not_exists(PK)")


def test_a_comparison_without_parentheses_says_how_to_write_it(videos: tallydb.Table) -> None:
    # As reported: docs/toolkit.md's query raised a bare TypeError (& binds before ==).
    with pytest.raises(TypeError, match=re.escape(
            "put each comparison in parentheses: (Path('PK') == 'VID#9f3a') & ...")):
        Path("PK") == "VID#9f3a" & Path("SK").begins_with("STATS#")  # noqa: B015
    videos.put({"PK": "VID#9f3a", "SK": "STATS#TOTAL"})
    found = videos.query((Path("PK") == "VID#9f3a") & Path("SK").begins_with("STATS#"))
    assert [item["SK"] for item in found] == ["STATS#TOTAL"]
