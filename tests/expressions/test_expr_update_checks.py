"""UpdateExpression checks made before any item is read, with DynamoDB's
messages and in DynamoDB's order. Cases come from dynalite's UpdateItem
tests (run against DynamoDB) unless a comment says otherwise."""

from __future__ import annotations

from typing import Any

import pytest

from tallydb.engine.errors import ValidationException
from tallydb.engine.expressions import Placeholders
from tallydb.engine.expressions.messages import ACTION_TYPE_SET_SUFFIX

VALUES: dict[str, Any] = {
    ":a": {"S": "a"}, ":b": {"N": "1"}, ":c": {"B": "YQ=="}, ":d": {"BOOL": False},
    ":e": {"NULL": True}, ":f": {"SS": ["a"]}, ":g": {"NS": ["1"]}, ":h": {"BS": ["YQ=="]},
    ":i": {"M": {}}, ":j": {"L": []},
}


def error(text: str, names: dict[str, str] | None = None,
          values: dict[str, Any] | None = None) -> str:
    with pytest.raises(ValidationException) as caught:
        Placeholders(names, values).update(text)
    assert caught.value.message is not None
    return caught.value.message


PREFIX = "Invalid UpdateExpression: "


@pytest.mark.parametrize(("text", "word"), [
    (" set #c = :c set abOrt = true ", "abOrt"),  # reserved beats the repeated section
    (" remove Absolute ", "Absolute"),
    ("SET a = name", "name"),
])
def test_reserved_words(text: str, word: str) -> None:
    # Rule: a bare attribute name may not be a reserved word (any case).
    assert error(text, {"#a": "a"}, {":a": {"S": "a"}}) == (
        PREFIX + f"Attribute name is a reserved keyword; reserved keyword: {word}")


def test_unknown_function() -> None:
    # Rule: only if_not_exists and list_append exist in updates.
    assert error("set #c = if_not_exist(:c) set c = d") == (
        PREFIX + "Invalid function name; function: if_not_exist")
    assert error("set a = size(b)") == PREFIX + "Invalid function name; function: size"


@pytest.mark.parametrize(("text", "keyword"), [
    ("set a = #c set c = :d", "SET"),
    ("remove #d set a = b remove e", "REMOVE"),
    ("add #d :e set a = b add e :f", "ADD"),
    ("delete #d :e set a = b delete #e :f", "DELETE"),
])
def test_each_section_once(text: str, keyword: str) -> None:
    # Rule: each clause at most once (checked before placeholders).
    assert error(text) == (
        PREFIX + f'The "{keyword}" section can only be used once in an update expression;')


def test_undefined_name_and_value() -> None:
    # Rule: every #name and :value used must be defined; names are reported first.
    assert error("SET #c = if_not_exists(:c)", {"#a": "a"}, {":a": {"S": "a"}}) == (
        PREFIX + "An expression attribute name used in the document path is not defined; "
        "attribute name: #c")
    assert error("SET #a = if_not_exists(:c)", {"#a": "a"}, {":a": {"S": "a"}}) == (
        PREFIX + "An expression attribute value used in expression is not defined; "
        "attribute value: :c")


@pytest.mark.parametrize(("text", "one", "two"), [
    ("set d[1] = a, d.b = a, c[1].a = a, #c = if_not_exists(a)", "[c, [1], a]", "[c]"),
    ("set c.b.#c = a, c = a, #d = a", "[c, b, c]", "[c]"),
    ("set a = b remove a, #c, #d", "[a]", "[a]"),
    ("set #c[3].#d = a, #c[3] = a", "[c, [3], [3]]", "[c, [3]]"),
    ("remove c, #c.a, #d", "[c]", "[c, a]"),
    ("remove a, #c, a, #d", "[a]", "[a]"),
])
def test_overlapping_paths(text: str, one: str, two: str) -> None:
    # Rule: no path may be another or lie inside it; any overlap is reported
    # before a conflict, and before function misuse.
    assert error(text, {"#c": "c", "#d": "[3]"}) == (
        PREFIX + "Two document paths overlap with each other; must remove or rewrite one of "
        f"these paths; path one: {one}, path two: {two}")


@pytest.mark.parametrize(("text", "one", "two"), [
    ("set #c[3].#d = a, #c.#d[3] = if_not_exists(a)", "[c, [3], [3]]", "[c, [3], [3]]"),
    ("remove a.#c set a[1] = #d", "[a, c]", "[a, [1]]"),
])
def test_conflicting_paths(text: str, one: str, two: str) -> None:
    # Rule: one path may not index a list where another names a map key.
    assert error(text, {"#b": "b", "#c": "c", "#d": "[3]"}) == (
        PREFIX + "Two document paths conflict with each other; must remove or rewrite one of "
        f"these paths; path one: {one}, path two: {two}")


