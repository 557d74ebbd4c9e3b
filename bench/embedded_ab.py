"""The embedded toolkit's cost per call, tallydb built from several commits, in one run.

    .venv/bin/python -m bench.embedded_ab 5d81d57 .          # '.' is the working tree
    .venv/bin/python -m bench.embedded_ab HEAD~1 . --reps 7 --calls 20000

Each revision's ``src/`` is exported (as ``bench.ab`` does) and run in a
child process of its own, which measures, on an in-memory store, the CPU µs
per call (``time.thread_time``, what a busy neighbour does not inflate) of:

* ``Counter.add()``: the hot embedded counter, engine included;
* ``Counter.add() stubbed``: the same on a transport whose engine answers
  at once: the toolkit's own cost per add, without the engine's;
* ``Table.get()`` and ``Table.update()`` stubbed: a method run as a plan
  (the general road every toolkit method takes);
* ``aio Table.get()`` stubbed: the same, awaited (thread pool included).

The revisions take turns, ``--reps`` times; the table gives each one's
median and its ratio to the first revision's in the same turn.
"""

from __future__ import annotations

from bench import child_ab

#: Run in the child, with the revision's src/ first on sys.path.
CHILD = r"""
import asyncio, json, sys, time
import tallydb, tallydb.aio
try:  # the layout by layer, or a revision from before it
    from tallydb.toolkit.embedded import EngineTransport
except ImportError:
    from tallydb.transport import EngineTransport

calls = int(sys.argv[1])
KEY = {"PK": "VID#9f3a", "SK": "STATS#TOTAL"}

def cpu(fn, n):
    for _ in range(min(n, 1000)):
        fn()
    start = time.thread_time()
    for _ in range(n):
        fn()
    return (time.thread_time() - start) * 1e6 / n

db = tallydb.connect(in_memory=True)
table = db.create_table("videos", hash_key=("PK", "S"), range_key=("SK", "S"))
counter = tallydb.Counter(table, KEY, "play_count")
out = {"Counter.add()": cpu(counter.add, calls)}

answer = {"Attributes": {"play_count": {"N": "1"}}, "Item": {"PK": {"S": "a"}, "SK": {"S": "b"}}}
stub = EngineTransport(db.transport.engine, lambda: None)
stub._engine_call = lambda operation, request: answer
stubbed = tallydb.Table(tallydb.Database(stub), "videos", table._schema)
out["Counter.add() stubbed"] = cpu(tallydb.Counter(stubbed, KEY, "play_count").add, calls)
out["Table.get() stubbed"] = cpu(lambda: stubbed.get(KEY), calls)
update = tallydb.Update().set("title", "Cats")
out["Table.update() stubbed"] = cpu(lambda: stubbed.update(KEY, update), calls)

atable = tallydb.aio.Database(stub).table("videos")

async def gets(n):
    for _ in range(n):
        await atable.get(KEY)

async def timed(n):
    await gets(min(n, 200))
    start = time.process_time()
    await gets(n)
    return (time.process_time() - start) * 1e6 / n

out["aio Table.get() stubbed"] = asyncio.run(timed(max(calls // 10, 100)))
db.close()
print(json.dumps(out))
"""


def main(argv: list[str] | None = None) -> int:
    return child_ab.main("python -m bench.embedded_ab", __doc__.split("\n")[0], CHILD, "call", argv)


if __name__ == "__main__":
    raise SystemExit(main())
