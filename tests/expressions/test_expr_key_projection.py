"""KeyConditionExpression (cases from dynalite's Query tests, run against
DynamoDB) and ProjectionExpression."""

from __future__ import annotations

from typing import Any

import pytest

from tallydb.engine.errors import ValidationException
from tallydb.engine.expressions import KeyPart, Placeholders

N = lambda n: {"N": str(n)}  # noqa: E731
S = lambda s: {"S": s}  # noqa: E731


def key_error(text: str, values: dict[str, Any] | None = None,
              names: dict[str, str] | None = None) -> str:
    with pytest.raises(ValidationException) as caught:
        Placeholders(names, values).key_condition(text)
    assert caught.value.message is not None
    return caught.value.message


def test_key_parts() -> None:
    values = {":h": S("h"), ":lo": N(1), ":hi": N(9)}
    bound = Placeholders({"#s": "sk"}, values).key_condition(
        "pk = :h AND #s BETWEEN :lo AND :hi")
    assert bound.parts == (KeyPart("pk", "=", (S("h"),)),
                           KeyPart("sk", "BETWEEN", (N(1), N(9))))
    assert bound.names == ("pk", "sk")
    assert bound.get("sk") == KeyPart("sk", "BETWEEN", (N(1), N(9)))
    assert bound.holds({"pk": S("h"), "sk": N(5)})
    assert not bound.holds({"pk": S("h"), "sk": N(10)})


@pytest.mark.parametrize(("text", "op"), [
    ("pk = :h AND sk < :v", "<"), ("pk = :h AND sk <= :v", "<="),
    ("pk = :h AND sk > :v", ">"), ("pk = :h AND sk >= :v", ">="),
    # A value on the left flips the comparison.
    ("pk = :h AND :v > sk", "<"), ("pk = :h AND :v <= sk", ">="),
    ("pk = :h AND begins_with(sk, :v)", "begins_with"),
])
def test_key_operators(text: str, op: str) -> None:
    bound = Placeholders(None, {":h": S("h"), ":v": S("v")}).key_condition(text)
    assert bound.parts[1] == KeyPart("sk", op, (S("v"),))  # type: ignore[arg-type]


@pytest.mark.parametrize(("text", "operator"), [
    ("a > b and size(b) > c or a > c", "OR"),
    ("a in (b, size(c), d)", "IN"),
    ("attribute_exists(a)", "attribute_exists"),
    ("attribute_not_exists(a)", "attribute_not_exists"),
    ("contains(a.d, b)", "contains"),
    ("not a > b", "NOT"),
    ("a <> b", "<>"),
])
def test_invalid_key_operators(text: str, operator: str) -> None:
    # Sent without the "Invalid KeyConditionExpression: " prefix.
    assert key_error(text) == f"Invalid operator used in KeyConditionExpression: {operator}"


def test_attribute_type_in_key_condition() -> None:
    assert key_error("attribute_type(a, :a)", {":a": S("S")}) == (
        "Invalid operator used in KeyConditionExpression: attribute_type")
    # The condition's own checks come first, with the prefix.
    assert key_error("attribute_type(a, b)").startswith(
        "Invalid KeyConditionExpression: Incorrect operand type for operator or function; "
        "operator or function: attribute_type, operand type:")


@pytest.mark.parametrize(("text", "operator"), [
    (":a between size(b) and size(a) and b > :b", "BETWEEN"),
    ("begins_with(:a, b) and a > :b", "begins_with"),
])
def test_key_attribute_first(text: str, operator: str) -> None:
    assert key_error(text, {":a": S("1"), ":b": S("1")}) == (
        f"Invalid condition in KeyConditionExpression: {operator} operator must have the key "
        "attribute as its first operand")


@pytest.mark.parametrize(("text", "message"), [
    ("size(b) > a AND a.b > b AND b > c", "KeyConditionExpressions cannot contain nested "
     "operations"),
    ("a > size(b.d)", "KeyConditionExpressions cannot contain nested operations"),
    ("a between size(b) and size(a)", "KeyConditionExpressions cannot contain nested "
     "operations"),
    ("b > a.b", "Invalid condition in KeyConditionExpression: Multiple attribute names used "
     "in one condition"),
    ("b between c[1] and d", "Invalid condition in KeyConditionExpression: Multiple attribute "
     "names used in one condition"),
    ("begins_with(a, b)", "Invalid condition in KeyConditionExpression: Multiple attribute "
     "names used in one condition"),
    ("b.d > a AND c.d > e.f", "KeyConditionExpressions cannot have conditions on nested "
     "attributes"),
    ("a.d > c", "KeyConditionExpressions cannot have conditions on nested attributes"),
    ("b[0] > a", "KeyConditionExpressions cannot have conditions on nested attributes"),
])
def test_key_condition_shapes(text: str, message: str) -> None:
    assert key_error(text) == message


def test_no_key_attribute_and_one_per_key() -> None:
    values = {":a": N(1), ":b": N(1)}
    for text in [":b > :a AND a < :b", ":a > b AND :a < :b"]:
        assert key_error(text, values) == (
            "Invalid condition in KeyConditionExpression: No key attribute specified")
    for text in ["b > :a AND b < :a and c = :a and d = :a",
                 "(a > :a and b > :a) and (b > :a and c > :a)"]:
        assert key_error(text, values) == (
            "KeyConditionExpressions must only contain one condition per key")


