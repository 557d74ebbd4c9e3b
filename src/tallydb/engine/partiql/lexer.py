"""PartiQL's tokens as DynamoDB reads them.

Identifiers are bare (``play_count``) or double-quoted (``"videos"``, which
may hold any character); strings are single-quoted with ``''`` for a quote;
``?`` is a positional parameter; ``<<`` and ``>>`` bracket a set literal.
Keywords are bare identifiers compared without case; ``--`` and ``/* */``
comments count as whitespace.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

NAME = "name"
QUOTED = "quoted"  # "identifier"
STRING = "string"  # 'text'
NUMBER = "number"
PARAM = "param"  # ?
OP = "op"
INVALID = "invalid"
EOF = "eof"

_TOKEN = re.compile(
    r"(?P<ws>\s+|--[^\n]*|/\*.*?\*/)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_$]*)"
    r'|(?P<quoted>"(?:[^"]|"")*")'
    r"|(?P<string>'(?:[^']|'')*')"
    r"|(?P<number>(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)"
    r"|(?P<param>\?)"
    r"|(?P<op><<|>>|<>|!=|<=|>=|[=<>()\[\]{},.:+\-*;])"
    r"|(?P<invalid>.)",
    re.DOTALL,
)


@dataclass(frozen=True, slots=True)
class Token:
    kind: str
    text: str
    start: int

    @property
    def upper(self) -> str:
        return self.text.upper() if self.kind == NAME else ""

    @property
    def value(self) -> str:
        """A quoted identifier's or a string's text, unquoted."""
        if self.kind == QUOTED:
            return self.text[1:-1].replace('""', '"')
        if self.kind == STRING:
            return self.text[1:-1].replace("''", "'")
        return self.text


def tokenize(text: str) -> list[Token]:
    """All tokens of ``text`` without whitespace, ending with one EOF token."""
    tokens: list[Token] = []
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        if kind == "ws" or kind is None:
            continue
        tokens.append(Token(kind, match.group(), match.start()))
    tokens.append(Token(EOF, "", len(text)))
    return tokens
