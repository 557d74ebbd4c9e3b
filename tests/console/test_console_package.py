"""The console ships inside the package: a wheel built from the repository
holds every file of ``console/static`` (so ``pip install tallydb`` serves
the same page as a checkout)."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "src" / "tallydb" / "console" / "static"


@pytest.mark.timeout(300)
def test_a_built_wheel_holds_every_console_file(tmp_path: Path) -> None:
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet",
         "--wheel-dir", str(tmp_path), str(ROOT)],
        # pure Python: the console's files are the same, and compiling takes minutes
        env={**os.environ, "TALLYDB_PURE_PYTHON": "1"},
        capture_output=True, text=True, check=False)
    assert built.returncode == 0, built.stderr
    (wheel,) = tmp_path.glob("tallydb-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {"tallydb/console/static/" + path.relative_to(STATIC).as_posix()
                for path in STATIC.rglob("*") if path.is_file()}
    assert expected, "the console has no files"
    assert expected <= names, sorted(expected - names)
