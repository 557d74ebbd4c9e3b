"""Condition- and FilterExpression: the checks DynamoDB makes before reading
(cases from dynalite's Scan tests, run against DynamoDB) and evaluation."""

from __future__ import annotations

from typing import Any

import pytest

from tallydb.engine.errors import ValidationException
from tallydb.engine.expressions import Placeholders

PREFIX = "Invalid FilterExpression: "
N = lambda n: {"N": str(n)}  # noqa: E731
S = lambda s: {"S": s}  # noqa: E731


def error(text: str, names: dict[str, str] | None = None,
          values: dict[str, Any] | None = None) -> str:
    with pytest.raises(ValidationException) as caught:
        Placeholders(names, values).filter(text)
    assert caught.value.message is not None
    return caught.value.message


def holds(text: str, item: dict[str, Any] | None, values: dict[str, Any] | None = None,
          names: dict[str, str] | None = None) -> bool:
    return Placeholders(names, values).condition(text).holds(item)


@pytest.mark.parametrize("text", [
    "a=a and a > ((views))", "(a)between(((b.c)).d)and(c)", "a > whatever((:things), ((a)))",
    "a=a AND ((a=a AND a=a)) AND a=a", "a=a OR ((a=a OR a=a)) OR a=a",
    "a=a AND ((a=a AND (a=a AND a=a)))", "a=a OR ((a=a OR (a=a OR a=a)))",
])
def test_redundant_parentheses(text: str) -> None:
    # Rule: doubled parentheses are refused, before any other semantic check.
    assert error(text) == PREFIX + "The expression has redundant parentheses;"


@pytest.mark.parametrize(("text", "name"), [
    ("a=a and whatever((:things)) > a", "whatever"),
    ("attRIbute_exIsts((views), #a)", "attRIbute_exIsts"),  # function names are case-sensitive
])
def test_invalid_function_names(text: str, name: str) -> None:
    assert error(text) == PREFIX + f"Invalid function name; function: {name}"


@pytest.mark.parametrize(("text", "name"), [
    ("a=a and attribute_exists((views), (#a)) > b", "attribute_exists"),
    ("attribute_not_exists(things) > b", "attribute_not_exists"),
    ("attribute_type(things, :a) > b", "attribute_type"),
    ("begins_with(things, a) > b", "begins_with"),
    ("contains(:things, c) > b", "contains"),
    ("size(contains(a, b)) > a", "contains"),
    ("size(things)", "size"),
    ("a between b and attribute_exists(things)", "attribute_exists"),
    ("a in (b, attribute_exists(things))", "attribute_exists"),
])
def test_functions_used_the_wrong_way(text: str, name: str) -> None:
    assert error(text) == (
        PREFIX + f"The function is not allowed to be used this way in an expression; "
        f"function: {name}")


@pytest.mark.parametrize(("text", "word"), [
    ("attribute_exists(views, #a)", "views"),  # reserved beats the operand count
    (":a < abOrT", "abOrT"),
])
def test_reserved_words(text: str, word: str) -> None:
    assert error(text) == PREFIX + f"Attribute name is a reserved keyword; reserved keyword: {word}"


@pytest.mark.parametrize(("text", "ref"), [
    ("attribute_exists(#Pictures.RearView, :a) and a=a", "#Pictures"),
    ("begins_with(Pictures.#RearView)", "#RearView"),
    ("(#P between :lo and :hi) and (#PC in (:cat1, :cat2))", "#P"),
    ("#4g > a", "#4g"),
    ("#_ > a", "#_"),
    ("(a)between(b.c[45].#d)and(:a)", "#d"),
])
def test_undefined_names(text: str, ref: str) -> None:
    assert error(text) == (
        PREFIX + "An expression attribute name used in the document path is not defined; "
        f"attribute name: {ref}")


@pytest.mark.parametrize(("text", "ref"), [
    ("begins_with(:hello, #a, #b)", ":hello"),
    (":a < :b", ":a"),
    (":_ > a", ":_"),
])
def test_undefined_values(text: str, ref: str) -> None:
    assert error(text) == (
        PREFIX + "An expression attribute value used in expression is not defined; "
        f"attribute value: {ref}")


@pytest.mark.parametrize(("text", "name", "count"), [
    ("attribute_exists(things, a) and a=a", "attribute_exists", 2),
    ("attribute_not_exists(things, b)", "attribute_not_exists", 2),
    ("attribute_type(things)", "attribute_type", 1),
    ("begins_with(things)", "begins_with", 1),
    ("begins_with(things, size(a), b)", "begins_with", 3),
    ("contains(things)", "contains", 1),
    ("size(things, a) > b", "size", 2),
])
def test_operand_counts(text: str, name: str, count: int) -> None:
    assert error(text) == (
        PREFIX + "Incorrect number of operands for operator or function; "
        f"operator or function: {name}, number of operands: {count}")


