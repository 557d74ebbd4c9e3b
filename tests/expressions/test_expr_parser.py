"""The tokenizer and parser: trees, precedence, and DynamoDB's syntax errors.

Syntax errors name the offending token and quote ``near`` it: the text from
the token before to the token after (DynamoDB answers, e.g.,
``token: "/", near: "numx / :v"`` and ``token: "<EOF>", near: ":theme"``).
"""

from __future__ import annotations

import pytest

from tallydb.engine.errors import ValidationException
from tallydb.engine.expressions import Placeholders, ast, parse_condition, parse_update
from tallydb.engine.expressions.lexer import tokenize


def update_error(text: str) -> str:
    with pytest.raises(ValidationException) as caught:
        Placeholders({"#a": "a"}, {":v": {"N": "1"}}).update(text)
    assert caught.value.message is not None
    return caught.value.message


def filter_error(text: str) -> str:
    with pytest.raises(ValidationException) as caught:
        Placeholders(None, None).filter(text)
    assert caught.value.message is not None
    return caught.value.message


def test_tokens_keep_spans() -> None:
    tokens = tokenize("SET a.b[1] = :v")
    assert [t.text for t in tokens] == ["SET", "a", ".", "b", "[", "1", "]", "=", ":v", ""]
    assert tokens[1].start == 4


@pytest.mark.parametrize(("text", "token", "near"), [
    # DynamoDB: the token after which the text ends is quoted alone.
    ("SET a", "<EOF>", "a"),
    ("SET a = ", "<EOF>", "= "),
    ("SET a = b +", "<EOF>", "+"),
    ("SET a = :v,", "<EOF>", ","),
    # "SET path = VALUE 1" -> token "1", near "VALUE 1" (moto, from DynamoDB).
    ("SET path = VALUE 1", "1", "VALUE 1"),
    # An unsupported operator: near spans the tokens around it.
    ("SET a = numx / :v", "/", "numx / :v"),
    ("SET a = b * c", "*", "b * c"),
    # Attribute names cannot start with an underscore (moto, from DynamoDB).
    ("SET attrName = _idid", "_", "= _idid"),
    ("whatever", "whatever", "whatever"),
    ("SET a = b + c + d", "+", "c + d"),
    ("SET if_not_exist(a, b) = a", "(", "if_not_exist(a"),
    ("set a=set", "set", "=set"),
    ("remove a = b", "=", "a = b"),
    ("delete a b", "b", "a b"),
    ("set :a = b", ":a", "set :a ="),
    ("set a[1] = 1", "1", "= 1"),
    ('set a[1] = "eight"', '"', '= "eight'),
])
def test_update_syntax_errors(text: str, token: str, near: str) -> None:
    assert update_error(text) == (
        f'Invalid UpdateExpression: Syntax error; token: "{token}", near: "{near}"')


@pytest.mark.parametrize("text", [
    # dynalite's list of expressions DynamoDB refuses as syntax errors.
    "add a", "delete a", "add a = b", "delete a = b", "delete a if_not_exist(b)",
    "add abort b", "add a if_not_exist(b)", "remove a b", "set a b", "add :a b",
    "delete :a b", "remove :a", "SET a = if_not_exist(a, 100)", "set (a = (b + c))",
    "set a = (b.c).d + e", "set a = (b.c)[0] + e",
])
def test_update_syntax_errors_dynalite(text: str) -> None:
    assert update_error(text).startswith("Invalid UpdateExpression: Syntax error; token: ")


@pytest.mark.parametrize("text", [
    "things are not gonna be ok", "a > 4", "attribute_exists(Pictures-RearView)",
    'attribute_exists("Pictures.RearView")', "attribute_exists(Pictures..RearView)",
    "attribute_exists(Pi#ctures.RearView)", "attribute_exists(asdf[a])", "a.:a < b.:b",
    "a in b, c", "a > between", "a in b", "a in (b,c,)", "(a)between(b.(c.d))and(c)",
    "(a)between(b.c.d)and((c)", "#$.b > a", "a > :things.stuff", "b[:a] > a", "b[#_] > a",
    "ü > a", "(a)between(b.c[4.5].#d)and(:a)", "size(a).b > a", "(size(a)).b > a",
    "size(a)[0] > a", "(size(a))[0] > a",
])
def test_filter_syntax_errors_dynalite(text: str) -> None:
    # dynalite's list, each a syntax error in DynamoDB.
    assert filter_error(text).startswith("Invalid FilterExpression: Syntax error; token: ")


