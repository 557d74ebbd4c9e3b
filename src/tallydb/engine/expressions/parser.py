"""One recursive-descent parser with four entry points.

``parse_update``, ``parse_condition`` (also Filter and KeyCondition),
``parse_projection``: text in, syntax tree out, or ``ExpressionError`` for an
empty expression or a syntax error, worded as DynamoDB words it. Semantic
checks (reserved words, functions, placeholders, overlapping paths) are not
done here: they run on the tree, in the order DynamoDB reports them.

Results are cached by text, so a request that repeats an expression (a hot
counter's ``ADD n :one``) never parses it again. Failures are cached too.

Grammar (keywords case-insensitive; function names as written):

    update     := clause+                      clause keywords SET REMOVE ADD DELETE
    clause     := SET set (',' set)* | REMOVE path (',' path)*
                | ADD path VALUE (',' ...)* | DELETE path VALUE (',' ...)*
    set        := path '=' ( '(' setvalue ')' | setvalue )
    setvalue   := operandp ( ('+' | '-') operandp )?
    operandp   := '(' operand ')' | operand
    condition  := and (OR and)*
    and        := not (AND not)*
    not        := NOT not | primary
    primary    := '(' condition ')' | operand comparator operand
                | operand BETWEEN operand AND operand
                | operand IN '(' operand (',' operand)* ')' | call
    operand    := '(' operand ')' | call | VALUE | path   (conditions: any depth)
    call       := NAME '(' operand (',' operand)* ')'
    path       := (NAME | #NAME) ('.' (NAME | #NAME) | '[' DIGITS ']')*
    projection := path (',' path)*
"""

from __future__ import annotations

from functools import lru_cache

from tallydb.engine.expressions import ast
from tallydb.engine.expressions.lexer import (
    ATTR_NAME,
    ATTR_VALUE,
    EOF,
    NAME,
    NUMBER,
    OP,
    Token,
    near,
    token_text,
    tokenize,
)
from tallydb.engine.expressions.messages import (
    EMPTY,
    ExpressionError,
    list_index_out_of_range,
    path_too_deep,
    syntax_error,
    too_long,
)
from tallydb.engine.expressions.nesting import MAX_DEPTH, too_deep

UPDATE_KEYWORDS = frozenset({"SET", "REMOVE", "ADD", "DELETE"})
CONDITION_KEYWORDS = frozenset({"AND", "OR", "NOT", "BETWEEN", "IN"})
_COMPARATORS = frozenset(ast.COMPARATORS)
MAX_INDEX = 2**31 - 1  # list indexes are Java ints
MAX_PATH_DEPTH = 32


class _Failure(Exception):
    """Parsing cannot go on at token ``pos``."""

    def __init__(self, pos: int) -> None:
        super().__init__(pos)
        self.pos = pos


class _TooDeep(Exception):
    """The expression nests deeper than ``MAX_DEPTH`` at token ``pos``."""

    def __init__(self, pos: int) -> None:
        super().__init__(pos)
        self.pos = pos


