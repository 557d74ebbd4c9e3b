"""The operational view's cost on the server's hot path, in instructions
(callgrind): repeatable whatever else the machine is doing.

    .venv/bin/python -m bench.console_cost                   # this tree, and --base
    .venv/bin/python -m bench.console_cost --base main --turns 20
    .venv/bin/python -m bench.console_cost --base /tmp/without-hooks/src   # a src/ directory
    .venv/bin/python -m bench.console_cost --no-base --modes none,metrics,feed,page

Each condition runs in its own ``valgrind --tool=callgrind`` process doing
``bench.server_path``'s turn: 64 ``Connection``s of a real ``Server``
(router, batcher, engine on a temp data directory) each fed one hot-key
``UpdateItem ADD``, then the batcher flushes, as one event-loop turn does
under 64 connections; sockets excluded. The instructions of ``--turns``
turns less those of a run of none (start-up, set-up and warm-up cancel
out), divided by the requests:

* ``before the operational view``: ``--base``'s server (a revision
  exported with ``git archive``, or a ``src/`` directory as it is);
* ``none`` (no page): this tree, no console page listening (the batcher
  holds no metrics, so it records nothing);
* ``page``: this tree with a page's stream open on the live hub, as
  ``GET /console/events`` opens it: the change feed's listener, a frame
  every ``FRAME_TURNS`` turns, and the operational view's metrics (each
  answered request timed, its consumed capacity asked for and recorded);
* ``metrics`` and ``feed``: each of the two alone (``--modes``).

The whole server (HTTP, JSON, the event loop, the sockets) does more per
request than this; ``bench.live_feed`` measures it whole with wrk.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from bench.callgrind import collected

CONNECTIONS = 64


#: Turns between two of the live hub's frames: the loop sends one every
#: 100 ms, which is some 100 turns of 64 requests on a quiet machine and
#: 10 on a saturated one (the more frames, the more each request pays).
FRAME_TURNS = 10
#: The conditions a run measures: what the server does in each.
MODES = {
    "none": "no page",
    "metrics": "the operational view's recording alone",
    "feed": "the live feed alone (its listener, a frame every 10 turns)",
    "page": "page open (the live feed and the operational view)",
}


class _Page:
    """A page's stream that takes everything it is sent."""

    def write(self, data: bytes) -> None:
        pass

    def get_write_buffer_size(self) -> int:
        return 0

    def close(self) -> None:
        pass


def workload(mode: str, turns: int) -> None:
    import uvloop

    from bench.server_path import request
    from tallydb.engine.api import Engine
    from tallydb.engine.storage import Store
    from tallydb.server.app import Server
    from tallydb.server.protocol import Connection

    with tempfile.TemporaryDirectory() as data:
        engine = Engine(Store(data))
        engine.call("CreateTable", {
            "TableName": "counters", "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]})
        server = Server(engine, uvloop.new_event_loop(), console=True)
        assert server.console is not None
        hub = server.console.hub
        clock = [0.0]  # one second, closed at the end for the count below
        metrics: Any = None
        if mode in ("feed", "page"):
            hub.open(None, None).start(_Page())  # what GET /console/events does
            metrics = hub.metrics
            if mode == "feed":
                server._observe(None)
        if mode in ("metrics", "page"):
            from tallydb.console.metrics import Metrics

            metrics = Metrics(lambda: clock[0])
            server._observe(metrics)
        connections = []
        for _ in range(CONNECTIONS):
            connection = Connection(server)
            connection.connection_made(_sink())
            connections.append(connection)

        hot = request("hot")
        listening = hub.listening
        turned = [0]

        def turn() -> None:
            for connection in connections:
                connection.data_received(hot)
            server.batcher.flush()
            turned[0] += 1
            if listening and turned[0] % FRAME_TURNS == 0:
                hub._flush()

        for _ in range(50):
            turn()  # the request shape is learnt, the model loaded
        for _ in range(turns):
            turn()
        hub.close()
        server.loop.run_until_complete(asyncio.sleep(0))  # the hub's task, cancelled
        engine.close()
    if mode in ("metrics", "page"):  # what the operational view counted, for smoke tests
        clock[0] = 1.0
        counted = sum(count for _, tables in metrics.closed() for numbers in tables.values()
                      for count in numbers["operations"].values())
        print(f"recorded {counted} requests")


def _sink() -> object:
    from bench.server_path import _Sink

    return _Sink()


def _instructions(pythonpath: str, mode: str, turns: int) -> int:
    """What one whole process of ``mode`` executes, under callgrind."""
    return collected(
        [sys.executable, "-m", "bench.console_cost", "--run", mode, "--turns", str(turns)],
        {**os.environ, "PYTHONPATH": pythonpath, "PYTHONHASHSEED": "0"}, label=mode)


def _measure(pythonpath: str, mode: str, turns: int) -> float:
    """Instructions per request of ``mode``: a run of ``turns`` less a run of none."""
    ran = _instructions(pythonpath, mode, turns)
    idle = _instructions(pythonpath, mode, 0)
    return (ran - idle) / (turns * CONNECTIONS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="d535c00",
                        help="a revision from before the operational view (d535c00), or a "
                             "src/ directory (this tree with its hooks taken out, say)")
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--modes", default="none,page",
                        help="which conditions to measure besides --base, comma-separated: "
                             + "; ".join(f"{name}: {what}" for name, what in MODES.items()))
    parser.add_argument("--no-base", action="store_true", help="skip the --base run")
    parser.add_argument("--jobs", type=int, default=1,
                        help="conditions measured at once (callgrind counts do not change)")
    parser.add_argument("--run", choices=tuple(MODES), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.run is not None:
        workload(args.run, args.turns)
        return 0
    repo = Path(__file__).resolve().parent.parent
    here = os.pathsep.join([str(repo), str(repo / "src")])
    rows: list[tuple[str, float]] = []
    if not args.no_base:
        from bench.ab import export_src

        with tempfile.TemporaryDirectory(prefix="tallydb-console-cost-") as tmp:
            given = Path(args.base)
            base_src = (given if (given / "tallydb").is_dir()
                        else export_src(args.base, Path(tmp) / "base"))
            rows.append((f"before the operational view ({args.base})",
                         _measure(os.pathsep.join([str(repo), str(base_src)]), "none",
                                  args.turns)))
    modes = args.modes.split(",")
    with ThreadPoolExecutor(args.jobs) as pool:  # each condition's two runs at once
        measured = list(pool.map(lambda mode: _measure(here, mode, args.turns), modes))
    rows += [(MODES[mode], per_request) for mode, per_request in zip(modes, measured, strict=True)]
    base = rows[0][1]
    print(f"Hot-key UpdateItem ADD through the server's path, {args.turns} turns of "
          f"{CONNECTIONS} connections (callgrind, instructions per request)\n")
    print("| condition | instructions/request | ratio | extra |")
    print("|---|---:|---:|---:|")
    for name, per_request in rows:
        print(f"| {name} | {per_request:,.0f} | {per_request / base:.3f} "
              f"| {per_request - base:+,.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