def test_one_text_takes_its_shape_from_the_names_of_each_request() -> None:
    """The same KeyConditionExpression, names and values differing from
    request to request: each binds (or fails) by its own."""
    text = "#a = :h AND #b > :v"
    for names, values, parts in [
        ({"#a": "pk", "#b": "sk"}, {":h": S("x"), ":v": N(1)},
         (KeyPart("pk", "=", (S("x"),)), KeyPart("sk", ">", (N(1),)))),
        ({"#a": "sk", "#b": "pk"}, {":h": N(2), ":v": S("y")},
         (KeyPart("sk", "=", (N(2),)), KeyPart("pk", ">", (S("y"),)))),
    ]:
        assert Placeholders(names, values).key_condition(text).parts == parts
    values = {":h": S("x"), ":v": N(1)}
    for _ in range(2):
        assert key_error(text, values, {"#a": "pk", "#b": "pk"}) == (
            "KeyConditionExpressions must only contain one condition per key")
        assert Placeholders({"#a": "pk", "#b": "sk"}, values).key_condition(text).names == (
            "pk", "sk")


def test_key_between_bounds() -> None:
    assert key_error("a between :b and :a", {":a": S("a"), ":b": N(1)}) == (
        "Invalid KeyConditionExpression: The BETWEEN operator requires same data type for "
        "lower and upper bounds; lower bound operand: AttributeValue: {N:1}, upper bound "
        "operand: AttributeValue: {S:a}")
    assert key_error("a between :b and :a", {":a": S("a"), ":b": S("b")}) == (
        "Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be "
        "greater than or equal to lower bound; lower bound operand: AttributeValue: {S:b}, "
        "upper bound operand: AttributeValue: {S:a}")


def test_key_syntax_errors() -> None:
    # A real DynamoDB answer: 'Invalid KeyConditionExpression: Syntax error;
    # token: "<EOF>", near: ":type"'.
    assert key_error("pk = :h AND begins_with(sk, :type", {":h": S("h"), ":type": S("t")}) == (
        'Invalid KeyConditionExpression: Syntax error; token: "<EOF>", near: ":type"')


# -- ProjectionExpression -------------------------------------------------------------

ITEM: dict[str, Any] = {
    "a": N(1), "b": {"M": {"c": N(2), "d": {"L": [N(3), N(4), {"M": {"e": N(5), "f": N(6)}}]}}},
    "l": {"L": [S("x"), S("y"), S("z")]},
}


@pytest.mark.parametrize(("text", "expected"), [
    ("a", {"a": N(1)}),
    ("a, gone", {"a": N(1)}),
    ("b.c", {"b": {"M": {"c": N(2)}}}),
    ("b.d[1]", {"b": {"M": {"d": {"L": [N(4)]}}}}),
    ("b.d[2].e, b.c", {"b": {"M": {"d": {"L": [{"M": {"e": N(5)}}]}, "c": N(2)}}}),
    ("l[2], l[0]", {"l": {"L": [S("x"), S("z")]}}),  # index order, packed
    ("l[7]", {}),
    ("a.x", {}),
    ("b.d[2].e, b.d[2].f", {"b": {"M": {"d": {"L": [{"M": {"e": N(5), "f": N(6)}}]}}}}),
])
def test_projection(text: str, expected: dict[str, Any]) -> None:
    assert Placeholders(None, None).projection(text).apply(ITEM) == expected


def test_projection_names() -> None:
    bound = Placeholders({"#b": "b", "#d": "d"}, None).projection("#b.#d[0], a")
    assert bound.apply(ITEM) == {"b": {"M": {"d": {"L": [N(3)]}}}, "a": N(1)}
    assert bound.attribute_names == ("b", "a")


@pytest.mark.parametrize(("text", "message"), [
    ("a, b.name", "Attribute name is a reserved keyword; reserved keyword: name"),
    ("a, #x", "An expression attribute name used in the document path is not defined; "
     "attribute name: #x"),
    ("a, a", "Two document paths overlap with each other; must remove or rewrite one of "
     "these paths; path one: [a], path two: [a]"),
    ("b.c, b", "Two document paths overlap with each other; must remove or rewrite one of "
     "these paths; path one: [b, c], path two: [b]"),
    ("b[0], b.c", "Two document paths conflict with each other; must remove or rewrite one "
     "of these paths; path one: [b, [0]], path two: [b, c]"),
    ("a b", 'Syntax error; token: "b", near: "a b"'),
    ("a,", 'Syntax error; token: "<EOF>", near: ","'),
])
def test_projection_errors(text: str, message: str) -> None:
    with pytest.raises(ValidationException) as caught:
        Placeholders(None, None).projection(text)
    assert caught.value.message == f"Invalid ProjectionExpression: {message}"


def test_projection_uses_names() -> None:
    p = Placeholders({"#a": "a", "#z": "z"}, None)
    p.projection("#a")
    with pytest.raises(ValidationException, match=r"ExpressionAttributeNames unused.*\{#z\}"):
        p.check_unused()
