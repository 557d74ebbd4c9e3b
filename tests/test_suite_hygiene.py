"""The suite itself passes on a busy machine: no test asserts how long
something took, and no property test fails for the machine's slowness."""

from __future__ import annotations

import importlib.util
import inspect
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
#: An assertion that a wall-clock difference is below a bound.
WALL_CLOCK = (r"assert[^#]*(time\.(monotonic|time|perf_counter)\(\) *- *[a-z_0-9.]+\)?"
              r"|elapsed\w*\)?|duration\)?|took\)?) *<")


@pytest.mark.parametrize("line", [
    "assert (time.monotonic() - start) < 5",  # the one a loaded machine failed
    "assert time.perf_counter() - self.t0 <= 2.0",
    # (in two pieces, so that a search of the tree does not take the sample for an assertion)
    "assert elapsed" " < 5, elapsed",
    "assert (took) < 1",
])
def test_the_search_finds_elapsed_time_assertions(line: str) -> None:
    assert re.search(WALL_CLOCK, line)


def test_the_search_leaves_waiting_for_a_condition_alone() -> None:
    assert not re.search(WALL_CLOCK, 'assert time.monotonic() < deadline, "never swept"')


def test_no_test_asserts_elapsed_wall_clock_time() -> None:
    # Wait for a condition with a generous timeout instead: a loaded machine
    # makes anything slower, and a bound on it fails there and nowhere else.
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout, or no git: git grep cannot search it")
    found = subprocess.run(["git", "grep", "-nE", WALL_CLOCK, "--", "tests",
                            f":(exclude){Path(__file__).relative_to(ROOT)}"],
                           cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert found.returncode == 1, f"wall-clock assertions:\n{found.stdout}"


def test_the_default_property_settings_bear_a_slow_machine() -> None:
    assert settings.default.deadline is None
    assert HealthCheck.too_slow in settings.default.suppress_health_check


def _property_tests() -> list[tuple[str, object]]:
    found: list[tuple[str, object]] = []
    for path in sorted(TESTS.rglob("test_*.py")):
        if "from hypothesis" not in path.read_text():
            continue
        sys.path.insert(0, str(path.parent))
        try:
            spec = importlib.util.spec_from_file_location(f"_hygiene_{path.stem}", path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module  # dataclasses look their module up
            spec.loader.exec_module(module)
        finally:
            sys.path.remove(str(path.parent))
            sys.modules.pop(f"_hygiene_{path.stem}", None)
        for name, function in inspect.getmembers(module, inspect.isfunction):
            if hasattr(function, "hypothesis"):
                found.append((f"{path.relative_to(ROOT)}::{name}", function))
    return found


def test_every_property_test_bears_a_slow_machine() -> None:
    tests = _property_tests()
    assert len(tests) > 10  # the search finds them
    for name, function in tests:
        own = function._hypothesis_internal_use_settings  # type: ignore[attr-defined]
        assert own.deadline is None, f"{name} has a deadline"
        assert HealthCheck.too_slow in own.suppress_health_check, (
            f"{name} fails on a slow machine (HealthCheck.too_slow is not suppressed)")
