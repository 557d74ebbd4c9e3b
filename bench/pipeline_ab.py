"""The engine's CPU per request on the item operations the request pipeline
touches, tallydb built from several commits, in one run.

    .venv/bin/python -m bench.pipeline_ab main .          # '.' is the working tree
    .venv/bin/python -m bench.pipeline_ab main . --reps 7 --calls 20000

Each revision's ``src/`` is exported (as ``bench.ab`` does) and run in a
child process of its own, which measures ``Engine.call`` on an in-memory
store, in CPU µs per request (``time.thread_time``: what a busy neighbour
does not inflate): GetItem, PutItem, UpdateItem ``ADD n :one`` (the
counter), DeleteItem of a missing item, a Query of one partition, and a
GetItem refused for its key's value. The revisions take turns, ``--reps``
times; the table gives each one's median and its ratio to the first
revision's in the same turn.
"""

from __future__ import annotations

from bench import child_ab

#: Run in the child, with the revision's src/ first on sys.path.
CHILD = r"""
import json, sys, time
from tallydb.engine.api import Engine
from tallydb.engine.errors import DynamoDBError
from tallydb.engine.storage import Store

calls = int(sys.argv[1])
engine = Engine(Store(None))
engine.call("CreateTable", {
    "TableName": "videos", "BillingMode": "PAY_PER_REQUEST",
    "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
                  {"AttributeName": "SK", "KeyType": "RANGE"}],
    "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"},
                             {"AttributeName": "SK", "AttributeType": "S"}]})
KEY = {"PK": {"S": "VID#9f3a"}, "SK": {"S": "STATS#TOTAL"}}
ITEM = {**KEY, "title": {"S": "Cats"}, "plays": {"N": "7"}}

def cpu(operation, request, n):
    def once():
        try:
            engine.call(operation, request)
        except DynamoDBError:
            pass
    for _ in range(min(n, 1000)):
        once()
    start = time.thread_time()
    for _ in range(n):
        once()
    return (time.thread_time() - start) * 1e6 / n

out = {
    "PutItem": cpu("PutItem", {"TableName": "videos", "Item": ITEM}, calls),
    "GetItem": cpu("GetItem", {"TableName": "videos", "Key": KEY}, calls),
    "UpdateItem ADD": cpu("UpdateItem", {
        "TableName": "videos", "Key": KEY, "UpdateExpression": "ADD plays :one",
        "ExpressionAttributeValues": {":one": {"N": "1"}}}, calls),
    "DeleteItem (none)": cpu("DeleteItem", {
        "TableName": "videos", "Key": {"PK": {"S": "none"}, "SK": {"S": "x"}}}, calls),
    "Query": cpu("Query", {
        "TableName": "videos", "KeyConditionExpression": "PK = :p",
        "ExpressionAttributeValues": {":p": {"S": "VID#9f3a"}}}, calls),
    "GetItem refused": cpu("GetItem", {
        "TableName": "videos", "Key": {"PK": {"N": "x"}, "SK": {"S": "a"}}}, calls),
}
engine.close()
print(json.dumps(out))
"""


def main(argv: list[str] | None = None) -> int:
    return child_ab.main("python -m bench.pipeline_ab", __doc__.split("\n")[0], CHILD,
                         "request", argv)


if __name__ == "__main__":
    raise SystemExit(main())
