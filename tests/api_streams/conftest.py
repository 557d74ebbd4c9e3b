"""The DynamoDB Streams client of a backend (``streamkit.streams_client_of``)."""

from __future__ import annotations

from typing import Any

import pytest
from streamkit import streams_client_of
from tallytest import Backend


@pytest.fixture
def streams(backend: Backend) -> Any:
    return streams_client_of(backend)
