"""A recursive-descent parser for the PartiQL statements DynamoDB runs.

``parse`` is cached by statement text: a statement sent again (with other
parameters) is not parsed again. Nesting (parentheses, NOT, lists, maps,
sets, function calls) is bounded at ``MAX_NESTING`` levels, so no statement
can take the parser, or the plan and expressions made from what it
returns, deeper than that.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from tallydb.engine.errors import ValidationException
from tallydb.engine.partiql import ast
from tallydb.engine.partiql.lexer import (
    EOF,
    INVALID,
    NAME,
    NUMBER,
    OP,
    PARAM,
    QUOTED,
    STRING,
    Token,
    tokenize,
)
from tallydb.engine.partiql.messages import (
    DELETE_RETURNING,
    DUPLICATES_IN_SET,
    EMPTY_SET,
    MIXED_SET,
    NO_STATEMENT,
    NOT_WELL_FORMED,
)
from tallydb.engine.values import normalize_number

_COMPARATORS = frozenset({"=", "<>", "!=", "<", "<=", ">", ">="})
_RETURNING = frozenset({"ALL_OLD", "ALL_NEW", "MODIFIED_OLD", "MODIFIED_NEW"})
#: The deepest nesting a statement may have: DynamoDB's own for documents
#: (``values.MAX_NESTING_LEVEL``); its limit for statements is not on record.
MAX_NESTING = 32
#: Not on record (DynamoDB's answer to a statement nested deeper than it
#: parses was found in no capture): ours, after NOT_WELL_FORMED's opening.
TOO_DEEP = f"Statement nesting exceeds the limit of {MAX_NESTING} levels"


class StatementError(ValidationException):
    """A statement that is not valid PartiQL (DynamoDB's ValidationException)."""

    def __init__(self, detail: str) -> None:
        super().__init__(NOT_WELL_FORMED.format(detail))

    @classmethod
    def code(cls) -> str:
        return "ValidationException"


def parse(text: str) -> ast.Statement:
    """The statement ``text`` holds, or StatementError."""
    return parse_counted(text)[0]


@lru_cache(maxsize=4096)
def parse_counted(text: str) -> tuple[ast.Statement, int]:
    """The statement ``text`` holds and how many ``?`` parameters it has."""
    parser = _Parser(text)
    statement = parser.statement()
    return statement, parser.params


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = tokenize(text)
        if any(token.kind == INVALID for token in self.tokens):
            raise StatementError("")
        self.at = 0
        self.params = 0
        self.depth = 0

    # --- tokens ------------------------------------------------------------

    @property
    def token(self) -> Token:
        return self.tokens[self.at]

    def next(self) -> Token:
        token = self.tokens[self.at]
        if token.kind != EOF:
            self.at += 1
        return token

    def is_op(self, *texts: str) -> bool:
        return self.token.kind == OP and self.token.text in texts

    def is_word(self, *words: str) -> bool:
        return self.token.kind == NAME and self.token.upper in words

    def take_op(self, text: str) -> bool:
        if self.is_op(text):
            self.at += 1
            return True
        return False

    def take_word(self, word: str) -> bool:
        if self.is_word(word):
            self.at += 1
            return True
        return False

    def expect_op(self, text: str) -> None:
        if not self.take_op(text):
            raise self.unexpected(f"expected '{text}'")

    def expect_word(self, word: str) -> None:
        if not self.take_word(word):
            raise self.unexpected(f"expected {word}")

    def unexpected(self, wanted: str) -> StatementError:
        token = self.token
        if token.kind == EOF:
            return StatementError(f"Unexpected end of statement, {wanted}")
        return StatementError(
            f"Unexpected token '{token.text}' at position {token.start + 1}, {wanted}")

    def enter(self) -> None:
        """One level deeper (leave with ``self.depth -= 1``); StatementError
        past MAX_NESTING."""
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise StatementError(TOO_DEEP)

    def identifier(self) -> str:
        token = self.token
        if token.kind in (NAME, QUOTED) and (token.kind == QUOTED or token.text):
            self.at += 1
            return token.value
        raise self.unexpected("expected identifier")

    # --- statements ------------------------------------------------------------

    def statement(self) -> ast.Statement:
        if self.take_word("SELECT"):
            statement: ast.Statement = self.select()
        elif self.take_word("INSERT"):
            statement = self.insert()
        elif self.take_word("UPDATE"):
            statement = self.update()
        elif self.take_word("DELETE"):
            statement = self.delete()
        elif self.take_word("EXISTS"):
            statement = self.exists()
        else:
            raise StatementError(NO_STATEMENT)
        self.take_op(";")
        if self.token.kind != EOF:
            raise self.unexpected("expected end of statement")
        return statement

    def target(self) -> tuple[str, str | None]:
        table = self.identifier()
        index = self.identifier() if self.take_op(".") else None
        return table, index

    def select(self) -> ast.Select:
        projection: tuple[ast.Path, ...] | None = None
        if not self.take_op("*"):
            paths = [self.path()]
            while self.take_op(","):
                paths.append(self.path())
            projection = tuple(paths)
        self.expect_word("FROM")
        table, index = self.target()
        where = self.expression() if self.take_word("WHERE") else None
        descending = False
        if self.take_word("ORDER"):
            self.expect_word("BY")
            self.path()
            if self.take_word("DESC"):
                descending = True
            else:
                self.take_word("ASC")
        return ast.Select(table, index, projection, where, descending)

    def exists(self) -> ast.Exists:
        self.expect_op("(")
        self.expect_word("SELECT")
        select = self.select()
        self.expect_op(")")
        return ast.Exists(select)

    def insert(self) -> ast.Insert:
        self.expect_word("INTO")
        table = self.identifier()
        self.expect_word("VALUE")
        if not self.is_op("{"):
            raise self.unexpected("expected a tuple '{...}'")
        return ast.Insert(table, self.primary())

    def update(self) -> ast.Update:
        table = self.identifier()
        sets: list[tuple[ast.Path, ast.Expr]] = []
        removes: list[ast.Path] = []
        while True:
            if self.take_word("SET"):
                sets.append(self.assignment())
                while self.take_op(","):
                    sets.append(self.assignment())
            elif self.take_word("REMOVE"):
                removes.append(self.path())
                while self.take_op(","):
                    removes.append(self.path())
            else:
                break
        if not sets and not removes:
            raise self.unexpected("expected SET or REMOVE")
        where = self.expression() if self.take_word("WHERE") else None
        return ast.Update(table, tuple(sets), tuple(removes), where, self.returning())

    def assignment(self) -> tuple[ast.Path, ast.Expr]:
        path = self.path()
        self.expect_op("=")
        return path, self.additive()

    def delete(self) -> ast.Delete:
        self.expect_word("FROM")
        table = self.identifier()
        where = self.expression() if self.take_word("WHERE") else None
        returning = self.returning()
        if returning not in (None, "ALL_OLD"):
            raise ValidationException(DELETE_RETURNING.format(
                returning.replace("_", " ") + " *"))
        return ast.Delete(table, where, returning)

    def returning(self) -> str | None:
        if not self.take_word("RETURNING"):
            return None
        which = self.next().upper
        when = self.next().upper
        mode = f"{which}_{when}"
        if mode not in _RETURNING:
            raise StatementError(f"Unexpected RETURNING clause: RETURNING {which} {when}")
        self.expect_op("*")
        return mode

    # --- expressions ------------------------------------------------------------

    def expression(self) -> ast.Expr:
        left = self.conjunction()
        while self.take_word("OR"):
            left = ast.Logical("OR", left, self.conjunction())
        return left

    def conjunction(self) -> ast.Expr:
        left = self.negation()
        while self.take_word("AND"):
            left = ast.Logical("AND", left, self.negation())
        return left

    def negation(self) -> ast.Expr:
        if self.take_word("NOT"):
            self.enter()
            inner = self.negation()
            self.depth -= 1
            return ast.Not(inner)
        return self.predicate()

    def predicate(self) -> ast.Expr:
        left = self.additive()
        if self.is_op(*_COMPARATORS):
            op = self.next().text
            return ast.Compare("<>" if op == "!=" else op, left, self.additive())
        negated = self.take_word("NOT")
        if self.take_word("BETWEEN"):
            low = self.additive()
            self.expect_word("AND")
            between: ast.Expr = ast.Between(left, low, self.additive())
            return ast.Not(between) if negated else between
        if self.take_word("IN"):
            choices = self.members("(", ")") if self.is_op("(") else self.members("[", "]")
            found: ast.Expr = ast.In(left, tuple(choices))
            return ast.Not(found) if negated else found
        if negated:
            raise self.unexpected("expected BETWEEN or IN")
        if self.take_word("IS"):
            not_ = self.take_word("NOT")
            if not isinstance(left, ast.Path):
                raise self.unexpected("IS needs a path on its left")
            what = self.next().upper
            if what not in ("MISSING", "NULL"):
                raise StatementError(f"Unsupported IS predicate: IS {what}")
            return ast.Is(left, what, not_)
        return left

    def additive(self) -> ast.Expr:
        left = self.primary()
        while self.is_op("+", "-"):
            op = self.next().text
            left = ast.Arithmetic(op, left, self.primary())
        return left

    def primary(self) -> ast.Expr:
        """A value or a path; a parenthesis, collection or call one level deeper."""
        token = self.token
        if (token.kind == OP and token.text in ("(", "[", "<<", "{")) or (
                token.kind == NAME and self.tokens[self.at + 1].kind == OP
                and self.tokens[self.at + 1].text == "("):
            self.enter()
            found = self._primary()
            self.depth -= 1
            return found
        return self._primary()

    def _primary(self) -> ast.Expr:
        token = self.token
        if token.kind == PARAM:
            self.at += 1
            self.params += 1
            return ast.Param(self.params - 1)
        if token.kind == STRING:
            self.at += 1
            return ast.Literal({"S": token.value})
        if token.kind == NUMBER or (self.is_op("-") and self.tokens[self.at + 1].kind == NUMBER):
            sign = "-" if self.take_op("-") else ""
            return ast.Literal({"N": normalize_number(sign + self.next().text)})
        if self.take_op("("):
            inner = self.expression()
            self.expect_op(")")
            return inner
        if self.is_op("["):
            return _collection("L", self.members("[", "]"))
        if self.is_op("<<"):
            return _collection("SET", self.members("<<", ">>"))
        if self.take_op("{"):
            pairs: list[tuple[str, ast.Expr]] = []
            if not self.take_op("}"):
                while True:
                    if self.token.kind != STRING:
                        raise self.unexpected("expected a string as a tuple's key")
                    key = self.next().value
                    self.expect_op(":")
                    pairs.append((key, self.additive()))
                    if self.take_op("}"):
                        break
                    self.expect_op(",")
            return _collection("M", pairs)
        if token.kind == NAME:
            word = token.upper
            if word in ("TRUE", "FALSE"):
                self.at += 1
                return ast.Literal({"BOOL": word == "TRUE"})
            if word == "NULL":
                self.at += 1
                return ast.Literal({"NULL": True})
            if self.tokens[self.at + 1].kind == OP and self.tokens[self.at + 1].text == "(":
                self.at += 2
                args = [] if self.is_op(")") else [self.additive()]
                while self.take_op(","):
                    args.append(self.additive())
                self.expect_op(")")
                return ast.Call(token.text.lower(), tuple(args))
        if token.kind in (NAME, QUOTED):
            return self.path()
        raise self.unexpected("expected a value or a path")

    def members(self, opening: str, closing: str) -> list[ast.Expr]:
        self.expect_op(opening)
        found: list[ast.Expr] = []
        if self.take_op(closing):
            return found
        found.append(self.additive())
        while self.take_op(","):
            found.append(self.additive())
        self.expect_op(closing)
        return found

    def path(self) -> ast.Path:
        elements: list[str | int] = [self.identifier()]
        while True:
            if self.take_op("."):
                elements.append(self.identifier())
            elif self.is_op("[") and self.tokens[self.at + 1].kind in (NUMBER, STRING):
                self.at += 1
                token = self.next()
                if token.kind == STRING:
                    elements.append(token.value)
                elif token.text.isdigit():
                    elements.append(int(token.text))
                else:
                    raise self.unexpected("expected a list index")
                self.expect_op("]")
            else:
                return ast.Path(tuple(elements))


def _collection(kind: str, members: list[Any]) -> ast.Expr:
    """A literal when every member is one, else a Collection bound later."""
    values = [m[1] if kind == "M" else m for m in members]
    if not all(isinstance(v, ast.Literal) for v in values):
        return ast.Collection(kind, tuple(members))
    return ast.Literal(build_collection(kind, members, lambda v: v.value))


def build_collection(kind: str, members: Any, value_of: Any) -> dict[str, Any]:
    """The AttributeValue of a list, map or set whose members ``value_of``
    turns into AttributeValues."""
    if kind == "L":
        return {"L": [value_of(m) for m in members]}
    if kind == "M":
        return {"M": {key: value_of(v) for key, v in members}}
    values = [value_of(m) for m in members]
    if not values:
        raise ValidationException(EMPTY_SET)
    kinds = {next(iter(v)) for v in values}
    if len(kinds) != 1 or next(iter(kinds)) not in ("S", "N", "B"):
        raise ValidationException(MIXED_SET)
    member = next(iter(kinds))
    unique = list(dict.fromkeys(v[member] for v in values))
    if len(unique) != len(values):
        raise ValidationException(DUPLICATES_IN_SET)
    return {member + "S": unique}
