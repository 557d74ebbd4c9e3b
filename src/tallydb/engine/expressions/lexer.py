"""The one tokenizer behind all four expression grammars.

Tokens carry their span in the text, so a syntax error can quote DynamoDB's
``near`` (the text from the token before the offending one to the token after
it). The lexer never fails: a character no token starts with becomes an
INVALID token, and the parser reports it when it gets there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

NAME = "name"  # identifier: a letter, then letters, digits, underscores
ATTR_NAME = "attr_name"  # #placeholder
ATTR_VALUE = "attr_value"  # :placeholder
NUMBER = "number"  # digits (list indexes only)
OP = "op"  # punctuation and comparators
INVALID = "invalid"  # one character that starts no token
EOF = "eof"

_TOKEN = re.compile(
    r"(?P<ws>[ \t\r\n]+)"
    r"|(?P<name>[A-Za-z][A-Za-z0-9_]*)"
    r"|(?P<attr_name>\#[A-Za-z0-9_]+)"
    r"|(?P<attr_value>:[A-Za-z0-9_]+)"
    r"|(?P<number>[0-9]+)"
    r"|(?P<op><>|<=|>=|[=<>()\[\],.+\-])"
    r"|(?P<invalid>.)",
    re.DOTALL,
)


@dataclass(frozen=True, slots=True)
class Token:
    kind: str
    text: str
    start: int
    end: int

    @property
    def upper(self) -> str:
        return self.text.upper()


def tokenize(text: str) -> list[Token]:
    """All tokens of ``text`` without whitespace, ending with one EOF token."""
    tokens: list[Token] = []
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        if kind == "ws" or kind is None:
            continue
        tokens.append(Token(kind, match.group(), match.start(), match.end()))
    tokens.append(Token(EOF, "", len(text), len(text)))
    return tokens


def near(text: str, tokens: list[Token], index: int) -> str:
    """DynamoDB's ``near`` for a syntax error at ``tokens[index]``: the text
    from the start of the token before it to the end of the token after it
    (to the end of the text when the error is at the end)."""
    start = tokens[index - 1].start if index > 0 else 0
    bad = tokens[index]
    if bad.kind == EOF:
        end = len(text)
    elif index + 1 < len(tokens):
        end = tokens[index + 1].end
    else:  # pragma: no cover - EOF always follows
        end = bad.end
    return text[start:end]


def token_text(token: Token) -> str:
    """How a syntax error names the offending token."""
    return "<EOF>" if token.kind == EOF else token.text
