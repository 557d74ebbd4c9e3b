"""Interleaved A/B: one scenario against tallydb built from several commits.

    .venv/bin/python -m bench.ab 73d60b6 HEAD                  # B over 10,000 keys
    .venv/bin/python -m bench.ab HEAD~1 . --scenario A --reps 6   # . = the working tree
    .venv/bin/python -m bench.ab HEAD HEAD --keys 1000000          # this machine's noise
    .venv/bin/python -m bench.ab 3949488 . --scenario A --credentials full   # signed
    .venv/bin/python -m bench.ab . --scenario A --credentials full --unsigned-too
    .venv/bin/python -m bench.ab . --scenario A --flags-too=--commit-thread --shared-cpus

With ``--credentials full`` (or ``limited``: a key limited to the bench's
tables) every server checks signatures and every request is signed by that
key (scenario A: its one request is signed afresh before each run). With
``--unsigned-too`` each revision also runs without credentials, in the same
run: what checking signatures and access costs, as a ratio. With
``--flags-too FLAGS`` each revision also runs with those ``serve`` options
(``--commit-thread``, say), in the same run.

``--shared-cpus`` pins nothing: the server, wrk and this process share
every CPU, as clients on a busy machine contend with the server (pinned, the
server has a CPU of its own and wrk the others).

This machine's speed drifts by tens of percent over minutes, more than most
changes are worth, so a change is judged only against a baseline measured
in the same run. Each revision's `src/` is exported (`git archive`), and one
`tallydb serve` per revision runs at once, each on its own copy of the same
data (seeded once, through the first revision's server: `setup_tables`, the
items `bench.run` uses). Every repetition runs the scenario on each server
in turn (wrk, pinned like `bench.run`); the table gives medians and each
revision's ratio to the first, per repetition and overall. The data format
must be one every revision reads.
"""

from __future__ import annotations

import argparse
import io
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench import compiled
from bench.dynamo import COUNTERS, SHARDS, setup_tables, signed_headers
from bench.loadgen import run_wrk
from bench.measure import Plan, _one_rep
from bench.run import _cpus, pin_cpus
from bench.scenarios import Scenario
from bench.scenarios import build as build_scenarios
from bench.servers import PYTHON, REPO, SPECS, RunningServer, ServerSpec


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.ab", description=__doc__.split("\n")[0])
    p.add_argument("revs", nargs="+", help="git revisions; '.' is the working tree")
    p.add_argument("--scenario", default="B", choices=list("ABCE"), help="default B")
    p.add_argument("--keys", type=int, default=10_000, help="items for B and C (10,000)")
    p.add_argument("--conns", type=int, default=64, help="wrk connections (64)")
    p.add_argument("--warmup", type=int, default=2, help="seconds per server before the reps")
    p.add_argument("--duration", type=int, default=5, help="seconds per measured run")
    p.add_argument("--reps", type=int, default=5, help="measured runs per server (median)")
    p.add_argument("--credentials", choices=sorted(KEYS), default=None,
                   help="servers check signatures; requests are signed by this kind of key")
    p.add_argument("--unsigned-too", action="store_true",
                   help="with --credentials: each revision also without them, in the same run")
    p.add_argument("--flags-too", default=None, metavar="FLAGS",
                   help="each revision also with these serve options, in the same run")
    p.add_argument("--shared-cpus", action="store_true",
                   help="pin nothing: the server and the load generator contend for every CPU")
    args = p.parse_args(argv)
    if args.unsigned_too and args.credentials is None:
        p.error("--unsigned-too needs --credentials")
    return args


#: The key each --credentials kind signs with: (access key, secret, its TOML lines).
KEYS = {
    "full": ("AKIDBENCH", "bench-secret", ""),
    "limited": ("AKIDBENCH", "bench-secret", f'tables = ["{COUNTERS}", "{SHARDS}"]'),
}


def credentials_file(kind: str, into: Path) -> Path:
    key, secret, rule = KEYS[kind]
    path = into / "credentials.toml"
    path.write_text(f'[keys.{key}]\nsecret = "{secret}"\n{rule}\n')
    return path


def signed_env(scenario: Scenario, url: str, kind: str) -> dict[str, str]:
    """A static scenario's wrk environment with a real signature of its request."""
    headers = signed_headers(url, scenario.env["BENCH_TARGET"], scenario.env["BENCH_BODY"],
                             KEYS[kind][:2])
    return {**scenario.env, "BENCH_AUTHORIZATION": headers["Authorization"],
            "BENCH_DATE": headers["X-Amz-Date"]}


def export_src(rev: str, into: Path) -> Path:
    """The revision's src/ tree, as a folder to put first on sys.path, built
    as the revision installs (``bench.compiled``: its hot path compiled when
    its setup.py compiles it). ``.`` is the working tree as installed."""
    if rev == ".":
        src = REPO / "src"
    else:
        listed = subprocess.run(
            ["git", "-C", str(REPO), "ls-tree", "--name-only", rev], capture_output=True,
            check=True, text=True).stdout.split()
        paths = ["src", *(name for name in compiled.BUILD_FILES if name in listed)]
        tar = subprocess.run(
            ["git", "-C", str(REPO), "archive", rev, *paths], capture_output=True, check=True
        ).stdout
        with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
            archive.extractall(into, filter="data")
        compiled.build(into)
        src = into / "src"
    print(f"{rev}: {compiled.form(src)}", file=sys.stderr, flush=True)
    return src


