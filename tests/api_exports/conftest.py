"""Fixtures for the export and import tests: moto's S3 server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from exportkit import MotoS3


@pytest.fixture(scope="session")
def moto_s3() -> Iterator[MotoS3]:
    server = MotoS3()
    yield server
    server.stop()