class _Parser:
    def __init__(self, text: str, keywords: frozenset[str], nested_parens: bool) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.pos = 0
        self.keywords = keywords
        # Conditions allow parentheses at any depth (and report doubled ones
        # as redundant); UpdateExpression allows one level around an operand.
        self.nested_parens = nested_parens
        self.redundant = False
        # A list index or path DynamoDB cannot hold: reported after syntax errors.
        self.late_error: str | None = None
        self._parened: dict[int, object] = {}  # id -> node (kept alive: ids stay unique)
        self.depth = 0  # Python frames below the entry point, roughly (``descend``)
        # Each parenthesized operand parsed, by its start: (operand, end,
        # whether it held redundant parentheses), or where it failed. A
        # condition tries one at every '(' before reading a nested condition,
        # and would parse the same ones again at each level without this.
        self._parsed: dict[int, tuple[ast.Operand, int, bool] | int] = {}

    # -- token helpers -----------------------------------------------------

    def peek(self, offset: int = 0) -> Token:
        index = min(self.pos + offset, len(self.tokens) - 1)
        return self.tokens[index]

    def fail(self) -> _Failure:
        return _Failure(self.pos)

    def is_op(self, text: str, offset: int = 0) -> bool:
        tok = self.peek(offset)
        return tok.kind == OP and tok.text == text

    def is_keyword(self, word: str) -> bool:
        tok = self.peek()
        return tok.kind == NAME and tok.upper == word

    def is_identifier(self, offset: int = 0) -> bool:
        tok = self.peek(offset)
        return tok.kind == NAME and tok.upper not in self.keywords

    def expect_op(self, text: str) -> None:
        if not self.is_op(text):
            raise self.fail()
        self.pos += 1

    def expect_eof(self) -> None:
        if self.peek().kind != EOF:
            raise self.fail()

    def error(self, failure: _Failure) -> str:
        token = self.tokens[failure.pos]
        return syntax_error(token_text(token), near(self.text, self.tokens, failure.pos))

    def descend(self, frames: int) -> None:
        """Go ``frames`` deeper (``ascend`` after); stop past ``MAX_DEPTH``."""
        self.depth += frames
        if self.depth > MAX_DEPTH:
            raise _TooDeep(self.pos)

    def ascend(self, frames: int) -> None:
        self.depth -= frames

    def mark_parened(self, node: object) -> None:
        if id(node) in self._parened:
            self.redundant = True
        self._parened[id(node)] = node

    # -- paths and operands ------------------------------------------------

    def path_head(self) -> ast.Name | ast.NameRef:
        tok = self.peek()
        if tok.kind == ATTR_NAME:
            self.pos += 1
            return ast.NameRef(tok.text)
        if self.is_identifier():
            self.pos += 1
            return ast.Name(tok.text)
        raise self.fail()

    def path_rest(self, elements: list[ast.PathElement]) -> ast.Path:
        while True:
            if self.is_op("."):
                self.pos += 1
                elements.append(self.path_head())
            elif self.is_op("["):
                self.pos += 1
                tok = self.peek()
                if tok.kind != NUMBER:
                    raise self.fail()
                self.pos += 1
                self.expect_op("]")
                index = int(tok.text)
                if index > MAX_INDEX and self.late_error is None:
                    self.late_error = list_index_out_of_range(f"[{tok.text}]")
                elements.append(ast.Index(index))
            else:
                if len(elements) > MAX_PATH_DEPTH and self.late_error is None:
                    self.late_error = path_too_deep(len(elements))
                return ast.Path(tuple(elements))

    def path(self) -> ast.Path:
        return self.path_rest([self.path_head()])

    def call(self) -> ast.Call:
        name = self.peek().text
        self.pos += 2  # name and '('
        self.descend(3)  # call, operand_parens, operand
        args = [self.operand_parens()]
        while self.is_op(","):
            self.pos += 1
            args.append(self.operand_parens())
        self.expect_op(")")
        self.ascend(3)
        return ast.Call(name, tuple(args))

    def operand(self) -> ast.Operand:
        tok = self.peek()
        if tok.kind == ATTR_VALUE:
            self.pos += 1
            return ast.ValueRef(tok.text)
        if self.is_identifier() and self.is_op("(", 1):
            return self.call()
        return self.path()

    def operand_parens(self) -> ast.Operand:
        if not self.is_op("("):
            return self.operand()
        start = self.pos
        known = self._parsed.get(start)
        if known is not None:
            if isinstance(known, int):
                raise _Failure(known)
            node, self.pos, redundant = known
            self.redundant = self.redundant or redundant
            return node
        self.pos += 1
        self.descend(1)
        redundant, self.redundant = self.redundant, False
        try:
            inner = self.operand_parens() if self.nested_parens else self.operand()
            self.expect_op(")")
            self.ascend(1)
            if self.nested_parens:
                self.mark_parened(inner)
                if isinstance(inner, ast.Path) and (self.is_op(".") or self.is_op("[")):
                    inner = self.path_rest(list(inner.elements))
        except _Failure as failure:
            self._parsed[start] = failure.pos
            raise
        self._parsed[start] = (inner, self.pos, self.redundant)
        self.redundant = self.redundant or redundant
        return inner

    # -- UpdateExpression --------------------------------------------------

    def update(self) -> ast.UpdateExpression:
        clauses = [self.clause()]
        while self.peek().kind != EOF:
            clauses.append(self.clause())
        return ast.UpdateExpression(tuple(clauses))

    def clause(self) -> ast.UpdateClause:
        tok = self.peek()
        word = tok.upper if tok.kind == NAME else ""
        if word not in UPDATE_KEYWORDS:
            raise self.fail()
        self.pos += 1
        actions = [self.action(word)]
        while self.is_op(","):
            self.pos += 1
            actions.append(self.action(word))
        keyword: ast.ClauseKeyword
        if word == "SET":
            keyword = "SET"
        elif word == "REMOVE":
            keyword = "REMOVE"
        elif word == "ADD":
            keyword = "ADD"
        else:
            keyword = "DELETE"
        return ast.UpdateClause(keyword, tuple(actions))

    def action(self, word: str) -> ast.Action:
        target = self.path()
        if word == "REMOVE":
            return ast.RemoveAction(target)
        if word == "SET":
            self.expect_op("=")
            return ast.SetAction(target, self.set_value())
        tok = self.peek()
        if tok.kind != ATTR_VALUE:
            raise self.fail()
        self.pos += 1
        if word == "ADD":
            return ast.AddAction(target, ast.ValueRef(tok.text))
        return ast.DeleteAction(target, ast.ValueRef(tok.text))

    def at_action_end(self) -> bool:
        tok = self.peek()
        return (tok.kind == EOF or (tok.kind == OP and tok.text == ",")
                or (tok.kind == NAME and tok.upper in UPDATE_KEYWORDS))

    def set_value(self) -> ast.SetValue:
        if self.is_op("("):
            start, depth = self.pos, self.depth
            try:
                self.pos += 1
                value = self.arithmetic()
                self.expect_op(")")
                if not self.at_action_end():
                    raise self.fail()
                return value
            except _Failure as first:
                self.pos, self.depth = start, depth
                try:
                    return self.arithmetic()
                except _Failure as second:
                    raise _Failure(max(first.pos, second.pos)) from None
        return self.arithmetic()

    def arithmetic(self) -> ast.SetValue:
        left = self.operand_parens()
        if self.is_op("+") or self.is_op("-"):
            op = self.peek().text
            self.pos += 1
            right = self.operand_parens()
            return ast.Arithmetic("+" if op == "+" else "-", left, right)
        return left

    # -- conditions --------------------------------------------------------

    def condition(self) -> ast.Condition:
        left = self.and_condition()
        while self.is_keyword("OR"):
            self.pos += 1
            left = ast.Or(left, self.and_condition())
        return left

    def and_condition(self) -> ast.Condition:
        left = self.not_condition()
        while self.is_keyword("AND"):
            self.pos += 1
            left = ast.And(left, self.not_condition())
        return left

    def not_condition(self) -> ast.Condition:
        if self.is_keyword("NOT"):
            self.pos += 1
            self.descend(1)
            inner = self.not_condition()
            self.ascend(1)
            return ast.Not(inner)
        return self.primary()

    def primary(self) -> ast.Condition:
        if not self.is_op("("):
            return self.atomic(operator_required=False)
        start, redundant, depth = self.pos, self.redundant, self.depth
        try:
            return self.atomic(operator_required=True)
        except _Failure as first:
            self.pos, self.redundant, self.depth = start, redundant, depth
            try:
                self.pos += 1
                self.descend(4)  # condition, and_condition, not_condition, primary
                inner = self.condition()
                self.expect_op(")")
                self.ascend(4)
            except _Failure as second:
                raise _Failure(max(first.pos, second.pos)) from None
            self.mark_parened(inner)
            return inner

    def atomic(self, operator_required: bool) -> ast.Condition:
        left = self.operand_parens()
        tok = self.peek()
        if tok.kind == OP and tok.text in _COMPARATORS:
            self.pos += 1
            right = self.operand_parens()
            return ast.Comparison(_comparator(tok.text), left, right)
        if self.is_keyword("BETWEEN"):
            self.pos += 1
            low = self.operand_parens()
            if not self.is_keyword("AND"):
                raise self.fail()
            self.pos += 1
            return ast.Between(left, low, self.operand_parens())
        if self.is_keyword("IN"):
            self.pos += 1
            self.expect_op("(")
            candidates = [self.operand_parens()]
            while self.is_op(","):
                self.pos += 1
                candidates.append(self.operand_parens())
            self.expect_op(")")
            return ast.In(left, tuple(candidates))
        if isinstance(left, ast.Call) and not operator_required:
            return left
        raise self.fail()

    # -- ProjectionExpression ----------------------------------------------

    def projection(self) -> ast.Projection:
        paths = [self.path()]
        while self.is_op(","):
            self.pos += 1
            paths.append(self.path())
        return ast.Projection(tuple(paths))


