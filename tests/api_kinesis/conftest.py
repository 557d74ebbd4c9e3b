"""Fixtures for the Kinesis destination tests: kinesalite."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from kinesiskit import Kinesalite, kinesalite_missing


@pytest.fixture(scope="session")
def kinesalite() -> Iterator[Kinesalite]:
    missing = kinesalite_missing()
    if missing is not None:
        pytest.skip(f"kinesalite: {missing}")
    server = Kinesalite()
    yield server
    server.stop()