@pytest.mark.parametrize(("text", "value", "keyword", "type_name"), [
    ("set b = list_append(:a, a), c = if_not_exists(a) add a.b :a", {"S": "a"}, "ADD",
     "STRING"),
    ("delete a.b :a", {"S": "a"}, "DELETE", "STRING"),
    ("add a.b :a", {"NULL": True}, "ADD", "NULL"),
    ("delete a.b :a", {"NULL": True}, "DELETE", "NULL"),
    ("add a.b :a", {"BOOL": False}, "ADD", "BOOLEAN"),
    ("delete a.b :a", {"BOOL": False}, "DELETE", "BOOLEAN"),
    ("add a.b :a", {"B": "YQ=="}, "ADD", "BINARY"),
    ("delete a.b :a", {"B": "YQ=="}, "DELETE", "BINARY"),
    ("add a.b :a", {"M": {"a": {"L": [{"N": "1"}]}}}, "ADD", "MAP"),
    ("delete a.b :a", {"M": {"a": {"L": [{"N": "1"}]}}}, "DELETE", "MAP"),
    ("add a.b :a", {"L": [{"N": "1"}]}, "ADD", "LIST"),
    ("delete a.b :a", {"L": [{"N": "1"}]}, "DELETE", "LIST"),
    ("delete a.b :a", {"N": "1"}, "DELETE", "NUMBER"),
])
def test_add_delete_operand_types(text: str, value: Any, keyword: str, type_name: str) -> None:
    # Rule: ADD takes a number or a set, DELETE a set; checked before functions
    # (dynalite). DynamoDB Local appends the allowed type set's name, as in
    # "operator: DELETE, operand type: STRING, typeSet: ALLOWED_FOR_DELETE_OPERAND"
    # (see messages.ACTION_TYPE_SET_SUFFIX).
    suffix = f", typeSet: ALLOWED_FOR_{keyword}_OPERAND" if ACTION_TYPE_SET_SUFFIX else ""
    assert error(text, None, {":a": value, ":b": {"S": "a"}}) == (
        PREFIX + f"Incorrect operand type for operator or function; operator: {keyword}, "
        f"operand type: {type_name}{suffix}")


@pytest.mark.parametrize(("text", "count"), [
    ("set a = if_not_exists(c)", 1),
    ("set a = list_append(c)", 1),
    ("set a = list_append(b, c, d)", 3),
])
def test_function_operand_counts(text: str, count: int) -> None:
    name = text.split("= ")[1].split("(")[0]
    assert error(text) == (
        PREFIX + "Incorrect number of operands for operator or function; "
        f"operator or function: {name}, number of operands: {count}")


@pytest.mark.parametrize("text", [
    "set a = if_not_exists(:a, c)",
    "set a = if_not_exists(if_not_exists(a, b), c)",
])
def test_if_not_exists_needs_a_path(text: str) -> None:
    assert error(text, None, {":a": {"S": "a"}}) == (
        PREFIX + "Operator or function requires a document path; operator or function: "
        "if_not_exists")


@pytest.mark.parametrize(("text", "function", "type_code"), [
    ("set a = list_append(:a, a)", "list_append", "S"),
    ("set a = list_append(a, :b)", "list_append", "N"),
    ("set a = list_append(:c, a)", "list_append", "B"),
    ("set a = list_append(:d, a)", "list_append", "BOOL"),
    ("set a = list_append(:e, a)", "list_append", "NULL"),
    ("set a = list_append(:f, a)", "list_append", "SS"),
    ("set a = list_append(:g, a)", "list_append", "NS"),
    ("set a = list_append(:h, a)", "list_append", "BS"),
    ("set a = list_append(:i, a)", "list_append", "M"),
    ("set a = a + :a", "+", "S"),
    ("set a = :a + :c", "+", "S"),
    ("set a = :c + a", "+", "B"),
    ("set a = a + :d", "+", "BOOL"),
    ("set a = a + :e", "+", "NULL"),
    ("set a = a + :f", "+", "SS"),
    ("set a = a + :g", "+", "NS"),
    ("set a = a + :h", "+", "BS"),
    ("set a = a + :i", "+", "M"),
    ("set a = a + :j", "+", "L"),
    ("set a = a - :a", "-", "S"),
    ("set a = :a - :c", "-", "S"),
    ("set a = :c - a", "-", "B"),
    ("set a = a - :j", "-", "L"),
])
def test_function_operand_types(text: str, function: str, type_code: str) -> None:
    # Rule: + and - take Numbers, list_append Lists (values known in advance).
    assert error(text, None, VALUES) == (
        PREFIX + "Incorrect operand type for operator or function; "
        f"operator or function: {function}, operand type: {type_code}")