def _comparator(text: str) -> ast.Comparator:
    for comparator in ast.COMPARATORS:
        if comparator == text:
            return comparator
    raise ValueError(text)  # pragma: no cover - the lexer only makes these


class ParsedCondition:
    """A condition tree and whether it had doubled (redundant) parentheses,
    which DynamoDB reports only after syntax errors."""

    __slots__ = ("redundant_parens", "tree")

    def __init__(self, tree: ast.Condition, redundant_parens: bool) -> None:
        self.tree = tree
        self.redundant_parens = redundant_parens


MAX_EXPRESSION_BYTES = 4096


def _refusal(text: str) -> str | None:
    """Refused before parsing: an empty expression, or one over 4 KB."""
    if not text.strip(" \t\r\n"):
        return EMPTY
    size = len(text) if text.isascii() else len(text.encode("utf-8"))
    if size > MAX_EXPRESSION_BYTES:
        return too_long(size)
    return None


# The caches hold a tree, or the error's text (never an exception instance:
# raising one instance again and again would grow its traceback).


@lru_cache(maxsize=2048)
def _update(text: str) -> ast.UpdateExpression | str:
    refusal = _refusal(text)
    if refusal is not None:
        return refusal
    parser = _Parser(text, UPDATE_KEYWORDS, nested_parens=False)
    try:
        tree = parser.update()
    except _Failure as failure:
        return parser.error(failure)
    except _TooDeep as stop:
        return too_deep(text, parser.tokens, stop.pos, condition=False)
    return parser.late_error or tree


