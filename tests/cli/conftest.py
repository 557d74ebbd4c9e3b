"""Every command runs twice: on the embedded engine (``--data DIR``) and
against a real ``tallydb serve`` (``--endpoint URL``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_store import Store


@pytest.fixture(params=["embedded", "server"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "embedded":
        yield Store(["--data", str(tmp_path / "data")])
    else:
        yield Store(["--endpoint", request.getfixturevalue("tallydb_server").url])
