"""The answer for an expression nested deeper than the parser descends.

The parser is recursive, so it stops at a fixed depth (``MAX_DEPTH``, in
Python frames) rather than exhaust the interpreter's stack. Under the 4 KB
expression limit, every expression that deep is one DynamoDB refuses
anyway: it repeats parentheses, calls an unknown function or holds more
than 300 operators. Such an expression is judged from its tokens alone, in
the order DynamoDB reports problems: unbalanced parentheses (a syntax
error), then for a condition redundant parentheses, an unknown function, a
reserved word; for an update a reserved word, then an unknown function;
then too many operators.

An expression that deep with none of these (e.g. 150 nested
``NOT (...)``) has no DynamoDB answer on record: it gets a syntax error at
the token where the parser stopped, tallydb's own bound.
"""

from __future__ import annotations

from tallydb.engine.expressions.functions import (
    CONDITION_FUNCTIONS,
    MAX_OPERATORS,
    UPDATE_FUNCTIONS,
)
from tallydb.engine.expressions.lexer import NAME, OP, Token, near, token_text
from tallydb.engine.expressions.messages import (
    REDUNDANT_PARENS,
    invalid_function,
    reserved_keyword,
    syntax_error,
    too_many_operators,
)
from tallydb.engine.expressions.reserved import is_reserved

#: Python frames the parser may use below its entry point; with the
#: caller's own frames this stays well inside the default limit of 1000.
MAX_DEPTH = 600

_CONDITION_KEYWORDS = frozenset({"AND", "OR", "NOT", "BETWEEN", "IN"})
_UPDATE_KEYWORDS = frozenset({"SET", "REMOVE", "ADD", "DELETE"})
_COMPARATORS = frozenset({"=", "<>", "<", "<=", ">", ">="})
#: Keywords a parenthesis may follow without being a call's or IN's.
_GROUPING = frozenset({"AND", "OR", "NOT", "BETWEEN"})


def too_deep(text: str, tokens: list[Token], stop: int, *, condition: bool) -> str:
    """The error for an expression the parser stopped in at token ``stop``."""
    matches: dict[int, int] = {}
    opened: list[int] = []
    for index, token in enumerate(tokens):
        if token.kind != OP:
            continue
        if token.text == "(":
            opened.append(index)
        elif token.text == ")":
            if not opened:
                return _syntax(text, tokens, index)
            matches[opened.pop()] = index
    if opened:
        return _syntax(text, tokens, len(tokens) - 1)
    keywords = _CONDITION_KEYWORDS if condition else _UPDATE_KEYWORDS
    if condition and _redundant(tokens, matches):
        return REDUNDANT_PARENS
    reserved = _reserved(tokens, keywords)
    if not condition and reserved is not None:
        return reserved_keyword(reserved)
    known = CONDITION_FUNCTIONS.keys() | UPDATE_FUNCTIONS.keys() if condition else UPDATE_FUNCTIONS
    for index, token in enumerate(tokens[:-1]):
        if _is_call(tokens, index, keywords) and token.text not in known:
            return invalid_function(token.text)
    if reserved is not None:
        return reserved_keyword(reserved)
    if _operators(tokens, keywords, condition) > MAX_OPERATORS:
        return too_many_operators(MAX_OPERATORS + 1)
    return _syntax(text, tokens, stop)


def _syntax(text: str, tokens: list[Token], index: int) -> str:
    return syntax_error(token_text(tokens[index]), near(text, tokens, index))


def _is_call(tokens: list[Token], index: int, keywords: frozenset[str]) -> bool:
    token, after = tokens[index], tokens[index + 1]
    return (token.kind == NAME and token.upper not in keywords
            and after.kind == OP and after.text == "(")


def _redundant(tokens: list[Token], matches: dict[int, int]) -> bool:
    """A parenthesis pair directly around another, neither a call's nor IN's."""
    for outer, close in matches.items():
        inner = outer + 1
        if matches.get(inner) != close - 1:
            continue
        before = tokens[outer - 1] if outer else None
        if before is None or before.kind != NAME or before.upper in _GROUPING:
            return True
    return False


def _reserved(tokens: list[Token], keywords: frozenset[str]) -> str | None:
    for index, token in enumerate(tokens[:-1]):
        if (token.kind == NAME and token.upper not in keywords
                and not _is_call(tokens, index, keywords) and is_reserved(token.text)):
            return token.text
    return None


def _operators(tokens: list[Token], keywords: frozenset[str], condition: bool) -> int:
    count = 0
    for index, token in enumerate(tokens[:-1]):
        if token.kind == OP:
            if token.text in (_COMPARATORS if condition else ("+", "-")):
                count += 1
        elif token.kind == NAME and ((token.upper in keywords and condition)
                                     or _is_call(tokens, index, keywords)):
            count += 1
    return count