@pytest.mark.parametrize(("text", "token", "near"), [
    # Seen in DynamoDB answers: the last token before the end.
    ("contains (themes, :theme", "<EOF>", ":theme"),
    ("attribute_not_exists(", "<EOF>", "("),
    ("a > 4", "4", "> 4"),
])
def test_condition_syntax_error_positions(text: str, token: str, near: str) -> None:
    assert filter_error(text) == (
        f'Invalid FilterExpression: Syntax error; token: "{token}", near: "{near}"')


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_empty_expressions(text: str) -> None:
    # "Invalid UpdateExpression: The expression can not be empty;"
    assert update_error(text) == "Invalid UpdateExpression: The expression can not be empty;"
    assert filter_error(text) == "Invalid FilterExpression: The expression can not be empty;"
    with pytest.raises(ValidationException, match=r"^Invalid ProjectionExpression: The "
                       r"expression can not be empty;$"):
        Placeholders(None, None).projection(text)


def test_keywords_are_case_insensitive() -> None:
    tree = parse_update("set a = :v remove b Add c :v dElEtE d :v")
    assert [c.keyword for c in tree.clauses] == ["SET", "REMOVE", "ADD", "DELETE"]
    condition = parse_condition("a = :v and not b = :v Or c between :v AnD :v").tree
    assert isinstance(condition, ast.Or)


def test_precedence_not_and_or() -> None:
    # Comparisons bind tightest, then NOT, then AND, then OR.
    tree = parse_condition("NOT a = :v AND b = :v OR c = :v").tree
    assert isinstance(tree, ast.Or)
    assert isinstance(tree.left, ast.And)
    assert isinstance(tree.left.left, ast.Not)
    tree = parse_condition("a = :v OR b = :v AND c = :v").tree
    assert isinstance(tree, ast.Or) and isinstance(tree.right, ast.And)


def test_parentheses_group() -> None:
    tree = parse_condition("(a = :v OR b = :v) AND c = :v").tree
    assert isinstance(tree, ast.And) and isinstance(tree.left, ast.Or)


def test_parenthesised_operands_and_values() -> None:
    # '(a)between(b.c.d)and(c)' is fine; 'set b.c=((c[1])+(b.a))' too.
    tree = parse_condition("(a)between(b.c.d)and(c)").tree
    assert tree == ast.Between(ast.path("a"), ast.path("b", "c", "d"), ast.path("c"))
    update = parse_update("set b.c=((c[1])+(b.a))")
    action = update.clauses[0].actions[0]
    assert isinstance(action, ast.SetAction)
    assert action.value == ast.Arithmetic("+", ast.path("c", 1), ast.path("b", "a"))
    assert parse_update("SET a = (b) + c").render() == "SET a = b + c"


def test_function_call_as_condition_in_parentheses() -> None:
    tree = parse_condition("(attribute_exists(a)) AND b = :v").tree
    assert isinstance(tree, ast.And) and isinstance(tree.left, ast.Call)


def test_render_round_trip_examples() -> None:
    for text in [
        "SET a = :v, b.c[2] = if_not_exists(b.c[2], :z) + :one REMOVE d[0], #e.f",
        "ADD n :one DELETE s :gone SET l = list_append(l, :more)",
    ]:
        assert parse_update(text).render() == text
    for text in [
        "a = :v AND (b < :w OR NOT c.d[1] >= :x)",
        "attribute_exists(#p) AND size(l) BETWEEN :lo AND :hi",
        "x IN (:a, :b, :c) OR begins_with(s, :p)",
        "NOT (a = :v AND b = :v)",
    ]:
        assert parse_condition(text).tree.render() == text


def test_parse_cache_reuses_trees() -> None:
    assert parse_update("ADD cached :one") is parse_update("ADD cached :one")


def test_expressions_over_4kb_are_refused() -> None:
    # DynamoDB: "Invalid FilterExpression: Expression size has exceeded the
    # maximum allowed size; expression size: 5872" (4 KB limit, in bytes).
    text = "a = :v AND " * 400 + "a = :v"
    assert filter_error(text) == (
        "Invalid FilterExpression: Expression size has exceeded the maximum allowed size; "
        f"expression size: {len(text)}")
    exactly = "SET a = :v" + " " * (4096 - len("SET a = :v"))
    Placeholders(None, {":v": {"N": "1"}}).update(exactly)