@pytest.mark.parametrize(("text", "name", "value"), [
    ("attribute_type(a, size(a)) and a=a and a=:a", "attribute_type", {"N": "1"}),
    ("attribute_type(a, :a)", "attribute_type", {"N": "1"}),
    ("attribute_type(a, :a)", "attribute_type", {"B": "YQ=="}),
    ("attribute_type(a, :a)", "attribute_type", {"BOOL": True}),
    ("attribute_type(a, :a)", "attribute_type", {"L": []}),
    ("attribute_type(a, :a)", "attribute_type", {"SS": ["1"]}),
    ("begins_with(a, size(a)) and a=:a", "begins_with", {"N": "1"}),
    ("begins_with(a, :a)", "begins_with", {"N": "1"}),
    ("begins_with(a, :a)", "begins_with", {"NULL": True}),
    ("begins_with(a, :a)", "begins_with", {"M": {}}),
    ("begins_with(:a, a)", "begins_with", {"BS": ["YQ=="]}),
    ("size(size(a)) > :a", "size", {"N": "1"}),
    ("attribute_not_exists(size(:a))", "size", {"N": "1"}),
    ("size(:a) > a", "size", {"BOOL": True}),
    ("size(:a) > a", "size", {"NULL": True}),
])
def test_operand_types(text: str, name: str, value: dict[str, Any]) -> None:
    kind = next(iter(value))
    assert error(text, None, {":a": value}) == (
        PREFIX + "Incorrect operand type for operator or function; "
        f"operator or function: {name}, operand type: {kind}")


def test_attribute_type_names() -> None:
    assert error("attribute_type(a, :a)", None, {":a": S("1")}) == (
        PREFIX + "Invalid attribute type name found; type: 1, valid types: "
        "{B,NULL,SS,BOOL,L,BS,N,NS,S,M}")
    for name in ["S", "N", "B", "SS", "NS", "BS", "M", "L", "NULL", "BOOL"]:
        Placeholders(None, {":t": S(name)}).filter("attribute_type(a, :t)")


@pytest.mark.parametrize("text", [
    "attribute_exists(:a) and a=a",
    "attribute_not_exists(size(:a))",
])
def test_functions_need_paths(text: str) -> None:
    name = text.split("(")[0]
    assert error(text, None, {":a": S("1")}) == (
        PREFIX + "Operator or function requires a document path; operator or function: "
        f"{name}")


@pytest.mark.parametrize(("text", "operator", "path"), [
    ("a = a AND #a = b AND :views > a", "=", "[a]"),
    ("#a <> a", "<>", "[a]"),
    ("a > #a", ">", "[a]"),
    ("((a=a) OR (a=a))", "=", "[a]"),
    ("((a=a) AND (a=a))", "=", "[a]"),
    ("contains(ab.bc[1].a, ab.bc[1].#a)", "contains", "[ab, bc, [1], a]"),
    ("attribute_type(ab.bc[1].#a, ab.bc[1].a)", "attribute_type", "[ab, bc, [1], a]"),
    ("begins_with(ab.bc[1].a, ab.bc[1].#a)", "begins_with", "[ab, bc, [1], a]"),
])
def test_operands_must_be_distinct(text: str, operator: str, path: str) -> None:
    assert error(text, {"#a": "a"}) == (
        PREFIX + "The first operand must be distinct from the remaining operands for this "
        f"operator or function; operator: {operator}, first operand: {path}")


def test_between_bounds() -> None:
    values = {":a": S("a"), ":b": N(1)}
    assert error("x between :b and :a", None, values) == (
        PREFIX + "The BETWEEN operator requires same data type for lower and upper bounds; "
        "lower bound operand: AttributeValue: {N:1}, upper bound operand: AttributeValue: {S:a}")
    assert error("x between :b and :a", None, {":a": S("a"), ":b": S("b")}) == (
        PREFIX + "The BETWEEN operator requires upper bound to be greater than or equal to "
        "lower bound; lower bound operand: AttributeValue: {S:b}, upper bound operand: "
        "AttributeValue: {S:a}")


def test_in_takes_at_most_100_candidates() -> None:
    values = {f":v{i}": N(i) for i in range(101)}
    text = "a IN (" + ", ".join(values) + ")"
    # DynamoDB's message: "The IN operator is provided with too many operands".
    assert error(text, None, values) == (
        PREFIX + "The IN operator is provided with too many operands; number of operands: 101")
    del values[":v100"]
    assert holds("a IN (" + ", ".join(values) + ")", {"a": N(7)}, values)


def test_condition_prefix() -> None:
    with pytest.raises(ValidationException, match=r"^Invalid ConditionExpression: Syntax error"):
        Placeholders(None, None).condition("a >")


def test_first_condition_with_a_problem_wins() -> None:
    # An undefined value in the third condition loses to the first's problem.
    assert "distinct" in error("a = a AND b = :nope")
    assert "not defined" in error("b = :nope AND a = a")


# -- evaluation ------------------------------------------------------------------


