"""Every command runs twice: on the embedded engine (``--data DIR``) and
against a real ``tallydb serve`` (``--endpoint URL``)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import tallydb
from tallydb.cli import main


@dataclass
class Store:
    """Where the commands under test point: ``option`` is ``--data DIR`` or
    ``--endpoint URL``."""

    option: list[str]

    def run(self, *args: str, input: str | None = None) -> Result:
        """``tallydb ARGS --data/--endpoint ...``, in this process."""
        return CliRunner().invoke(main, [*args, *self.option], input=input, prog_name="tallydb")

    def ok(self, *args: str, input: str | None = None) -> str:
        """Run, check it succeeded, and give its standard output."""
        result = self.run(*args, input=input)
        assert result.exit_code == 0, (result.output, result.exception)
        return result.stdout

    def connect(self) -> tallydb.Database:
        """The toolkit on the same store (close it before the next command:
        an embedded store has one owner at a time)."""
        if self.option[0] == "--data":
            return tallydb.connect(path=self.option[1])
        return tallydb.connect(self.option[1])

    def table(self, hash_key: tuple[str, str] = ("PK", "S"),
              range_key: tuple[str, str] | None = ("SK", "S")) -> str:
        """A new table with a unique name; its name."""
        name = f"t{uuid.uuid4().hex[:10]}"
        with self.connect() as db:
            db.create_table(name, hash_key=hash_key, range_key=range_key)
        return name

    def items(self, table: str) -> list[dict[str, Any]]:
        with self.connect() as db:
            return sorted(db.table(table).scan(consistent=True), key=repr)


@pytest.fixture(params=["embedded", "server"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "embedded":
        yield Store(["--data", str(tmp_path / "data")])
    else:
        yield Store(["--endpoint", request.getfixturevalue("tallydb_server").url])
