"""``tallydb reset`` empties a data directory, after asking; and a data
directory in use is a one-line error naming the process that holds it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

import tallydb
from tallydb.cli import main


def _with_a_table(data: Path) -> None:
    with tallydb.connect(path=data) as db:
        db.create_table("videos", hash_key=("PK", "S")).put({"PK": "a"})


def test_reset_asks_then_empties(tmp_path: Path) -> None:
    data = tmp_path / "data"
    _with_a_table(data)
    result = CliRunner().invoke(main, ["reset", "--data", str(data)], input="n\n")
    assert result.exit_code == 1  # aborted
    with tallydb.connect(path=data) as db:
        assert db.list_tables() == ["videos"]
    result = CliRunner().invoke(main, ["reset", "--data", str(data)], input="y\n")
    assert result.exit_code == 0, result.output
    with tallydb.connect(path=data) as db:
        assert db.list_tables() == []


def test_reset_leaves_other_files(tmp_path: Path) -> None:
    data = tmp_path / "data"
    _with_a_table(data)
    (data / "notes.txt").write_text("mine")
    assert CliRunner().invoke(main, ["reset", "--data", str(data), "--yes"]).exit_code == 0
    assert [p.name for p in data.iterdir()] == ["notes.txt"]


def test_reset_of_a_directory_without_data_changes_nothing(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["reset", "--data", str(tmp_path), "--yes"])
    assert result.exit_code == 0
    assert "nothing to do" in result.output


def test_a_directory_in_use_names_its_process(tmp_path: Path) -> None:
    data = tmp_path / "data"
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, tallydb; db = tallydb.connect(path=sys.argv[1]); print('open', flush=True);"
         " sys.stdin.read()", str(data)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "open\n"
        for args in (["reset", "--data", str(data), "--yes"], ["tables", "--data", str(data)]):
            result = CliRunner().invoke(main, args)
            assert result.exit_code == 3
            (line,) = result.output.strip().splitlines()
            assert line.startswith("tallydb: StoreInUseError: ")
            assert f"in use by process {holder.pid} (" in line
        assert (data / "tallydb.lock").exists()
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(10)
    assert os.path.isdir(data)
