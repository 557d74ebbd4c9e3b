"""The server's request path in instructions (callgrind), revisions side by side.

    .venv/bin/python -m bench.path_instructions c740eb9 .           # '.' is the working tree
    .venv/bin/python -m bench.path_instructions c740eb9 main . --conns 1,4,64 --turns 100
    .venv/bin/python -m bench.path_instructions . --scenario C      # GetItem
    .venv/bin/python -m bench.path_instructions . --scenario B --by-library
    .venv/bin/python -m bench.path_instructions 8c2ac92 . --scenario E --conns 64
    .venv/bin/python -m bench.path_instructions . --scenario S   # A with a stream; P: PartiQL's

Each revision's ``src/`` is exported (as ``bench.ab`` does) and runs
``bench.server_path``'s turn in a ``valgrind --tool=callgrind`` process of
its own: ``--conns`` ``Connection``s of a real ``Server`` (router, batcher,
engine on a temp data directory) are each fed one request, then the batcher
flushes, as one event-loop turn does; sockets and the event loop excluded.
The instructions of ``--turns`` turns less those of a run of none (start-up,
set-up and warm-up cancel out; every tree is compiled to bytecode first, so
neither run pays a module's compiling), divided by the requests: a figure that
whatever else the machine runs does not move. With ``--conns 1`` each
request is a group commit of its own, as a lone client's are.
``--by-library`` also splits each figure by the shared object that ran the
instructions (the interpreter, libc, httptools, orjson, SQLite, zlib).
"""

from __future__ import annotations

import argparse
import compileall
import os
import sys
import tempfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench import compiled
from bench.ab import export_src
from bench.callgrind import LIBRARIES, by_library, collected

#: Run in the child, with the revision's src/ first on sys.path; argv: the
#: scenario, connections a turn, turns.
CHILD = r"""
import random, sys, tempfile
import uvloop
try:
    from tallydb.engine.api import Engine
    from tallydb.engine.storage import Store
except ImportError:  # a revision from before the layout by layer
    from tallydb.api import Engine
    from tallydb.storage import Store
from tallydb.server.app import Server
from tallydb.server.protocol import Connection

BODY = (b'{"TableName":"counters","Key":{"pk":{"S":"%s"}},"UpdateExpression":'
        b'"ADD play_count :one","ExpressionAttributeValues":{":one":{"N":"1"}}}')
HEAD = (  # bench.server_path's (not imported: it needs this tree's package)
    b"POST / HTTP/1.1\r\nHost: 127.0.0.1:8000\r\nContent-Type: application/x-amz-json-1.0\r\n"
    b"X-Amz-Target: DynamoDB_20120810.%s\r\nX-Amz-Date: 20260101T000000Z\r\n"
    b"Authorization: AWS4-HMAC-SHA256 Credential=x/20260101/us-east-1/dynamodb/aws4_request, "
    b"SignedHeaders=host, Signature=00\r\nContent-Length: %d\r\n\r\n%s")

STATEMENT = (b'{"Statement":"UPDATE \\"counters\\" SET play_count = play_count + 1 '
             b'WHERE pk = \'hot\'"}')  # bench.server_path's and bench.streams'

def request(key, operation=b"UpdateItem", body=None):
    body = BODY % key.encode() if body is None else body
    return HEAD % (operation, len(body), body)

class _Sink:
    def write(self, data): pass
    def is_closing(self): return False
    def get_extra_info(self, name, default=None): return default

def _seed(engine, count):
    for start in range(0, count, 25):
        engine.call("BatchWriteItem", {"RequestItems": {"counters": [
            {"PutRequest": {"Item": {"pk": {"S": f"k{i}"}, "play_count": {"N": "0"}}}}
            for i in range(start, min(start + 25, count))]}})

scenario, conns, turns = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(1)
with tempfile.TemporaryDirectory() as data:
    engine = Engine(Store(data))
    engine.call("CreateTable", {
        "TableName": "counters", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        **({"StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}}
           if scenario == "S" else {})})
    if scenario in ("A", "S"):
        requests = [request("hot")]
    elif scenario == "P":  # (an UPDATE needs the item to exist)
        engine.call("PutItem", {"TableName": "counters", "Item": {
            "pk": {"S": "hot"}, "play_count": {"N": "0"}}})
        requests = [request("", b"ExecuteStatement", STATEMENT)]
    elif scenario == "E":  # bench.server_path's: nine shards' ADDs to a Query of the ten
        engine.call("CreateTable", {
            "TableName": "shards", "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                     {"AttributeName": "sk", "AttributeType": "N"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                          {"AttributeName": "sk", "KeyType": "RANGE"}]})
        for shard in range(10):
            engine.call("PutItem", {"TableName": "shards", "Item": {
                "pk": {"S": "total"}, "sk": {"N": str(shard)}, "hits": {"N": "0"}}})
        requests = [request("", body=b'{"TableName":"shards","Key":{"pk":{"S":"total"},'
                            b'"sk":{"N":"%d"}},"UpdateExpression":"ADD hits :one",'
                            b'"ExpressionAttributeValues":{":one":{"N":"1"}}}' % shard)
                    for shard in range(10)] * 9 + [request("", b"Query", (
                        b'{"TableName":"shards","KeyConditionExpression":"pk = :p",'
                        b'"ExpressionAttributeValues":{":p":{"S":"total"}},'
                        b'"ConsistentRead":true}'))] * 10
    else:
        _seed(engine, 1000)
        keys = [f"k{i}" for i in range(1000)]
        requests = ([request(key) for key in keys] if scenario == "B" else
                    [request("", b"GetItem", b'{"TableName":"counters","Key":{"pk":{"S":"%s"}}}'
                             % key.encode()) for key in keys])
    server = Server(engine, uvloop.new_event_loop())
    connections = []
    for _ in range(conns):
        connection = Connection(server)
        connection.connection_made(_Sink())
        connections.append(connection)

    def turn():
        for connection in connections:
            connection.data_received(requests[rng.randrange(len(requests))])
        server.batcher.flush()

    for _ in range(50):
        turn()  # the request shape is learnt, the model loaded
    for _ in range(turns):
        turn()
    engine.close()
print(f"ran {server.batcher.requests} requests")
"""


