"""Fixtures for the Kinesis destination tests: kinesalite."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from kinesiskit import Kinesalite, kinesalite_missing


@pytest.fixture(scope="session")
def kinesalite() -> Iterator[Kinesalite]:
    missing = kinesalite_missing()
    if missing is not None:
        if os.environ.get("CI"):  # .ci/run installs node and npm: a must-run test
            pytest.fail(f"kinesalite: {missing}")
        pytest.skip(f"kinesalite: {missing}")
    server = Kinesalite()
    yield server
    server.stop()
