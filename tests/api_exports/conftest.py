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


@pytest.fixture(scope="session")
def aws_cli(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The AWS CLI (v1, from PyPI's ``awscli``): on PATH, or installed into a
    virtual environment of its own (it pins its own botocore)."""
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    found = shutil.which("aws")
    if found is not None:
        return found
    venv = tmp_path_factory.mktemp("awscli")
    try:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "awscli"], check=True,
                       timeout=300, capture_output=True)
    except (subprocess.SubprocessError, OSError) as error:
        reason = f"the AWS CLI is not on PATH and `pip install awscli` failed: {error}"
        if os.environ.get("CI"):  # CI installs from PyPI: a must-run test
            pytest.fail(reason)
        pytest.skip(reason)
    return str(Path(venv) / "bin" / "aws")