def test_valid_functions_pass() -> None:
    Placeholders(None, VALUES).update(
        "SET a = if_not_exists(a, :b) + :b, l = list_append(if_not_exists(l, :j), :j), "
        "m = if_not_exists(m, if_not_exists(n, :a))")


def test_unused_placeholders() -> None:
    # Rule: names first, then values; keys in the order given.
    p = Placeholders({"#a": "a", "#b": "b"}, {":a": {"S": "a"}, ":b": {"S": "a"}})
    p.update("remove a set b = list_append(b, if_not_exists(a, :a))")
    p.condition("a = :b")
    with pytest.raises(ValidationException) as caught:
        p.check_unused()
    assert caught.value.message == (
        "Value provided in ExpressionAttributeNames unused in expressions: keys: {#a, #b}")
    p = Placeholders(None, {":a": {"S": "a"}, ":b": {"S": "a"}, ":c": {"S": "a"}})
    p.update("remove a")
    p.condition("a = :b")
    with pytest.raises(ValidationException) as caught:
        p.check_unused()
    assert caught.value.message == (
        "Value provided in ExpressionAttributeValues unused in expressions: keys: {:a, :c}")


def test_used_everywhere_passes() -> None:
    p = Placeholders({"#n": "n"}, {":one": {"N": "1"}})
    p.update("ADD #n :one")
    p.check_unused()


@pytest.mark.parametrize("text", [
    "add a.b :a", "remove d set b = :a, a = :a", "set a = a.b + a[1]",
])
def test_key_attributes_cannot_change(text: str) -> None:
    # Rule: "Cannot update attribute a. This attribute is part of the key".
    bound = Placeholders(None, {":a": {"N": "1"}}).update(text)
    with pytest.raises(ValidationException) as caught:
        bound.check_key_unchanged(["a"])
    assert caught.value.message == ("One or more parameter values were invalid: "
                                    "Cannot update attribute a. This attribute is part of "
                                    "the key")


def test_key_check_reports_hash_before_range() -> None:
    bound = Placeholders(None, {":a": {"N": "1"}}).update("set b = :a, a = :a")
    with pytest.raises(ValidationException, match="Cannot update attribute a"):
        bound.check_key_unchanged(["a", "b"])
    Placeholders(None, {":a": {"N": "1"}}).update("set c = :a").check_key_unchanged(["a", "b"])


def test_nested_heads_and_assigned_types() -> None:
    bound = Placeholders(None, {":a": {"N": "1"}, ":l": {"L": []}}).update(
        "set e = list_append(a, :l), f = d[1], c = :a, g = c + :a, h = if_not_exists(h, :l)")
    assert bound.nested_heads == frozenset({"d"})
    assert bound.assigned_type("c") == "N"
    assert bound.assigned_type("e") == "L"
    assert bound.assigned_type("g") == "N"
    assert bound.assigned_type("h") == "L"
    assert bound.assigned_type("f") is None
    assert bound.assigned_type("zzz") is None


def test_too_many_operators() -> None:
    # "The expression contains too many operators; operator count: 301" (300 at most).
    values = {":v": {"N": "1"}}
    Placeholders(None, values).update("SET " + ",".join(f"x{i}=:v+:v" for i in range(300)))
    parts = ",".join(f"x{i}=:v+:v" for i in range(301))
    assert error("SET " + parts, None, values) == (
        PREFIX + "The expression contains too many operators; operator count: 301")


def test_list_index_and_path_depth_limits() -> None:
    assert error("SET a[2147483648] = :v", None, {":v": {"N": "1"}}) == (
        PREFIX + "List index is not within the allowable range; index: [2147483648]")
    deep = "a" + ".b" * 32
    assert error(f"SET {deep} = :v", None, {":v": {"N": "1"}}) == (
        PREFIX + "The document path has too many nesting levels; nesting levels: 33")
    Placeholders(None, {":v": {"N": "1"}}).update("SET a" + ".b" * 31 + " = :v")