ITEM: dict[str, Any] = {
    "s": S("hello"), "n": N(10), "b": {"B": "aGVsbG8="}, "ss": {"SS": ["x", "y"]},
    "ns": {"NS": ["1", "2"]}, "l": {"L": [S("x"), N(1), {"M": {"k": S("v")}}]},
    "m": {"M": {"k": S("v"), "deep": {"L": [N(5)]}}}, "t": {"BOOL": True}, "z": {"NULL": True},
    "u": S("héllo"),
}


@pytest.mark.parametrize(("text", "values", "expected"), [
    ("n = :v", {":v": N("10.0")}, True),
    ("n <> :v", {":v": N(10)}, False),
    ("n <> :v", {":v": S("10")}, True),  # different types are unequal
    ("n = :v", {":v": S("10")}, False),
    ("n < :v", {":v": S("a")}, False),  # different types do not compare
    ("s < :v", {":v": S("hf")}, True),
    ("s >= :v", {":v": S("hello")}, True),
    ("gone = :v", {":v": N(1)}, False),
    ("gone <> :v", {":v": N(1)}, True),
    ("gone < :v", {":v": N(1)}, False),
    ("n BETWEEN :a AND :b", {":a": N(1), ":b": N(10)}, True),
    ("n BETWEEN :a AND :b", {":a": N(11), ":b": N(20)}, False),
    ("n IN (:a, :b)", {":a": N(3), ":b": N(10)}, True),
    ("n IN (:a, :b)", {":a": N(3), ":b": S("10")}, False),
    ("ss = :v", {":v": {"SS": ["y", "x"]}}, True),
    ("m.deep[0] = :v", {":v": N(5)}, True),
    ("attribute_exists(m.k) AND attribute_not_exists(m.q)", {}, True),
    ("attribute_exists(l[5])", {}, False),
    ("attribute_type(n, :t)", {":t": S("N")}, True),
    ("attribute_type(n, :t)", {":t": S("S")}, False),
    ("attribute_type(z, :t)", {":t": S("NULL")}, True),
    ("begins_with(s, :p)", {":p": S("he")}, True),
    ("begins_with(s, :p)", {":p": S("lo")}, False),
    ("begins_with(b, :p)", {":p": {"B": "aGU="}}, True),
    ("begins_with(n, :p)", {":p": S("1")}, False),
    ("contains(s, :p)", {":p": S("ell")}, True),
    ("contains(ss, :p)", {":p": S("y")}, True),
    ("contains(ss, :p)", {":p": S("q")}, False),
    ("contains(ns, :p)", {":p": N("2.0")}, True),
    ("contains(l, :p)", {":p": N(1)}, True),
    ("contains(l, :p)", {":p": {"M": {"k": S("v")}}}, True),
    ("contains(b, :p)", {":p": {"B": "bGw="}}, True),
    ("contains(n, :p)", {":p": N(1)}, False),
    ("size(s) = :v", {":v": N(5)}, True),
    ("size(u) = :v", {":v": N(6)}, True),  # UTF-8 bytes
    ("size(b) = :v", {":v": N(5)}, True),
    ("size(ss) = :v", {":v": N(2)}, True),
    ("size(l) = :v", {":v": N(3)}, True),
    ("size(m) = :v", {":v": N(2)}, True),
    ("size(n) = :v", {":v": N(2)}, False),  # size of a Number: false, not an error
    ("size(gone) < :v", {":v": N(2)}, False),
    ("NOT n = :v", {":v": N(10)}, False),
    ("n = :v OR s = :w", {":v": N(1), ":w": S("hello")}, True),
    ("n = :v AND s = :w", {":v": N(10), ":w": S("nope")}, False),
    ("t = :v", {":v": {"BOOL": True}}, True),
    ("size(:v) = :w", {":v": S("abc"), ":w": N(3)}, True),  # size of a value is allowed
])
def test_evaluation(text: str, values: dict[str, Any], expected: bool) -> None:
    assert holds(text, ITEM, values) is expected


def test_missing_item_is_an_empty_item() -> None:
    assert holds("attribute_not_exists(a)", None)
    assert not holds("attribute_exists(a)", None)


def test_names_resolve() -> None:
    assert holds("#s = :v", ITEM, {":v": S("hello")}, {"#s": "s"})
    assert holds("#m.#k = :v", ITEM, {":v": S("v")}, {"#m": "m", "#k": "k"})


def test_nested_heads() -> None:
    bound = Placeholders({"#a": "a"}, None).filter("attribute_exists(#a.b) AND c = d")
    assert bound.nested_heads == frozenset({"a"})
    assert bound.attribute_names == frozenset({"a", "c", "d"})


def test_too_many_operators() -> None:
    values = {":v": {"N": "1"}}
    text = " OR ".join(["a = :v"] * 151)  # 151 comparisons + 150 ORs
    assert error(text, None, values) == (
        PREFIX + "The expression contains too many operators; operator count: 301")
    Placeholders(None, values).filter(" OR ".join(["a = :v"] * 150))