@lru_cache(maxsize=2048)
def _condition(text: str) -> ParsedCondition | str:
    refusal = _refusal(text)
    if refusal is not None:
        return refusal
    parser = _Parser(text, CONDITION_KEYWORDS, nested_parens=True)
    try:
        tree = parser.condition()
        parser.expect_eof()
    except _Failure as failure:
        return parser.error(failure)
    except _TooDeep as stop:
        return too_deep(text, parser.tokens, stop.pos, condition=True)
    return parser.late_error or ParsedCondition(tree, parser.redundant)


@lru_cache(maxsize=2048)
def _projection(text: str) -> ast.Projection | str:
    refusal = _refusal(text)
    if refusal is not None:
        return refusal
    parser = _Parser(text, frozenset(), nested_parens=False)
    try:
        tree = parser.projection()
        parser.expect_eof()
    except _Failure as failure:
        return parser.error(failure)
    return parser.late_error or tree


def parse_update(text: str) -> ast.UpdateExpression:
    """Parse an UpdateExpression; raises ``ExpressionError``."""
    result = _update(text)
    if isinstance(result, str):
        raise ExpressionError(result)
    return result


def parse_condition(text: str) -> ParsedCondition:
    """Parse a Condition-, Filter- or KeyConditionExpression."""
    result = _condition(text)
    if isinstance(result, str):
        raise ExpressionError(result)
    return result


def parse_projection(text: str) -> ast.Projection:
    """Parse a ProjectionExpression."""
    result = _projection(text)
    if isinstance(result, str):
        raise ExpressionError(result)
    return result
