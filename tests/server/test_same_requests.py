"""Requests of the same bytes (a hot counter's) share one parse, and each
still runs as itself: its own answer, its own increment, in its turn."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from serverkit import Pipe, Serve, post, request_bytes

pytest_plugins = ["server_fixtures"]


def _add(key: str) -> bytes:
    return request_bytes("UpdateItem", {
        "TableName": "hits", "Key": {"pk": {"S": key}}, "UpdateExpression": "ADD n :one",
        "ExpressionAttributeValues": {":one": {"N": "1"}}, "ReturnValues": "UPDATED_NEW"})


def _count(answer: Any) -> int:
    assert answer.status == 200, answer.body
    return int(answer.json["Attributes"]["n"]["N"])


def _with_hits(serve: Callable[..., Serve]) -> Serve:
    """A server in memory with the table ``hits`` (hash key ``pk``)."""
    server = serve("--in-memory")
    created = post(server.url, "CreateTable", {
        "TableName": "hits", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]})
    assert created.status == 200, created.body
    return server


def test_the_same_request_pipelined_counts_once_each_and_other_bytes_are_their_own(
    serve: Callable[..., Serve], pipe_factory: Callable[[str], Pipe]
) -> None:
    server = _with_hits(serve)
    first, second = pipe_factory(server.url), pipe_factory(server.url)
    # runs of one body, and two bodies taking turns, on two connections at once
    order = ["a"] * 20 + ["b", "a"] * 10 + ["b"] * 20
    first.send(b"".join(_add(key) for key in order))
    second.send(b"".join(_add(key) for key in reversed(order)))
    seen: dict[str, list[int]] = {"a": [], "b": []}
    for pipe, keys in ((first, order), (second, list(reversed(order)))):
        for key in keys:
            seen[key].append(_count(pipe.response()))
    for key in ("a", "b"):
        assert sorted(seen[key]) == list(range(1, 61)), key
    read = request_bytes("GetItem", {"TableName": "hits", "Key": {"pk": {"S": "a"}}})
    first.send(read + _add("a") + read)
    before, added, after = (first.response() for _ in range(3))
    assert before.json == {"Item": {"pk": {"S": "a"}, "n": {"N": "60"}}}
    assert _count(added) == 61
    assert after.json == {"Item": {"pk": {"S": "a"}, "n": {"N": "61"}}}


def _statement(text: str) -> bytes:
    return request_bytes("ExecuteStatement", {"Statement": text})


def test_the_same_statement_pipelined_runs_once_each(
    serve: Callable[..., Serve], pipe_factory: Callable[[str], Pipe]
) -> None:
    server = _with_hits(serve)
    put = post(server.url, "PutItem", {"TableName": "hits",
                                       "Item": {"pk": {"S": "a"}, "n": {"N": "0"}}})
    assert put.status == 200, put.body
    add = _statement("UPDATE hits SET n = n + 1 WHERE pk = 'a' RETURNING MODIFIED NEW *")
    read = _statement("SELECT n FROM hits WHERE pk = 'a'")
    pipe = pipe_factory(server.url)
    pipe.send(add * 10 + read + add * 10 + read)
    counts = []
    for _ in range(22):
        answer = pipe.response()
        assert answer.status == 200, answer.body
        counts.append(int(answer.json["Items"][0]["n"]["N"]))
    assert counts == [*range(1, 11), 10, *range(11, 21), 20]