def _spec(name: str, label: str, src: Path, data: Path, credentials: Path | None = None,
          flags: tuple[str, ...] = ()) -> ServerSpec:
    base = SPECS["tallydb"]
    start = f"import sys, runpy; sys.path.insert(0, {str(src)!r}); runpy.run_module('tallydb', run_name='__main__')"  # noqa: E501
    signed = [] if credentials is None else ["--credentials", str(credentials)]

    def argv(port: int, workdir: Path) -> list[str]:
        return [PYTHON, "-c", start, "serve", "--host", "127.0.0.1", "--port", str(port),
                "--data", str(data), *signed, *flags]

    return ServerSpec(name, label, argv, base.check, base.version, cwd=REPO, tallydb=True)


def main(argv: list[str] | None = None) -> int:
    args = _parse_args(argv)
    # --shared-cpus: nothing pinned, wrk as many threads as when pinned
    server_cpus, load_cpus, wrk_threads = (
        (None, None, _cpus()[2]) if args.shared_cpus else pin_cpus())
    scenario = build_scenarios(args.keys)[args.scenario]
    plan = Plan.one(scenario, args, load_cpus, wrk_threads)
    if args.credentials is not None and scenario.env.get("BENCH_MODE") != "static":
        print("--credentials signs one static request: scenario A only", file=sys.stderr)
        return 2
    #: Each server: its name, its revision's index, whether it checks signatures,
    #: its extra serve options.
    runs = [(f"{i}:{rev}", i, args.credentials is not None, ())
            for i, rev in enumerate(args.revs)]
    if args.unsigned_too:
        runs = [run for i, rev in enumerate(args.revs)
                for run in ((f"{i}:{rev} unsigned", i, False, ()),
                            (f"{i}:{rev} {args.credentials}", i, True, ()))]
    if args.flags_too:
        flags = tuple(shlex.split(args.flags_too))
        runs = [run for name, i, signed, _ in runs
                for run in ((name, i, signed, ()), (f"{name} {args.flags_too}", i, signed, flags))]
    names = [name for name, _, _, _ in runs]
    reps: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    with tempfile.TemporaryDirectory(prefix="tallydb-ab-") as tmp, ExitStack() as stack:
        root = Path(tmp)
        srcs = [export_src(rev, root / f"rev{i}") for i, rev in enumerate(args.revs)]
        seed = root / "seed"
        keys = None if args.credentials is None else credentials_file(args.credentials, root)
        key = None if args.credentials is None else KEYS[args.credentials][:2]
        with RunningServer(_spec("seed", "seed", srcs[0], seed, keys), server_cpus) as server:
            setup_tables(server.url, args.keys, key)
        servers = []
        signing: dict[str, bool] = {}
        for n, (name, i, signed, flags) in enumerate(runs):
            shutil.copytree(seed, root / f"data{n}")
            # the name names temp folders: a revision may hold a "/"
            spec = _spec(f"rev{n}", name, srcs[i], root / f"data{n}", keys if signed else None,
                         flags)
            servers.append(stack.enter_context(RunningServer(spec, server_cpus)))
            signing[servers[-1].url] = signed

        def sent(server: RunningServer) -> Scenario:
            """The scenario as sent to ``server``: signed now, when signatures count."""
            if args.credentials is None or not signing[server.url]:
                return scenario
            return replace(scenario, env=signed_env(scenario, server.url, args.credentials))

        for server in servers:
            if args.warmup > 0:
                run_wrk(server.url, sent(server).env, args.conns, args.warmup,
                        threads=wrk_threads, cpus=load_cpus)
        for r in range(args.reps):
            for name, server in zip(names, servers, strict=True):
                rep = _one_rep(server, sent(server), args.conns, plan, False)
                if rep["errors"]:
                    print(f"{name}: {rep['errors']} errors", file=sys.stderr)
                    return 1
                reps[name].append(rep)
                print(f"  rep {r + 1}/{args.reps} {name}: {rep['rps']:,.0f} req/s "
                      f"(other CPU {rep['other_cpu_percent']:.0f}%)", flush=True)
    pinning = ("nothing pinned: server and load share every CPU" if args.shared_cpus
               else f"server on CPU {server_cpus}, load on {load_cpus}")
    print(f"\nScenario {args.scenario} ({scenario.title}), {args.conns} connections, "
          f"{args.reps} x {args.duration} s in turn, medians; ratios to {names[0]}; "
          f"{pinning}; load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}.\n")
    print("| revision | req/s | ratio | per-rep ratios | CPU µs/req | p99 ms |")
    print("|---|---:|---:|---|---:|---:|")
    first = reps[names[0]]
    first_rps = statistics.median(rep["rps"] for rep in first)
    for name in names:
        runs = reps[name]
        rps = statistics.median(rep["rps"] for rep in runs)
        per_rep = ", ".join(f"{a['rps'] / b['rps']:.2f}" for a, b in zip(runs, first, strict=True))
        print(f"| {name} | {rps:,.0f} | {rps / first_rps:.2f} | {per_rep} "
              f"| {statistics.median(rep['cpu_us_per_request'] for rep in runs):.1f} "
              f"| {statistics.median(rep['p99_ms'] for rep in runs):.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
