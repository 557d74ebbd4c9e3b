"""Short runs of the crash and fuzz harnesses in bench/ (their long runs and
figures: bench/README.md), so they cannot rot and so what they check is
checked on every change."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def harness(*args: str, timeout: float = 240) -> tuple[int, dict[str, str], str]:
    """Run ``python -m bench.NAME ARGS``: exit status, its ``name: value`` lines, all output."""
    done = subprocess.run([sys.executable, "-m", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=timeout, check=False)
    figures = {}
    for line in done.stdout.splitlines():
        name, sep, value = line.partition(": ")
        if sep and not line.startswith(" "):
            figures[name] = value
    return done.returncode, figures, done.stdout + done.stderr


@pytest.mark.parametrize("sync", ["normal", "full"])
def test_kill_9_under_load_loses_nothing_acknowledged(sync: str) -> None:
    code, figures, output = harness(
        "bench.crash", "--sync", sync, "--kills", "2", "--clients", "3", "--seed", "2",
        "--min-gap", "0.4", "--max-gap", "0.8", "--max-restart", "10")
    assert code == 0, output
    assert figures["problems"] == "[]"
    assert figures["lost"] == "0"
    assert int(figures["acknowledged"]) > 0
    assert figures["integrity_check"] == "ok"


def test_kill_9_under_load_loses_nothing_replicated() -> None:
    """The counters a global table: after the kills every acknowledged change
    is in the other region's replica too."""
    code, figures, output = harness(
        "bench.crash", "--global", "--kills", "3", "--clients", "3", "--seed", "4",
        "--min-gap", "0.4", "--max-gap", "0.8", "--max-restart", "10")
    assert code == 0, output
    assert figures["problems"] == "[]" and figures["replicated"] == "True"
    assert figures["lost"] == "0" and int(figures["acknowledged"]) > 0


@pytest.mark.parametrize("signed", [False, True], ids=["open", "credentials"])
def test_fuzzed_requests_are_answered_in_dynamodbs_shape(signed: bool) -> None:
    code, figures, output = harness("bench.fuzz", "--cases", "1500", "--seed", "3",
                                    *(["--credentials"] if signed else []))
    assert int(figures["cases"]) >= 1500, output
    for kind in ("500s", "hangs", "unshaped", "changed_on_reject", "server_died"):
        assert figures[kind] == "0", output
    assert code == 0, output


def test_the_fuzz_starts_from_every_operation_served() -> None:
    from bench.fuzz import templates
    from tallydb.engine.api import OPERATIONS

    assert set(OPERATIONS) - set(templates()) == set()