def _instructions(pythonpath: str, scenario: str, conns: int, turns: int,
                  keep: Path | None = None) -> int:
    return collected(
        [sys.executable, "-c", CHILD, scenario, str(conns), str(turns)],
        {**os.environ, "PYTHONPATH": pythonpath, "PYTHONHASHSEED": "0"},
        label=f"{scenario} at {conns} connections", keep=keep)


def per_request(pythonpath: str, scenario: str, conns: int, turns: int) -> float:
    """Instructions per request: a run of ``turns`` less a run of none."""
    return (_instructions(pythonpath, scenario, conns, turns)
            - _instructions(pythonpath, scenario, conns, 0)) / (turns * conns)


def per_request_by_library(pythonpath: str, scenario: str, conns: int, turns: int
                           ) -> Counter[str]:
    """``per_request``, split by the shared object that ran the instructions."""
    with tempfile.TemporaryDirectory(prefix="tallydb-instr-out-") as tmp:
        runs = []
        for count in (turns, 0):
            out = Path(tmp) / str(count)
            _instructions(pythonpath, scenario, conns, count, keep=out)
            runs.append(by_library(out))
    measured, none = runs
    return Counter({name: (measured[name] - none[name]) / (turns * conns)
                    for name in measured | none})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.path_instructions",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("revs", nargs="+", help="git revisions; '.' is the working tree")
    parser.add_argument("--scenario", default="A", choices=list("ABCEPS"),
                        help="A: the hot key's ADD (default); B: ADD on one of 1,000 keys at "
                             "random; C: GetItem of one of them; E: a sharded counter's ADDs, "
                             "every tenth request a Query of its ten shards; S: A on a table "
                             "with a NEW_AND_OLD_IMAGES stream; P: A as PartiQL's UPDATE ... "
                             "SET play_count = play_count + 1")
    parser.add_argument("--conns", default="1,4,64",
                        help="requests a turn (one group commit's size), comma-separated")
    parser.add_argument("--turns", type=int, default=0,
                        help="turns measured (default: 1,600 requests' worth, at least 25)")
    parser.add_argument("--jobs", type=int, default=2, help="callgrind processes at once")
    parser.add_argument("--by-library", action="store_true",
                        help="also split each figure by the shared object that ran it")
    args = parser.parse_args(argv)
    sizes = [int(n) for n in args.conns.split(",")]
    with tempfile.TemporaryDirectory(prefix="tallydb-instr-") as tmp:
        paths = [str(export_src(rev, Path(tmp) / f"rev{i}")) for i, rev in enumerate(args.revs)]
        forms = {path: compiled.form(Path(path)) for path in paths}
        for path in paths:  # else the first run to import a module pays its compiling
            compileall.compile_dir(path, quiet=1)
        jobs = {(rev, conns): (path, conns, args.turns or max(25, 1600 // conns))
                for rev, path in zip(args.revs, paths, strict=True) for conns in sizes}
        with ThreadPoolExecutor(args.jobs) as pool:
            if args.by_library:
                split = dict(zip(jobs, pool.map(
                    lambda job: per_request_by_library(job[0], args.scenario, *job[1:]),
                    jobs.values()), strict=True))
                found = {job: sum(libraries.values()) for job, libraries in split.items()}
            else:
                found = dict(zip(jobs, pool.map(
                    lambda job: per_request(job[0], args.scenario, *job[1:]), jobs.values()),
                    strict=True))
    print(f"Scenario {args.scenario}, callgrind instructions per request "
          f"(in-process turns; ratios to {args.revs[0]}):\n")
    for rev, path in zip(args.revs, paths, strict=True):
        print(f"- {rev}: {forms[path]}")
    print()
    print("| revision | " + " | ".join(f"{n} a turn" for n in sizes) + " |")
    print("|---|" + "---:|" * len(sizes))
    for rev in args.revs:
        cells = [f"{found[rev, n]:,.0f} ({found[rev, n] / found[args.revs[0], n]:.2f})"
                 for n in sizes]
        print(f"| {rev} | " + " | ".join(cells) + " |")
    if args.by_library:
        names = [name for name in (*dict(LIBRARIES).values(), "other")
                 if any(libraries[name] for libraries in split.values())]
        names = list(dict.fromkeys(names))  # SQLite is two objects
        print("\nBy the shared object that ran them, per request:\n")
        print("| revision | a turn | " + " | ".join(names) + " |")
        print("|---|---:|" + "---:|" * len(names))
        for (rev, conns), libraries in split.items():
            print(f"| {rev} | {conns} | "
                  + " | ".join(f"{libraries[name]:,.0f}" for name in names) + " |")
    if len(sizes) >= 2:
        low, high = min(sizes), max(sizes)
        print("\nPer group commit and per request (from the "
              f"{low}- and {high}-a-turn counts):")
        for rev in args.revs:
            a, b = found[rev, low], found[rev, high]
            batch = (a - b) / (1 / low - 1 / high)
            print(f"  {rev}: {batch:,.0f} a group commit, {b - batch / high:,.0f} a request")
    return 0


if __name__ == "__main__":
    sys.exit(main())
