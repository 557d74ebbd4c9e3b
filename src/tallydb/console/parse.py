"""``POST /console/api/parse``: expressions, or a PartiQL statement,
checked by the server's own parser and static checks, without running
anything.

A statement (``Statement``, ``Parameters``) is answered with what it is
(its kind, table, index and number of ``?``); given ``Keys``, the key
attributes of that table (``{"table", "index", "attributes": [[name,
type], ...]}``, as DescribeTable gives them), also with the operation and
request it runs as (``planned``): the JSON operation the editor shows
beside it.

The answer to a bad expression is DynamoDB's own error body, plus where
the offending token is when the message names one: ``expression`` (which
request member), ``start`` and ``end`` (character offsets into its text).
DynamoDB's messages name the token (``token: "+", near: "SET a + b"``,
``reserved keyword: count``, ``attribute value: :v``); the position is
found from them, so the parser needs no second error format.
"""

from __future__ import annotations

import re
from typing import Any

from tallydb.engine.api import EXPRESSIONS, check_expressions, check_statement
from tallydb.engine.errors import DynamoDBError

_SYNTAX = re.compile(r'token: "(?P<token>.*)", near: "(?P<near>.*)"$')
_NAMED = re.compile(
    r"(?:reserved keyword|attribute value|attribute name|function|operator|"
    r"path|keyword): (?P<token>[^\s;,]+)")
_MEMBER = re.compile(r"^Invalid (?P<member>\w+Expression):")
_UNUSED = re.compile(r"^Value provided in (?P<member>ExpressionAttribute\w+) unused")


def parse(request: Any) -> tuple[int, dict[str, Any]]:
    """(status, body) for a parse request."""
    if not isinstance(request, dict):
        return 400, {"__type": "com.amazon.coral.service#SerializationException",
                     "Message": "the request must be a JSON object"}
    if "Statement" in request:
        return _statement(request)
    try:
        operation = check_expressions(request)
    except DynamoDBError as error:
        body = error.to_wire()
        body.update(locate(request, error.message or ""))
        return error.status, body
    return 200, {"valid": True, "operation": operation}


def _statement(request: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """(status, body) for a PartiQL statement."""
    try:
        answer = check_statement(request)
        given = request.get("Keys")
        if (isinstance(given, dict) and given.get("table") == answer["table"]
                and given.get("index") == answer["index"]):
            keys = [(str(name), str(kind)) for name, kind in given.get("attributes") or ()]
            answer = check_statement(request, keys)
    except DynamoDBError as error:
        return error.status, error.to_wire()
    return 200, {"valid": True, **answer}


def locate(request: dict[str, Any], message: str) -> dict[str, Any]:
    """Which expression ``message`` is about and where its token is, when
    that can be told."""
    unused = _UNUSED.match(message)
    if unused is not None:
        return {"expression": unused["member"]}
    member = _MEMBER.match(message)
    members = [member["member"]] if member else [
        name for name in EXPRESSIONS if isinstance(request.get(name), str)]
    if member and member["member"] == "FilterExpression" and "FilterExpression" not in request:
        return {}
    syntax = _SYNTAX.search(message)
    named = _NAMED.search(message)
    for name in members:
        text = request.get(name)
        if not isinstance(text, str):
            continue
        if syntax is not None:
            token, near = syntax["token"], syntax["near"]
            if token == "<EOF>":
                return {"expression": name, "start": len(text), "end": len(text)}
            at = text.find(near)
            if at >= 0:
                start = text.find(token, at)
                if start >= 0:
                    return {"expression": name, "start": start, "end": start + len(token)}
        elif named is not None:
            token = named["token"]
            found = re.search(r"(?<![\w#:])" + re.escape(token) + r"(?![\w])", text)
            if found is not None:
                return {"expression": name, "start": found.start(), "end": found.end()}
        if member:
            return {"expression": name}
    return {}
